import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fleetSnapshot } from '../../test/helpers/fleet-snapshot';
import { openCache } from './cache';
import { CacheWorker } from './worker-client';

const at = '2026-11-26T10:00:00.000Z';
const root = join(import.meta.dirname, '..', '..');

const snapshot = (machines: number, tag: string) => fleetSnapshot(machines, tag, at);

// One worker (its two threads) for every test, each on an organization of its own: starting threads through tsx is most of the cost.
let dir: string;
let w: CacheWorker;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fleet-cache-worker-'));
  const path = join(dir, 'cache.sqlite');
  openCache(path).close();
  w = new CacheWorker(path, { entry: join(root, 'main', 'cache', 'worker.ts'), execArgv: ['--import', 'tsx'] });
});
afterAll(async () => {
  await w.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the tree reader', () => {
  it('answers a tree read while the writer is still busy with a big write sent before it', async () => {
    await w.run('replaceFleet', 'b', snapshot(2, 'small'), at);
    await w.run('readTreeColumns', 'b'); // both threads started
    const order: string[] = [];
    const write = w.run('replaceFleet', 'a', snapshot(5_000, 'big'), at).then(() => order.push('write'));
    const read = w.run('readTreeColumns', 'b').then((c) => order.push(`read ${c.machineNames.join(',')}`));
    await Promise.all([write, read]);
    expect(order).toEqual(['read small-0,small-1', 'write']);
  });

  it('reads the last committed tree while a streamed replacement is open, and the new one after it commits', async () => {
    await w.run('replaceFleet', 'c', snapshot(2, 'old'), at);
    expect((await w.run('readTreeColumns', 'c')).machineNames).toEqual(['old-0', 'old-1']);
    await w.run('beginFleet', 'c');
    await w.run('fleetPage', 'c', snapshot(3, 'new'), at);
    // The kept answer is still the committed tree: nothing was committed since.
    expect((await w.run('readTreeColumns', 'c')).machineNames).toEqual(['old-0', 'old-1']);
    expect(await w.run('commitFleet', 'c', at)).toBe(true);
    expect((await w.run('readTreeColumns', 'c')).machineNames).toEqual(['new-0', 'new-1', 'new-2']);
    expect((await w.run('readTree', 'c')).machines.map((m) => m.name)).toEqual(['new-0', 'new-1', 'new-2']);
  });

  it('sees each small write of the writer (a kept tree is dropped by any commit)', async () => {
    await w.run('replaceFleet', 'd', snapshot(1, 'x'), at);
    expect((await w.run('readTree', 'd')).machines.map((m) => m.name)).toEqual(['x-0']);
    await w.run('putMachine', { id: 'm9', name: 'x-9', locationId: 'l1', createdOn: null, parts: [] }, [], at);
    expect((await w.run('readTree', 'd')).machines.map((m) => m.name)).toEqual(['x-0', 'x-9']);
    await w.run('removeMachine', 'm9');
    expect((await w.run('readTreeColumns', 'd')).machineNames).toEqual(['x-0']);
  });
});

describe('warm', () => {
  it('starts the tree reader with the cache when asked (the writer on its first job), reads through it, and closes an idle one', async () => {
    const path = join(dir, 'warm.sqlite');
    openCache(path).close();
    const cold = new CacheWorker(path, { entry: join(root, 'main', 'cache', 'worker.ts'), execArgv: ['--import', 'tsx'] });
    expect(cold.running).toEqual({ writer: false, reader: false });
    await cold.close();
    const warm = new CacheWorker(path, { entry: join(root, 'main', 'cache', 'worker.ts'), execArgv: ['--import', 'tsx'], warm: true });
    expect(warm.running).toEqual({ writer: false, reader: true });
    await warm.run('replaceFleet', 'w', snapshot(2, 'warm'), at);
    expect((await warm.run('readTreeColumns', 'w')).machineNames).toEqual(['warm-0', 'warm-1']);
    expect(warm.running).toEqual({ writer: true, reader: true });
    await warm.close();
    // Closed before its thread ever ran a job: it stops all the same.
    const idle = new CacheWorker(path, { entry: join(root, 'main', 'cache', 'worker.ts'), execArgv: ['--import', 'tsx'], warm: true });
    await idle.close();
    expect(idle.running).toEqual({ writer: false, reader: false });
  }, 30_000);
});
