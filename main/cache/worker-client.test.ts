import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fleetSnapshot } from '../../test/helpers/fleet-snapshot';
import { openCache } from './cache';
import { CacheWorker } from './worker-client';
import { cacheWorkerEntry } from '../../test/helpers/entries';

const at = '2026-11-26T10:00:00.000Z';

const snapshot = (machines: number, tag: string) => fleetSnapshot(machines, tag, at);

// One worker (its two threads) for every test, each on an organization of its own: starting threads is most of the cost.
let dir: string;
let w: CacheWorker;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fleet-cache-worker-'));
  const path = join(dir, 'cache.sqlite');
  openCache(path).close();
  w = new CacheWorker(path, { entry: cacheWorkerEntry });
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

/**
 * A cache file with organizations o1 and o2 (three machines each, what the reader reads ahead) and
 * the tree of an organization it does not list, "big" (5,000 machines: a long read to keep it busy).
 */
async function aheadFile(name: string): Promise<string> {
  const path = join(dir, name);
  openCache(path).close();
  const writer = new CacheWorker(path, { entry: cacheWorkerEntry });
  const org = (id: string, orgName: string) => ({ id, name: orgName, createdOn: null, publicNamespace: '', region: '', cid: '', defaultFragments: [] });
  await writer.run('replaceOrgs', [org('o1', 'One'), org('o2', 'Two')], at);
  for (const id of ['o1', 'o2']) await writer.run('replaceFleet', id, snapshot(3, id), at);
  await writer.run('replaceFleet', 'big', snapshot(5_000, 'big'), at);
  await writer.close();
  return path;
}

