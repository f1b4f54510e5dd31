/**
 * The fleet (locations, machines, parts of every organization) as a synced resource. A round pages
 * through ListLocations and ListMachineSummaries of each organization — decoding on the main thread
 * one page at a time, so no step holds the event loop long — and hands each organization's snapshot
 * to the cache worker, which replaces that organization's rows in one transaction.
 *
 * A full fetch of a big fleet costs seconds, so only rounds someone asked for (connecting, Retry,
 * Refresh) and at most one periodic round every FLEET_REFRESH_MS fetch it; liveness in between is
 * kept fresh for what is on screen by the liveness watcher (machines/liveness.ts), not by refetching everything.
 */
import { GetLocationRequest, ListLocationsRequest } from '../../proto/gen/fleet/app/v1/locations';
import { ListMachineSummariesRequest, type MachineSummary } from '../../proto/gen/fleet/app/v1/machines';
import type { Location as WireLocation } from '../../proto/gen/fleet/app/v1/locations';
import type { EventBus } from '../backend/events';
import { AppError } from '../backend/errors';
import type { CacheDb } from '../cache/cache';
import type { CacheRunner, SyncedResource } from '../connection/connection';
import type { FleetClient } from '../grpc/client';
import { LONG_DEADLINE_MS } from '../grpc/client';
import { cachedFromSummary, locationFromWire } from './convert';
import { cachedOrgIds, type CachedMachine } from './tree';
import type { Location } from '../../common/locations';

/** How often a periodic round refetches the whole fleet. */
export const FLEET_REFRESH_MS = 60_000;
/** Pages are as large as the protocol allows: fewer round trips for big fleets. */
const PAGE_SIZE = 1000;
/** A service that never ends its listing must not keep a sync busy for ever. */
const MAX_PAGES = 10_000;

/** Every page of a paged listing, in order. */
export async function allPages<T>(fetch: (pageToken: string) => Promise<{ items: readonly T[]; next: string }>, onPage?: (count: number) => void): Promise<T[]> {
  const out: T[] = [];
  let token = '';
  for (let page = 0; page < MAX_PAGES; page++) {
    const { items, next } = await fetch(token);
    out.push(...items);
    onPage?.(out.length);
    if (next === '') return out;
    token = next;
  }
  throw new AppError('internal', `The service kept paging past ${MAX_PAGES} pages; the listing was abandoned.`);
}

/** Read a location from the service (the spec's GetLocation), as the bridge shows it. */
export async function fetchLocation(client: FleetClient, locationId: string): Promise<Location> {
  const r = await client.call('read the location', client.app.getLocation, GetLocationRequest.fromPartial({ locationId }));
  if (!r.location) throw new AppError('internal', 'The service answered GetLocation without a location.');
  return locationFromWire(r.location);
}

export function listAllLocations(client: FleetClient, orgId: string): Promise<WireLocation[]> {
  return allPages(async (pageToken) => {
    const r = await client.call('list locations', client.app.listLocations, ListLocationsRequest.fromPartial({ orgId, pageSize: PAGE_SIZE, pageToken }));
    return { items: r.locations, next: r.nextPageToken };
  });
}

export function listAllSummaries(
  client: FleetClient,
  request: { orgId: string; locationIds?: readonly string[]; fragmentIds?: readonly string[]; limit?: number },
  onPage?: (count: number) => void,
): Promise<MachineSummary[]> {
  return allPages(
    async (pageToken) => {
      const r = await client.call(
        'list machines',
        client.app.listMachineSummaries,
        ListMachineSummariesRequest.fromPartial({
          organizationId: request.orgId,
          locationIds: [...(request.locationIds ?? [])],
          fragmentIds: [...(request.fragmentIds ?? [])],
          limit: request.limit ?? 0,
          pageSize: PAGE_SIZE,
          pageToken,
        }),
        { deadlineMs: LONG_DEADLINE_MS },
      );
      return { items: r.machineSummaries, next: r.nextPageToken };
    },
    onPage,
  );
}

