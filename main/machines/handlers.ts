import {
  DeleteRobotPartRequest,
  DeleteRobotRequest,
  GetRobotMetadataRequest,
  GetRobotPartByNameAndLocationRequest,
  GetRobotPartMetadataRequest,
  GetRobotPartRequest,
  GetRobotPartsRequest,
  GetRobotRequest,
  ListRobotsRequest,
  MarkPartAsMainRequest,
  MarkPartForRestartRequest,
  NewRobotPartRequest,
  NewRobotRequest,
  UpdateRobotMetadataRequest,
  UpdateRobotPartMetadataRequest,
  UpdateRobotRequest,
} from '../../proto/gen/fleet/app/v1/machines';
import type { Machine, Part, PartDetails } from '../../common/machines';
import { readThrough, write } from '../backend/calls';
import type { BackendContext } from '../backend/context';
import { AppError } from '../backend/errors';
import type { DomainHandlers } from '../backend/router';
import type { CacheDb } from '../cache/cache';
import { cachedMetadataView, freshMetadata } from '../backend/metadata';
import { allPages, fetchLocation, listAllSummaries } from '../fleet/sync';
import { cachedMachine, cachedMachinesIn, cachedPart, cachedParts } from '../fleet/tree';
import type { CacheRunner } from '../connection/connection';
import type { FleetClient } from '../grpc/client';
import { machineFromWire, partDetailsFromWire, partFromWire, summaryFromWire, cachedPartFromPart } from './convert';
import type { LivenessWatcher } from './liveness';

type MachinesChannel =
  | 'machines.create'
  | 'machines.get'
  | 'machines.list'
  | 'machines.update'
  | 'machines.delete'
  | 'machines.parts'
  | 'machines.part'
  | 'machines.partByName'
  | 'machines.createPart'
  | 'machines.deletePart'
  | 'machines.markMain'
  | 'machines.markRestart'
  | 'machines.summaries'
  | 'machines.watch'
  | 'machines.metadata'
  | 'machines.setMetadata'
  | 'machines.partMetadata'
  | 'machines.setPartMetadata';

async function fetchMachine(client: FleetClient, machineId: string): Promise<Machine> {
  const r = await client.call('read the machine', client.app.getRobot, GetRobotRequest.fromPartial({ robotId: machineId }));
  if (!r.robot) throw new AppError('internal', 'The service answered GetRobot without a machine.');
  return machineFromWire(r.robot);
}

async function fetchParts(client: FleetClient, machineId: string): Promise<Part[]> {
  const r = await client.call("read the machine's parts", client.app.getRobotParts, GetRobotPartsRequest.fromPartial({ robotId: machineId }));
  return r.parts.map(partFromWire);
}

async function fetchPart(client: FleetClient, partId: string): Promise<PartDetails> {
  const r = await client.call('read the part', client.app.getRobotPart, GetRobotPartRequest.fromPartial({ robotPartId: partId }));
  if (!r.part) throw new AppError('internal', 'The service answered GetRobotPart without a part.');
  return partDetailsFromWire(r.part, r.configJson);
}

