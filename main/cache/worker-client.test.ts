import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FleetSnapshot } from '../fleet/tree';
import { openCache } from './cache';
import { CacheWorker } from './worker-client';

const at = '2026-11-26T10:00:00.000Z';
const root = join(import.meta.dirname, '..', '..');

function snapshot(machines: number, tag: string): FleetSnapshot {
  return {
    locations: [{ id: 'l1', name: `Site ${tag}`, parentLocationId: '', region: '', ownerOrgId: 'a', sharedWithOrgIds: [], createdOn: null, robotCount: machines }],
    machines: Array.from({ length: machines }, (_, i) => ({
      id: `m${i}`,
      name: `${tag}-${i}`,
      locationId: 'l1',
      createdOn: null,
      parts: [0, 1, 2].map((p) => ({ id: `p${i}-${p}`, name: `${tag}-${i}-${p}`, mainPart: p === 0, fqdn: 'x', lastAccess: at, markedForRestart: false })),
    })),
  };
}

let dir: string;
let worker: CacheWorker | undefined;
afterEach(async () => {
  await worker?.close();
  worker = undefined;
  rmSync(dir, { recursive: true, force: true });
});

function start(): CacheWorker {
  dir = mkdtempSync(join(tmpdir(), 'fleet-cache-worker-'));
  const path = join(dir, 'cache.sqlite');
  openCache(path).close();
  return (worker = new CacheWorker(path, { entry: join(root, 'main', 'cache', 'worker.ts'), execArgv: ['--import', 'tsx'] }));
}

describe('the tree reader', () => {
  it('answers a tree read while the writer is still busy with a big write sent before it', async () => {
    const w = start();
    await w.run('replaceFleet', 'b', snapshot(2, 'small'), at);
    await w.run('readTreeColumns', 'b'); // both threads started
    const order: string[] = [];
    const write = w.run('replaceFleet', 'a', snapshot(5_000, 'big'), at).then(() => order.push('write'));
    const read = w.run('readTreeColumns', 'b').then((c) => order.push(`read ${c.machineNames.join(',')}`));
    await Promise.all([write, read]);
    expect(order).toEqual(['read small-0,small-1', 'write']);
  });

  it('reads the last committed tree while a streamed replacement is open, and the new one after it commits', async () => {
    const w = start();
    await w.run('replaceFleet', 'a', snapshot(2, 'old'), at);
    expect((await w.run('readTreeColumns', 'a')).machineNames).toEqual(['old-0', 'old-1']);
    await w.run('beginFleet', 'a');
    await w.run('fleetPage', 'a', snapshot(3, 'new'), at);
    // The kept answer is still the committed tree: nothing was committed since.
    expect((await w.run('readTreeColumns', 'a')).machineNames).toEqual(['old-0', 'old-1']);
    expect(await w.run('commitFleet', 'a', at)).toBe(true);
    expect((await w.run('readTreeColumns', 'a')).machineNames).toEqual(['new-0', 'new-1', 'new-2']);
    expect((await w.run('readTree', 'a')).machines.map((m) => m.name)).toEqual(['new-0', 'new-1', 'new-2']);
  });

  it('sees each small write of the writer (a kept tree is dropped by any commit)', async () => {
    const w = start();
    await w.run('replaceFleet', 'a', snapshot(1, 'x'), at);
    expect((await w.run('readTree', 'a')).machines.map((m) => m.name)).toEqual(['x-0']);
    await w.run('putMachine', { id: 'm9', name: 'x-9', locationId: 'l1', createdOn: null, parts: [] }, [], at);
    expect((await w.run('readTree', 'a')).machines.map((m) => m.name)).toEqual(['x-0', 'x-9']);
    await w.run('removeMachine', 'm9');
    expect((await w.run('readTreeColumns', 'a')).machineNames).toEqual(['x-0']);
  });
});
