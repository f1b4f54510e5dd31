// The fleet cache's guarantees: one organization's snapshot replaced whole or not at all — even when
// the worker doing it is killed midway — and part details kept across syncs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fleetSnapshot } from '../../test/helpers/fleet-snapshot';
import { openCache } from '../cache/cache';
import { fleetColumns, fleetTreeFromColumns, PART_RESTART, partsFromColumns, treePartColumns, type FleetColumns } from '../../common/locations';
import { cachedPart, putPartDetails, readTree, readTreeColumns, readTreeParts, replaceFleet, type FleetSnapshot } from './tree';
import { CacheWorker } from '../cache/worker-client';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { cacheWorkerEntry } from '../../test/helpers/entries';

const at = '2026-11-23T10:00:00.000Z';
const root = join(import.meta.dirname, '..', '..');

const snapshot = (machines: number, tag: string) => fleetSnapshot(machines, tag, at);

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('replaceFleet', () => {
  it('a snapshot that fails halfway leaves the previous one whole', () => {
    dir = mkdtempSync(join(tmpdir(), 'fleet-cache-'));
    const db = openCache(join(dir, 'cache.sqlite'));
    replaceFleet(db, 'a', snapshot(10, 'old'), at);
    const broken = snapshot(10, 'new');
    (broken.machines[7] as { name: unknown }).name = null;
    expect(() => replaceFleet(db, 'a', broken, at)).toThrow();
    const t = readTree(db, 'a');
    expect(t.machines.map((m) => m.name).sort()).toEqual(snapshot(10, 'old').machines.map((m) => m.name).sort());
    expect(t.locations[0]?.name).toBe('Site old');
    db.close();
  });

  it('keeps details read through GetRobotPart for parts that still exist', () => {
    dir = mkdtempSync(join(tmpdir(), 'fleet-cache-'));
    const db = openCache(join(dir, 'cache.sqlite'));
    replaceFleet(db, 'a', snapshot(2, 'one'), at);
    putPartDetails(
      db,
      { id: 'p0-0', name: 'one-0-0', machineId: 'm0', locationId: 'l1', mainPart: true, fqdn: 'x', localFqdn: 'local', lastAccess: at, createdOn: at, lastUpdated: at, markedForRestart: false, secretCount: 2 },
      at,
    );
    replaceFleet(db, 'a', snapshot(2, 'two'), at);
    expect(db.prepare("SELECT local_fqdn, secret_count FROM parts WHERE id = 'p0-0'").get()).toEqual({ local_fqdn: 'local', secret_count: 2 });
    db.close();
  });

  it('a process killed in the middle of a big replacement leaves the previous snapshot whole', async () => {
    dir = mkdtempSync(join(tmpdir(), 'fleet-cache-'));
    const path = join(dir, 'cache.sqlite');
    const db = openCache(path);
    replaceFleet(db, 'a', snapshot(100, 'old'), at);
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'test', 'helpers', 'cache-replace-child.ts'), path, '30000', 'new'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    const lines = createInterface({ input: child.stdout! });
    let committed = false;
    lines.on('line', (line) => {
      if (line === 'committed') committed = true;
    });
    await once(lines, 'line');
    // 90,000 rows take far longer than this to write.
    await new Promise((r) => setTimeout(r, 150));
    child.kill('SIGKILL');
    await once(child, 'exit');
    expect(committed).toBe(false);
    const t = readTree(db, 'a');
    expect(t.machines).toHaveLength(100);
    expect(new Set(t.machines.map((m) => m.name.split('-')[0]))).toEqual(new Set(['old']));
    expect(t.locations[0]?.name).toBe('Site old');
    db.close();
  });
});