export function machinesHandlers(ctx: BackendContext, liveness: LivenessWatcher): DomainHandlers<MachinesChannel> {
  const { connection, events } = ctx;
  const now = () => new Date().toISOString();
  const changed = (cache: CacheDb, orgIds: readonly string[]) => {
    if (connection.cache === cache && orgIds.length > 0) events.emit('fleet.changed', { orgIds: [...new Set(orgIds)], all: false });
  };

  /**
   * Bring one machine (with its parts and the counts of the locations it touched) into the cache
   * after a write: a few small calls, never a resync of the whole organization.
   */
  async function refreshMachine(client: FleetClient, cache: CacheDb, run: CacheRunner, machineId: string, alsoLocations: readonly string[] = []): Promise<{ machine: Machine; parts: Part[] }> {
    const [machine, parts] = await Promise.all([fetchMachine(client, machineId), fetchParts(client, machineId)]);
    const at = now();
    const trees = await run('putMachine', { id: machine.id, name: machine.name, locationId: machine.locationId, createdOn: machine.createdOn, parts: parts.map(cachedPartFromPart) }, parts, at);
    for (const locationId of new Set([machine.locationId, ...alsoLocations])) trees.push(...(await run('putLocation', null, await fetchLocation(client, locationId), at)));
    changed(cache, trees);
    return { machine, parts };
  }

  return {
    'machines.create': ({ locationId, name }) =>
      write(connection, 'create the machine', async (client, cache, run) => {
        const { id } = await client.call('create the machine', client.app.newRobot, NewRobotRequest.fromPartial({ name, locationId }));
        return (await refreshMachine(client, cache, run, id)).machine;
      }),

    'machines.get': ({ machineId }) =>
      readThrough(
        connection,
        'This machine',
        (client) => fetchMachine(client, machineId),
        (cache) => cachedMachine(cache, machineId),
      ),

    'machines.list': ({ locationId }) =>
      readThrough(
        connection,
        "This location's machines",
        async (client) =>
          (
            await allPages(async (pageToken) => {
              const r = await client.call('list machines', client.app.listRobots, ListRobotsRequest.fromPartial({ locationId, pageSize: 1000, pageToken }));
              return { items: r.robots, next: r.nextPageToken };
            })
          ).map(machineFromWire),
        (cache) => cachedMachinesIn(cache, locationId),
      ),

    'machines.update': ({ machineId, name, locationId }) =>
      write(connection, 'change the machine', async (client, cache, run) => {
        const before = cachedMachine(cache, machineId)?.locationId;
        await client.call('change the machine', client.app.updateRobot, UpdateRobotRequest.fromPartial({ robotId: machineId, name, locationId }));
        return (await refreshMachine(client, cache, run, machineId, before && before !== locationId ? [before] : [])).machine;
      }),

    'machines.delete': ({ machineId }) =>
      write(connection, 'delete the machine', async (client, cache, run) => {
        const locationId = cachedMachine(cache, machineId)?.locationId ?? (await fetchMachine(client, machineId)).locationId;
        await client.call('delete the machine', client.app.deleteRobot, DeleteRobotRequest.fromPartial({ robotId: machineId }));
        const trees = await run('removeMachine', machineId);
        trees.push(...(await run('putLocation', null, await fetchLocation(client, locationId), now())));
        changed(cache, trees);
        return {};
      }),

    'machines.parts': ({ machineId }) =>
      readThrough(
        connection,
        "This machine's parts",
        async (client, _cache, run) => {
          const parts = await fetchParts(client, machineId);
          await run('putPartDetails', parts, now());
          return parts;
        },
        (cache) => {
          const parts = cachedParts(cache, machineId);
          return parts.length > 0 ? parts : null;
        },
      ),

    'machines.part': ({ partId }) =>
      readThrough(
        connection,
        'This part',
        async (client, _cache, run) => {
          const part = await fetchPart(client, partId);
          await run('putPartDetails', [part], now());
          return part;
        },
        (cache) => {
          const part = cachedPart(cache, partId);
          return part ? { ...part, config: null, configJson: null, fromCache: true } : null;
        },
      ),

    'machines.partByName': ({ name, locationId }) =>
      write(connection, 'look the part up', async (client) => {
        const r = await client.call('find the part', client.app.getRobotPartByNameAndLocation, GetRobotPartByNameAndLocationRequest.fromPartial({ name, locationId }));
        if (!r.part) throw new AppError('internal', 'The service answered GetRobotPartByNameAndLocation without a part.');
        return partFromWire(r.part);
      }),

    'machines.createPart': ({ machineId, name }) =>
      write(connection, 'add the part', async (client, cache, run) => {
        const { partId } = await client.call('add the part', client.app.newRobotPart, NewRobotPartRequest.fromPartial({ robotId: machineId, partName: name }));
        const { parts } = await refreshMachine(client, cache, run, machineId);
        const part = parts.find((p) => p.id === partId);
        if (!part) throw new AppError('internal', 'The new part is missing from its machine.');
        return part;
      }),

    'machines.deletePart': ({ partId }) =>
      write(connection, 'delete the part', async (client, cache, run) => {
        const machineId = cachedPart(cache, partId)?.machineId ?? (await fetchPart(client, partId)).machineId;
        await client.call('delete the part', client.app.deleteRobotPart, DeleteRobotPartRequest.fromPartial({ robotPartId: partId }));
        await refreshMachine(client, cache, run, machineId);
        return {};
      }),

    'machines.markMain': ({ partId }) =>
      write(connection, 'make the part main', async (client, cache, run) => {
        const machineId = cachedPart(cache, partId)?.machineId ?? (await fetchPart(client, partId)).machineId;
        await client.call('make the part main', client.app.markPartAsMain, MarkPartAsMainRequest.fromPartial({ robotPartId: partId }));
        return (await refreshMachine(client, cache, run, machineId)).parts;
      }),

    'machines.markRestart': ({ partId }) =>
      write(connection, 'mark the part for restart', async (client, cache, run) => {
        await client.call('mark the part for restart', client.app.markPartForRestart, MarkPartForRestartRequest.fromPartial({ robotPartId: partId }));
        const part = await fetchPart(client, partId);
        await run('putPartDetails', [part], now());
        // The tree shows the flag from the liveness report: tell it this part's changed.
        if (connection.cache === cache) events.emit('machines.liveness', { at: now(), parts: { [part.id]: { lastAccess: part.lastAccess, markedForRestart: part.markedForRestart } } });
        return part;
      }),

    'machines.summaries': ({ orgId, locationIds, fragmentIds, limit }) =>
      write(connection, 'list the machines', async (client) => (await listAllSummaries(client, { orgId, locationIds, fragmentIds, limit })).map(summaryFromWire)),

    'machines.watch': ({ machineIds }) => liveness.watch(machineIds),

    'machines.metadata': ({ machineId }) =>
      readThrough(
        connection,
        "This machine's metadata",
        async (client, _cache, run) => {
          const r = await client.call('read the metadata', client.app.getRobotMetadata, GetRobotMetadataRequest.fromPartial({ robotId: machineId }));
          return freshMetadata(run, 'machine', machineId, r.metadata ?? {});
        },
        (cache) => cachedMetadataView(cache, 'machine', machineId),
      ),

    'machines.setMetadata': ({ machineId, metadata }) =>
      write(connection, 'save the metadata', async (client, _cache, run) => {
        await client.call('save the metadata', client.app.updateRobotMetadata, UpdateRobotMetadataRequest.fromPartial({ robotId: machineId, metadata }));
        return freshMetadata(run, 'machine', machineId, metadata);
      }),

    'machines.partMetadata': ({ partId }) =>
      readThrough(
        connection,
        "This part's metadata",
        async (client, _cache, run) => {
          const r = await client.call('read the metadata', client.app.getRobotPartMetadata, GetRobotPartMetadataRequest.fromPartial({ robotPartId: partId }));
          return freshMetadata(run, 'part', partId, r.metadata ?? {});
        },
        (cache) => cachedMetadataView(cache, 'part', partId),
      ),

    'machines.setPartMetadata': ({ partId, metadata }) =>
      write(connection, 'save the metadata', async (client, _cache, run) => {
        await client.call('save the metadata', client.app.updateRobotPartMetadata, UpdateRobotPartMetadataRequest.fromPartial({ robotPartId: partId, metadata }));
        return freshMetadata(run, 'part', partId, metadata);
      }),
  };
}
