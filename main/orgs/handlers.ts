import {
  DeleteOrganizationRequest,
  GetOrganizationMetadataRequest,
  GetOrganizationNamespaceAvailabilityRequest,
  GetOrganizationsWithAccessToLocationRequest,
  ListOrganizationsByUserRequest,
  UpdateOrganizationMetadataRequest,
  UpdateOrganizationRequest,
} from '../../proto/gen/fleet/app/v1/orgs';
import type { DomainHandlers } from '../backend/router';
import type { BackendContext } from '../backend/context';
import { readThrough, write } from '../backend/calls';
import { AppError } from '../backend/errors';
import { cachedMetadataView, freshMetadata } from '../backend/metadata';
import { LONG_DEADLINE_MS } from '../grpc/client';
import { getOrg } from './cache';
import { orgFromWire } from './convert';
import { orgsSnapshot } from './sync';

type OrgsChannel =
  | 'orgs.list'
  | 'orgs.refresh'
  | 'orgs.get'
  | 'orgs.create'
  | 'orgs.update'
  | 'orgs.delete'
  | 'orgs.namespaceAvailable'
  | 'orgs.withAccessToLocation'
  | 'orgs.byUser'
  | 'orgs.metadata'
  | 'orgs.setMetadata';

export function orgsHandlers(ctx: BackendContext): DomainHandlers<OrgsChannel> {
  const { connection, events } = ctx;
  return {
    'orgs.list': () => orgsSnapshot(connection.cache),

    'orgs.refresh': async () => {
      await connection.sync();
      return orgsSnapshot(connection.cache);
    },

    'orgs.get': ({ orgId }) =>
      readThrough(
        connection,
        'This organization',
        async (client, _cache, run) => {
          const response = await client.call('read the organization', client.app.getOrganization, { orgId });
          if (!response.organization) throw new AppError('internal', 'The service answered GetOrganization without an organization.');
          const org = orgFromWire(response.organization);
          await run('upsertOrg', org);
          return org;
        },
        (cache) => getOrg(cache, orgId),
      ),

    'orgs.create': ({ name }) =>
      write(connection, 'create the organization', async (client, cache, run) => {
        const response = await client.call('create the organization', client.app.createOrganization, { name });
        if (!response.organization) throw new AppError('internal', 'The service answered CreateOrganization without an organization.');
        const org = orgFromWire(response.organization);
        await run('upsertOrg', org);
        // Only the active profile's list is on screen.
        if (connection.cache === cache) events.emit('orgs.changed', orgsSnapshot(cache));
        return org;
      }),

    'orgs.update': ({ orgId, name, publicNamespace, region, cid, defaultFragments }) =>
      write(connection, 'change the organization', async (client, cache, run) => {
        // Absent leaves the list alone; present (empty too) replaces it: the wire tells them apart by the list's message.
        const fragments = defaultFragments === undefined ? {} : { defaultFragments: { fragments: defaultFragments.map((f) => ({ fragmentId: f.fragmentId, version: f.version })) } };
        const r = await client.call('change the organization', client.app.updateOrganization, UpdateOrganizationRequest.fromPartial({ orgId, name, publicNamespace, region, cid, ...fragments }));
        if (!r.organization) throw new AppError('internal', 'The service answered UpdateOrganization without an organization.');
        const org = orgFromWire(r.organization);
        await run('upsertOrg', org);
        if (connection.cache === cache) events.emit('orgs.changed', orgsSnapshot(cache));
        return org;
      }),

    'orgs.delete': ({ orgId }) =>
      write(connection, 'delete the organization', async (client, cache, run) => {
        await client.call('delete the organization', client.app.deleteOrganization, DeleteOrganizationRequest.fromPartial({ orgId }), { deadlineMs: LONG_DEADLINE_MS });
        await run('removeOrgFleet', orgId);
        const snapshot = orgsSnapshot(cache);
        if (connection.cache === cache) {
          events.emit('orgs.changed', snapshot);
          events.emit('fleet.changed', { orgIds: [orgId], all: false });
        }
        return snapshot;
      }),

    'orgs.namespaceAvailable': ({ publicNamespace }) =>
      write(connection, 'check the namespace', async (client) => {
        const r = await client.call('check the namespace', client.app.getOrganizationNamespaceAvailability, GetOrganizationNamespaceAvailabilityRequest.fromPartial({ publicNamespace }));
        return { available: r.available };
      }),

    'orgs.withAccessToLocation': ({ locationId }) =>
      write(connection, 'list who has access', async (client) => {
        const r = await client.call('list who has access', client.app.getOrganizationsWithAccessToLocation, GetOrganizationsWithAccessToLocationRequest.fromPartial({ locationId }));
        return r.organizationIdentities.map((o) => ({ id: o.id, name: o.name }));
      }),

    'orgs.byUser': ({ userId }) =>
      write(connection, "list the user's organizations", async (client) => {
        const r = await client.call("list the user's organizations", client.app.listOrganizationsByUser, ListOrganizationsByUserRequest.fromPartial({ userId }));
        return r.orgs.map((o) => ({ orgId: o.orgId, orgName: o.orgName, orgCid: o.orgCid, publicNamespace: o.publicNamespace }));
      }),

    'orgs.metadata': ({ orgId }) =>
      readThrough(
        connection,
        "This organization's metadata",
        async (client, _cache, run) => {
          const r = await client.call('read the metadata', client.app.getOrganizationMetadata, GetOrganizationMetadataRequest.fromPartial({ orgId }));
          return freshMetadata(run, 'organization', orgId, r.metadata ?? {});
        },
        (cache) => cachedMetadataView(cache, 'organization', orgId),
      ),

    'orgs.setMetadata': ({ orgId, metadata }) =>
      write(connection, 'save the metadata', async (client, _cache, run) => {
        await client.call('save the metadata', client.app.updateOrganizationMetadata, UpdateOrganizationMetadataRequest.fromPartial({ orgId, metadata }));
        return freshMetadata(run, 'organization', orgId, metadata);
      }),
  };
}