/**
 * Fetch one organization's whole fleet and replace it in the cache: the worker writes each page of
 * machines while the next one is fetched, all in one transaction, committed when the last page is in
 * (a failure rolls it back: the previous snapshot stays whole). Used by sync rounds, and by writes that
 * change what another organization sees (sharing). Answers how many machines it holds and whether the
 * tree draws differently now (liveness aside), or null for an organization the profile does not cache
 * (nothing is fetched then).
 */
export async function syncOrgFleet(client: FleetClient, cache: CacheDb, orgId: string, run: CacheRunner, onMachines?: (count: number) => void): Promise<{ machines: number; changed: boolean } | null> {
  if (!cachedOrgIds(cache).includes(orgId)) return null;
  const at = new Date().toISOString();
  const locations = await listAllLocations(client, orgId);
  await run('beginFleet', orgId);
  const writes: Promise<void>[] = [];
  const write = (page: { locations?: Location[]; machines?: CachedMachine[] }) => {
    const done = run('fleetPage', orgId, page, at);
    // Looked at together at the end; a failure must not surface as an unhandled rejection before then.
    done.catch(() => undefined);
    writes.push(done);
  };
  try {
    write({ locations: locations.map(locationFromWire) });
    let machines = 0;
    await allPages(async (pageToken) => {
      const r = await client.call(
        'list machines',
        client.app.listMachineSummaries,
        ListMachineSummariesRequest.fromPartial({ organizationId: orgId, pageSize: PAGE_SIZE, pageToken }),
        { deadlineMs: LONG_DEADLINE_MS },
      );
      machines += r.machineSummaries.length;
      write({ machines: r.machineSummaries.map(cachedFromSummary) });
      onMachines?.(machines);
      return { items: [], next: r.nextPageToken };
    });
    await Promise.all(writes);
    const changed = await run('commitFleet', orgId, at);
    return { machines, changed };
  } catch (e) {
    await run('abortFleet').catch(() => undefined);
    throw e;
  }
}

export function fleetResource(events: EventBus, log: (message: string) => void): SyncedResource {
  /** When each cache (profile) last had its whole fleet fetched. */
  const fetchedAt = new WeakMap<CacheDb, number>();
  /** Caches whose trees the renderer was told about since they were opened (each sync tells it per organization). */
  const announced = new WeakSet<CacheDb>();
  return {
    name: 'fleet',
    async sync(client, cache, _at, { run, progress, forced }) {
      if (!forced && Date.now() - (fetchedAt.get(cache) ?? 0) < FLEET_REFRESH_MS) return;
      // The organizations resource ran first in this round: its list is current.
      const orgIds = cachedOrgIds(cache);
      progress({ orgsTotal: orgIds.length, orgsDone: 0, machines: 0 });
      await run('dropFleetsExcept', orgIds);
      let machines = 0;
      for (const [index, orgId] of orgIds.entries()) {
        let synced;
        try {
          synced = await syncOrgFleet(client, cache, orgId, run, (count) => progress({ machines: machines + count }));
        } catch (e) {
          // Gone between the two listings (deleted elsewhere): the next round drops it.
          if (e instanceof AppError && e.kind === 'not-found') {
            log(`sync: organization ${orgId} disappeared while syncing; skipped`);
            continue;
          }
          throw e;
        }
        machines += synced?.machines ?? 0;
        progress({ orgsDone: index + 1, machines });
        // Only a tree that draws differently is reloaded: with thousands of machines that is a
        // noticeable pause in the renderer, and liveness reaches the screen on its own.
        if (synced?.changed) events.emit('fleet.changed', { orgIds: [orgId], all: false });
      }
      fetchedAt.set(cache, Date.now());
    },
    publish(cache) {
      // After a switch every tree on screen is another profile's; after a round, the organizations
      // it fetched were announced one by one already, and nothing else changed.
      if (announced.has(cache)) return;
      announced.add(cache);
      events.emit('fleet.changed', { orgIds: [], all: true });
    },
  };
}