describe('the tree in columns', () => {
  it('holds the same tree as the object form, and turns back into it', () => {
    dir = mkdtempSync(join(tmpdir(), 'fleet-cache-'));
    const db = openCache(join(dir, 'cache.sqlite'));
    const snap = snapshot(12, 'c');
    // A machine without parts, a shared location under another, a part marked for restart.
    const tree: FleetSnapshot = {
      locations: [...snap.locations, { id: 'l2', name: 'Annex', parentLocationId: 'l1', region: '', ownerOrgId: 'b', sharedWithOrgIds: ['a', 'c'], createdOn: null, robotCount: 1 }],
      machines: [
        ...snap.machines.map((m, i) => (i === 3 ? { ...m, parts: m.parts.map((p, j) => (j === 1 ? { ...p, markedForRestart: true, lastAccess: null } : p)) } : m)),
        { id: 'bare', name: 'bare', locationId: 'l2', createdOn: null, parts: [] },
      ],
    };
    replaceFleet(db, 'a', tree, at);
    const { stamp, ...columns } = readTreeColumns(db, 'a');
    const objects = readTree(db, 'a');
    expect(columns).toEqual(fleetColumns(objects));
    expect(fleetTreeFromColumns(columns)).toEqual(objects);
    expect(columns.partFlags.filter((f) => f & PART_RESTART)).toHaveLength(1);
    expect(columns.machinePartCounts[columns.machineIds.indexOf('bare')]).toBe(0);
    // Each machine's location travels as an index into the locations used, each named once.
    expect(new Set(columns.machineLocationKeys).size).toBe(columns.machineLocationKeys.length);
    expect(columns.machineLocationKeys.toSorted()).toEqual([...new Set(objects.machines.map((m) => m.locationId))].sort());
    expect(columns.machineLocationIndexes.map((i) => columns.machineLocationKeys[i])).toEqual(objects.machines.map((m) => m.locationId));
    // The head a cold start draws first: the same locations and machines, no part.
    const head = readTreeColumns(db, 'a', false);
    expect(head).toEqual({ ...fleetColumns({ ...objects, machines: objects.machines.map((m) => ({ ...m, parts: [] })) }), stamp });
    // Its parts alone, read later, complete it while its locations and machines are unchanged.
    const parts = readTreeParts(db, 'a');
    expect(parts).toEqual(treePartColumns(objects, stamp ?? 'none'));
    const rest = partsFromColumns(parts, head.machineIds.length);
    expect(fleetTreeFromColumns({ ...head, ...parts })).toEqual(objects);
    expect(typeof rest === 'string' ? rest : rest.map((p) => p.length)).toEqual(objects.machines.map((m) => m.parts.length));
    // A part's liveness leaves the stamp; a machine renamed moves it (the head is stale then).
    putPartDetails(db, { ...cachedPart(db, objects.machines.find((m) => m.parts.length > 0)!.parts[0]!.id)!, lastAccess: at }, at);
    expect(readTreeParts(db, 'a').stamp).toBe(stamp);
    db.prepare("UPDATE machines SET name = 'renamed' WHERE id = 'bare'").run();
    expect(readTreeParts(db, 'a').stamp).not.toBe(stamp);
    expect(readTreeColumns(db, 'a', false).stamp).toBe(readTreeParts(db, 'a').stamp);
    db.close();
  });

  it('names what is wrong with malformed columns instead of drawing them', () => {
    dir = mkdtempSync(join(tmpdir(), 'fleet-cache-'));
    const good = fleetColumns({ orgId: 'a', syncedAt: null, locations: [], machines: snapshot(2, 'm').machines.map((m) => ({ id: m.id, name: m.name, locationId: m.locationId, parts: m.parts })) });
    const broken = (patch: Partial<Record<keyof FleetColumns, unknown>>) => fleetTreeFromColumns({ ...good, ...patch } as FleetColumns);
    expect(typeof fleetTreeFromColumns(good)).toBe('object');
    expect(broken({ machineNames: ['only one'] })).toBe('the machine columns are malformed');
    expect(broken({ machinePartCounts: [3, 2] })).toBe('the part counts do not add up');
    for (const patch of [{ machineLocationIndexes: [0] }, { machineLocationIndexes: [0, 7] }, { machineLocationIndexes: [0, 0.5] }, { machineLocationIndexes: [0, -1] }, { machineLocationIndexes: ['0', 0] }, { machineLocationKeys: [1] }, { machineLocationKeys: null }]) {
      expect(broken(patch)).toBe('the machine locations are malformed');
    }
    expect(broken({ partFlags: good.partFlags.map(() => 'main') })).toBe('the part flags are malformed');
    expect(broken({ locationSharedWith: [[1]], locationIds: ['x'], locationNames: ['x'], locationParents: [''], locationOwners: ['a'] })).toBe('the location shares are malformed');
    expect(broken({ orgId: 7 })).toBe('the tree has no organization');
  });
});

describe('the cache worker', () => {
  it('runs jobs on its own connection, and a job that fails rejects without stopping the worker', async () => {
    dir = mkdtempSync(join(tmpdir(), 'fleet-cache-'));
    const path = join(dir, 'cache.sqlite');
    openCache(path).close();
    const worker = new CacheWorker(path, { entry: cacheWorkerEntry });
    await worker.run('replaceFleet', 'a', snapshot(3, 'w'), at);
    expect((await worker.run('readTree', 'a')).machines.map((m) => m.name)).toEqual(['w-0', 'w-1', 'w-2']);
    const broken = snapshot(1, 'x');
    (broken.machines[0] as { name: unknown }).name = null;
    await expect(worker.run('replaceFleet', 'a', broken, at)).rejects.toThrow(/NOT NULL/);
    expect((await worker.run('readTree', 'a')).machines).toHaveLength(3);
    // The head and its parts, on the tree reader: the same stamp, parts laid out over its machines.
    const head = await worker.run('readTreeColumns', 'a', false);
    const parts = await worker.run('readTreeParts', 'a');
    expect(parts.stamp).toBe(head.stamp);
    expect(fleetTreeFromColumns({ ...head, ...parts })).toEqual(await worker.run('readTree', 'a'));
    await worker.close();
    await expect(worker.run('readTree', 'a')).rejects.toThrow(/closed/);
  });
});
