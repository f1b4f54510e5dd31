/**
 * What the active key may do, as a synced resource: after the fleet, one CheckPermissions call per
 * organization names every resource of its cached tree (the organization, each location, each
 * machine) with the permissions the app gates actions on (common/access.ts `CHECKED_PERMISSIONS`),
 * so the cost is one call per tree, not one per row. The answer is kept per profile as a bit set
 * per resource; `access.permissions` names the organizations whose answer changed.
 *
 * It runs with the rounds that refetch the fleet (asked for, or a minute since the last check), so a
 * role given or taken elsewhere shows within a minute. A check that fails for another reason than
 * the service or the key (an older service without CheckPermissions) leaves the last answer and
 * does not fail the round: the fleet is still worth showing.
 */
import { CHECKED_PERMISSIONS, type AccessResourceType, type KeyPermissions } from '../../common/access';
import type { AuthorizedPermissions } from '../../proto/gen/fleet/app/v1/access';
import type { EventBus } from '../backend/events';
import { AppError } from '../backend/errors';
import type { CacheDb } from '../cache/cache';
import type { SyncedResource } from '../connection/connection';
import { cachedOrgIds, treeIds } from '../fleet/tree';
import { resourceTypeToWire } from './convert';

/** A periodic round checks again at most this often (the fleet's own refetch pace). */
const RECHECK_MS = 60_000;

/** The bit set of the permissions held, in `CHECKED_PERMISSIONS[type]` order. */
export function bitsFor(type: AccessResourceType, held: readonly string[]): number {
  const order = CHECKED_PERMISSIONS[type] as readonly string[];
  let bits = 0;
  for (const p of held) {
    const i = order.indexOf(p);
    if (i >= 0) bits |= 1 << i;
  }
  return bits;
}

/** The CheckPermissions request naming an organization's whole tree, in a fixed order: organization, locations, machines. */
export function treeRequest(orgId: string, ids: { locations: readonly string[]; machines: readonly string[] }): AuthorizedPermissions[] {
  const entry = (type: AccessResourceType, id: string): AuthorizedPermissions => ({ resourceType: resourceTypeToWire(type), resourceId: id, permissions: [...CHECKED_PERMISSIONS[type]] });
  return [entry('organization', orgId), ...ids.locations.map((id) => entry('location', id)), ...ids.machines.map((id) => entry('machine', id))];
}

/** The answer to `treeRequest`, read back into bits per resource. */
export function permissionsFrom(orgId: string, ids: { locations: readonly string[]; machines: readonly string[] }, answer: readonly AuthorizedPermissions[], at: string): Omit<KeyPermissions, 'fromCache'> {
  const held = (i: number) => answer[i]?.permissions ?? [];
  const locations: Record<string, number> = {};
  const machines: Record<string, number> = {};
  ids.locations.forEach((id, i) => (locations[id] = bitsFor('location', held(1 + i))));
  ids.machines.forEach((id, i) => (machines[id] = bitsFor('machine', held(1 + ids.locations.length + i))));
  return { orgId, organization: bitsFor('organization', held(0)), locations, machines, checkedAt: at };
}

export function permissionsResource(events: EventBus, log: (message: string) => void): SyncedResource {
  const checkedAt = new WeakMap<CacheDb, number>();
  const published = new WeakSet<CacheDb>();
  return {
    name: 'permissions',
    async sync(client, cache, at, { run, forced }) {
      const now = Date.now();
      if (!forced && now - (checkedAt.get(cache) ?? 0) < RECHECK_MS) return;
      const orgIds = cachedOrgIds(cache);
      const changed: string[] = [];
      for (const orgId of orgIds) {
        const ids = treeIds(cache, orgId);
        let answer;
        try {
          answer = await client.call('check what this key may do', client.app.checkPermissions, { permissions: treeRequest(orgId, ids) }, { deadlineMs: 30_000 });
        } catch (e) {
          if (e instanceof AppError && (e.kind === 'offline' || e.kind === 'unauthenticated')) throw e;
          log(`permissions: ${e instanceof Error ? e.message : String(e)}`);
          return;
        }
        if (await run('accessPermissionsPut', permissionsFrom(orgId, ids, answer.authorizedPermissions, at))) changed.push(orgId);
      }
      await run('accessPermissionsKeep', orgIds);
      checkedAt.set(cache, now);
      if (changed.length > 0) events.emit('access.permissions', { orgIds: changed, all: false });
    },
    publish(cache) {
      // After a switch every organization's answer is another profile's; after a round, the sync said what changed.
      if (published.has(cache)) return;
      published.add(cache);
      events.emit('access.permissions', { orgIds: [], all: true });
    },
  };
}
