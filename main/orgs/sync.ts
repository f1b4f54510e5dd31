import type { OrgsSnapshot } from '../../common/orgs';
import type { EventBus } from '../backend/events';
import type { CacheDb } from '../cache/cache';
import type { SyncedResource } from '../connection/connection';
import { listOrgs, orgsSyncedAt } from './cache';
import { orgFromWire } from './convert';

export function orgsSnapshot(cache: CacheDb): OrgsSnapshot {
  return { orgs: listOrgs(cache), syncedAt: orgsSyncedAt(cache) };
}

/** Organizations as a synced resource: the whole list replaces the cached one. */
export function orgsResource(events: EventBus): SyncedResource {
  return {
    name: 'organizations',
    async sync(client, _cache, at, { run }) {
      const response = await client.call('list organizations', client.app.listOrganizations, {});
      await run('replaceOrgs', response.organizations.map(orgFromWire), at);
    },
    publish(cache) {
      events.emit('orgs.changed', orgsSnapshot(cache));
    },
  };
}
