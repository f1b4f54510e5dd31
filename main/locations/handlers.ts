import {
  CreateLocationRequest,
  DeleteLocationRequest,
  GetLocationMetadataRequest,
  ShareLocationRequest,
  UnshareLocationRequest,
  UpdateLocationMetadataRequest,
  UpdateLocationRequest,
} from '../../proto/gen/fleet/app/v1/locations';
import { readThrough, write } from '../backend/calls';
import type { BackendContext } from '../backend/context';
import { AppError } from '../backend/errors';
import type { DomainHandlers } from '../backend/router';
import { Serialized } from '../backend/serialized';
import type { CacheDb } from '../cache/cache';
import { cachedMetadataView, freshMetadata } from '../backend/metadata';
import { locationFromWire } from '../fleet/convert';
import { fetchLocation, listAllLocations, syncOrgFleet } from '../fleet/sync';
import { cachedLocation, cachedLocationsOf } from '../fleet/tree';
import type { FleetColumns, FleetPartColumns, FleetTree } from '../../common/locations';

type LocationsChannel =
  | 'locations.tree'
  | 'locations.treeColumns'
  | 'locations.treeParts'
  | 'locations.get'
  | 'locations.list'
  | 'locations.create'
  | 'locations.update'
  | 'locations.delete'
  | 'locations.share'
  | 'locations.unshare'
  | 'locations.metadata'
  | 'locations.setMetadata';

export function locationsHandlers(ctx: BackendContext): DomainHandlers<LocationsChannel> {
  const { connection, events } = ctx;
  /** Tell the renderer which trees a write changed (only the active profile's are on screen). */
  const changed = (cache: CacheDb, orgIds: readonly string[]) => {
    if (connection.cache === cache && orgIds.length > 0) events.emit('fleet.changed', { orgIds, all: false });
  };
  const now = () => new Date().toISOString();

  return {
    // Whole trees, serialized by the cache's tree reader and sent on as text (backend/serialized.ts).
    'locations.tree': async ({ orgId }) => new Serialized<FleetTree>(await connection.readCache('readTree', orgId)),
    'locations.treeColumns': async ({ orgId, parts }) => new Serialized<FleetColumns>(await connection.readCache('readTreeColumns', orgId, parts ?? true)),
    'locations.treeParts': async ({ orgId }) => new Serialized<FleetPartColumns>(await connection.readCache('readTreeParts', orgId)),

    'locations.get': ({ locationId }) =>
      readThrough(
        connection,
        'This location',
        async (client, cache, run) => {
          const location = await fetchLocation(client, locationId);
          changed(cache, await run('putLocation', null, location, now()));
          return location;
        },
        (cache) => cachedLocation(cache, locationId),
      ),

    'locations.list': ({ orgId }) =>
      readThrough(
        connection,
        "This organization's locations",
        async (client) => (await listAllLocations(client, orgId)).map(locationFromWire),
        (cache) => {
          const cached = cachedLocationsOf(cache, orgId);
          return cached.length > 0 ? cached : null;
        },
      ),

    'locations.create': ({ orgId, name, parentLocationId }) =>
      write(connection, 'create the location', async (client, cache, run) => {
        const r = await client.call('create the location', client.app.createLocation, CreateLocationRequest.fromPartial({ orgId, name, parentLocationId: parentLocationId ?? '' }));
        if (!r.location) throw new AppError('internal', 'The service answered CreateLocation without a location.');
        const location = locationFromWire(r.location);
        changed(cache, await run('putLocation', orgId, location, now()));
        return location;
      }),

    'locations.update': ({ locationId, name, parentLocationId, region }) =>
      write(connection, 'change the location', async (client, cache, run) => {
        const r = await client.call('change the location', client.app.updateLocation, UpdateLocationRequest.fromPartial({ locationId, name, parentLocationId, region }));
        if (!r.location) throw new AppError('internal', 'The service answered UpdateLocation without a location.');
        const location = locationFromWire(r.location);
        changed(cache, await run('putLocation', null, location, now()));
        return location;
      }),

    'locations.delete': ({ locationId }) =>
      write(connection, 'delete the location', async (client, cache, run) => {
        await client.call('delete the location', client.app.deleteLocation, DeleteLocationRequest.fromPartial({ locationId }));
        changed(cache, await run('removeLocation', locationId));
        return {};
      }),

    'locations.share': ({ locationId, orgId }) =>
      write(connection, 'share the location', async (client, cache, run) => {
        await client.call('share the location', client.app.shareLocation, ShareLocationRequest.fromPartial({ organizationId: orgId, locationId }));
        const location = await fetchLocation(client, locationId);
        const trees = await run('putLocation', null, location, now());
        // The partner's tree gains the location with everything under it: refetch that one organization.
        if ((await syncOrgFleet(client, cache, orgId, run)) !== null) trees.push(orgId);
        changed(cache, trees);
        return location;
      }),

    'locations.unshare': ({ locationId, orgId }) =>
      write(connection, 'stop sharing the location', async (client, cache, run) => {
        await client.call('stop sharing the location', client.app.unshareLocation, UnshareLocationRequest.fromPartial({ organizationId: orgId, locationId }));
        const location = await fetchLocation(client, locationId);
        const trees = await run('putLocation', null, location, now());
        if ((await syncOrgFleet(client, cache, orgId, run)) !== null) trees.push(orgId);
        changed(cache, trees);
        return location;
      }),

    'locations.metadata': ({ locationId }) =>
      readThrough(
        connection,
        "This location's metadata",
        async (client, _cache, run) => {
          const r = await client.call('read the metadata', client.app.getLocationMetadata, GetLocationMetadataRequest.fromPartial({ locationId }));
          return freshMetadata(run, 'location', locationId, r.metadata ?? {});
        },
        (cache) => cachedMetadataView(cache, 'location', locationId),
      ),

    'locations.setMetadata': ({ locationId, metadata }) =>
      write(connection, 'save the metadata', async (client, _cache, run) => {
        await client.call('save the metadata', client.app.updateLocationMetadata, UpdateLocationMetadataRequest.fromPartial({ locationId, metadata }));
        return freshMetadata(run, 'location', locationId, metadata);
      }),
  };
}
