import type { DomainHandlers } from '../backend/router';
import type { BackendContext } from '../backend/context';
import { AppError } from '../backend/errors';
import { getOrg, upsertOrg } from './cache';
import { orgFromWire } from './convert';
import { orgsSnapshot } from './sync';

type OrgsChannel = 'orgs.list' | 'orgs.refresh' | 'orgs.get' | 'orgs.create';

export function orgsHandlers(ctx: BackendContext): DomainHandlers<OrgsChannel> {
  const { connection, events } = ctx;
  return {
    'orgs.list': () => orgsSnapshot(connection.cache),

    'orgs.refresh': async () => {
      await connection.sync();
      return orgsSnapshot(connection.cache);
    },

    'orgs.get': async ({ orgId }) => {
      const cache = connection.cache;
      if (connection.state.status === 'offline') {
        const cached = getOrg(cache, orgId);
        if (cached) return cached;
        throw new AppError('offline', 'This organization is not in the cache and the service cannot be reached.');
      }
      try {
        return await connection.use(async (client, sessionCache) => {
          const response = await client.call('read the organization', client.app.getOrganization, { orgId });
          if (!response.organization) throw new AppError('internal', 'The service answered GetOrganization without an organization.');
          const org = orgFromWire(response.organization);
          upsertOrg(sessionCache, org);
          return org;
        });
      } catch (e) {
        // Reads fall back to the cache when the service is gone; every other failure is the answer.
        const cached = e instanceof AppError && e.kind === 'offline' ? getOrg(cache, orgId) : null;
        if (cached) return cached;
        throw e;
      }
    },

    'orgs.create': async ({ name }) => {
      return connection.use(async (client, cache) => {
        const response = await client.call('create the organization', client.app.createOrganization, { name });
        if (!response.organization) throw new AppError('internal', 'The service answered CreateOrganization without an organization.');
        const org = orgFromWire(response.organization);
        upsertOrg(cache, org);
        // Only the active profile's list is on screen.
        if (connection.cache === cache) events.emit('orgs.changed', orgsSnapshot(cache));
        return org;
      });
    },
  };
}