describe('warm', () => {
  it('starts the tree reader with the cache when asked (the writer on its first job), reads through it, and closes an idle one', async () => {
    const path = join(dir, 'warm.sqlite');
    openCache(path).close();
    const cold = new CacheWorker(path, { entry: cacheWorkerEntry });
    expect(cold.running).toEqual({ writer: false, reader: false });
    await cold.close();
    const warm = new CacheWorker(path, { entry: cacheWorkerEntry, warm: true });
    expect(warm.running).toEqual({ writer: false, reader: true });
    await warm.run('replaceFleet', 'w', snapshot(2, 'warm'), at);
    expect((await warm.run('readTreeColumns', 'w')).machineNames).toEqual(['warm-0', 'warm-1']);
    expect(warm.running).toEqual({ writer: true, reader: true });
    await warm.close();
    // Closed before its thread ever ran a job: it stops all the same.
    const idle = new CacheWorker(path, { entry: cacheWorkerEntry, warm: true });
    await idle.close();
    expect(idle.running).toEqual({ writer: false, reader: false });
  }, 30_000);

  it('reads ahead every organization’s head and parts as a page asks for them, answers those asks from them until the file changes, and answers heads before parts', async () => {
    const path = await aheadFile('ahead.sqlite');

    const warm = new CacheWorker(path, { entry: cacheWorkerEntry, warm: true, aheadHoldMs: 0 });
    try {
      // Both heads, then both organizations' parts, read before anything asked (no hold).
      await expect.poll(() => warm.readerStats(), { timeout: 20_000 }).toEqual({ read: 4, kept: 0, ahead: 4 });
      // The writer thread's start (on a first job, here one that only reads) commits nothing: what was read ahead stays.
      await warm.run('logsHasView', 'no-such-view');
      // Asked as a page asks (each organization's head and parts at once), behind a long read: the
      // requests arrive in one batch or a few, and among those waiting the heads go first, so no
      // parts are answered before both heads (without the long read in front, a first request
      // delivered alone would be answered alone, parts or not).
      const order: string[] = [];
      const busy = warm.run('readTree', 'big').then(() => order.push('busy'));
      const asks = [
        warm.run('readTreeParts', 'o1').then(() => order.push('parts o1')),
        warm.run('readTreeColumns', 'o1', false).then(() => order.push('head o1')),
        warm.run('readTreeParts', 'o2').then(() => order.push('parts o2')),
        warm.run('readTreeColumns', 'o2', false).then(() => order.push('head o2')),
      ];
      await Promise.all([busy, ...asks]);
      expect(order.filter((o) => o !== 'busy')).toEqual(['head o1', 'head o2', 'parts o1', 'parts o2']);
      // Only the long read was read for an ask; the four asks were answered from what was read ahead.
      expect(await warm.readerStats()).toEqual({ read: 5, kept: 4, ahead: 4 });
      const head = await warm.run('readTreeColumns', 'o2', false);
      expect(head.machineNames).toEqual(['o2-0', 'o2-1', 'o2-2']);
      expect((await warm.run('readTreeParts', 'o2')).stamp).toBe(head.stamp);
      // A write drops what was kept.
      await warm.run('removeMachine', head.machineIds[0]!);
      expect((await warm.run('readTreeColumns', 'o2', false)).machineNames).toEqual(['o2-1', 'o2-2']);
      expect((await warm.run('readTreeParts', 'o2')).machinePartCounts).toHaveLength(2);
      expect(await warm.readerStats()).toEqual({ read: 7, kept: 6, ahead: 4 });
      // As the app asks (to send on as it is): the JSON text of the same value, from what was kept.
      const text = await warm.read('readTreeColumns', 'o2', false);
      expect(JSON.parse(text)).toEqual(await warm.run('readTreeColumns', 'o2', false));
      expect(await warm.readerStats()).toEqual({ read: 7, kept: 8, ahead: 4 });
      await expect(warm.read('removeMachine', 'x')).rejects.toThrow('removeMachine is not a read the tree reader runs');
    } finally {
      await warm.close();
    }
  }, 30_000);

  it('hands main each answer it read ahead, as it reads it: taken once, while the reader is busy with another read; dropped on request, for good', async () => {
    const path = await aheadFile('handed.sqlite');
    const warm = new CacheWorker(path, { entry: cacheWorkerEntry, warm: true, aheadHoldMs: 0 });
    try {
      // The reader's stats answer comes after the answers it handed over (one port, in order).
      await expect.poll(() => warm.readerStats(), { timeout: 20_000 }).toMatchObject({ ahead: 4 });
      const busy = warm.read('readTree', 'big');
      // Taken here and now, not in the reader's turn (it is reading 5,000 machines).
      const head = warm.takeAhead('readTreeColumns', 'o1', false);
      const parts = warm.takeAhead('readTreeParts', 'o1');
      expect(head).toBeTypeOf('string');
      expect(parts).toBeTypeOf('string');
      await busy;
      expect(JSON.parse(head!)).toEqual(await warm.run('readTreeColumns', 'o1', false));
      expect(JSON.parse(parts!)).toEqual(await warm.run('readTreeParts', 'o1'));
      // Once: asked again, the reader answers (from what it keeps).
      expect(warm.takeAhead('readTreeColumns', 'o1', false)).toBeUndefined();
      // Neither a read the reader does not read ahead, nor a job that is no read.
      expect(warm.takeAhead('readTree', 'o1')).toBeUndefined();
      expect(warm.takeAhead('removeMachine', 'x')).toBeUndefined();
      warm.dropAhead();
      expect(warm.takeAhead('readTreeColumns', 'o2', false)).toBeUndefined();
    } finally {
      await warm.close();
    }
  }, 30_000);

  it('reads the heads ahead at once and holds the parts until a page asks for a tree (main takes a head, or asks the reader), or until the hold is up', async () => {
    const path = await aheadFile('held.sqlite');
    const open = (aheadHoldMs: number) => new CacheWorker(path, { entry: cacheWorkerEntry, warm: true, aheadHoldMs });
    // Its boot is over once a page asks: main took a head read ahead.
    const taken = open(60_000);
    try {
      await expect.poll(() => taken.readerStats(), { timeout: 20_000 }).toMatchObject({ ahead: 2 });
      // Asking how it did is no page asking: the parts stay unread.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await taken.readerStats()).toEqual({ read: 2, kept: 0, ahead: 2 });
      expect(taken.takeAhead('readTreeColumns', 'o1', false)).toBeTypeOf('string');
      await expect.poll(() => taken.readerStats(), { timeout: 20_000 }).toEqual({ read: 4, kept: 0, ahead: 4 });
      expect(taken.takeAhead('readTreeParts', 'o1')).toBeTypeOf('string');
    } finally {
      await taken.close();
    }
    // A tree asked of the reader itself: o1's parts, before the read-ahead reached them. They are
    // read for the ask and not again ahead, and main is handed no copy of them to keep.
    const asked = open(60_000);
    try {
      await expect.poll(() => asked.readerStats(), { timeout: 20_000 }).toMatchObject({ ahead: 2 });
      expect((await asked.run('readTreeParts', 'o1')).machinePartCounts).toHaveLength(3);
      await expect.poll(() => asked.readerStats(), { timeout: 20_000 }).toEqual({ read: 4, kept: 0, ahead: 3 });
      expect(asked.takeAhead('readTreeParts', 'o1')).toBeUndefined();
      expect(asked.takeAhead('readTreeParts', 'o2')).toBeTypeOf('string');
    } finally {
      await asked.close();
    }
    // No page asks: read all the same once the hold is up.
    const unasked = open(500);
    try {
      await expect.poll(() => unasked.readerStats(), { timeout: 20_000 }).toEqual({ read: 4, kept: 0, ahead: 4 });
    } finally {
      await unasked.close();
    }
  }, 60_000);

  it('forgets what it read ahead when nobody asked for it in time', async () => {
    const path = await aheadFile('unasked.sqlite');
    const warm = new CacheWorker(path, { entry: cacheWorkerEntry, warm: true, aheadKeptMs: 1_500, aheadHoldMs: 0 });
    try {
      await expect.poll(() => warm.readerStats(), { timeout: 20_000 }).toMatchObject({ ahead: 4 });
      expect(warm.takeAhead('readTreeColumns', 'o1', false)).toBeTypeOf('string');
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(warm.takeAhead('readTreeColumns', 'o2', false)).toBeUndefined();
      expect(warm.takeAhead('readTreeParts', 'o2')).toBeUndefined();
    } finally {
      await warm.close();
    }
  }, 30_000);
});
