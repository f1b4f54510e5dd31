/**
 * A launch's tree reader reads every organization's head and parts ahead and hands them to main,
 * which answers the page's asks with them at once (connection.ts Session.read). They stand for the
 * cache file as it was read: after any write — by the writer thread or on main's own connection —
 * an ask is answered from the file as it is now, never from them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FleetColumns } from '../../common/fleet-columns';
import { fleetSnapshot } from '../../test/helpers/fleet-snapshot';
import { EventBus } from '../backend/events';
import { openCache } from '../cache/cache';
import { CacheWorker } from '../cache/worker-client';
import { Connection } from './connection';
import { cacheWorkerEntry } from '../../test/helpers/entries';

const at = '2026-11-26T10:00:00.000Z';
// No hold: these tests take what was read ahead, parts included, before any ask.
const cacheWorker = { entry: cacheWorkerEntry, warm: true, aheadHoldMs: 0 };
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fleet-read-ahead-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

/** A cache file with two organizations of three machines each. */
async function cacheFile(name: string): Promise<string> {
  const path = join(dir, name);
  openCache(path).close();
  const writer = new CacheWorker(path, { entry: cacheWorker.entry });
  const org = (id: string) => ({ id, name: id, createdOn: null, publicNamespace: '', region: '', cid: '', defaultFragments: [] });
  await writer.run('replaceOrgs', [org('o1'), org('o2')], at);
  for (const id of ['o1', 'o2']) await writer.run('replaceFleet', id, fleetSnapshot(3, id, at), at);
  await writer.close();
  return path;
}

/**
 * A launch's connection on `path`, once main holds everything its reader read ahead (two heads, two
 * parts): the reader's stats answer comes on the port its read-aheads came on, after them. And what
 * main found read ahead for each ask, from here on.
 */
async function launched(path: string): Promise<{ connection: Connection; found: (string | undefined)[] }> {
  const found: (string | undefined)[] = [];
  const take = CacheWorker.prototype.takeAhead;
  vi.spyOn(CacheWorker.prototype, 'takeAhead').mockImplementation(function (this: CacheWorker, ...args) {
    const text = take.apply(this, args);
    found.push(text);
    return text;
  });
  const connection = new Connection({ events: new EventBus(), resources: [], log: () => undefined, cacheWorker });
  connection.open('p', path);
  await expect.poll(async () => (await connection.readerStats())?.ahead, { timeout: 20_000 }).toBe(4);
  return { connection, found };
}

const names = (text: string) => (JSON.parse(text) as FleetColumns).machineNames;

describe('answers read ahead', () => {
  it('answer the asks of a launch, each once, as the file is', async () => {
    const { connection, found } = await launched(await cacheFile('unchanged.sqlite'));
    try {
      expect(names(await connection.readCache('readTreeColumns', 'o1', false))).toEqual(['o1-0', 'o1-1', 'o1-2']);
      expect(found).toHaveLength(1);
      expect(found[0]).toBeTypeOf('string');
      // Asked again: the reader answers (from what it keeps), the same.
      expect(names(await connection.readCache('readTreeColumns', 'o1', false))).toEqual(['o1-0', 'o1-1', 'o1-2']);
      expect(found[1]).toBeUndefined();
      expect(await connection.readerStats()).toMatchObject({ read: 4, kept: 1, ahead: 4 });
    } finally {
      await connection.close();
    }
  }, 30_000);

  it('are not used after the writer thread wrote', async () => {
    const { connection, found } = await launched(await cacheFile('writer.sqlite'));
    try {
      await connection.runCache('removeMachine', 'm1');
      expect(names(await connection.readCache('readTreeColumns', 'o1', false))).toEqual(['o1-0', 'o1-2']);
      // It was there, and not used; nor is anything else read ahead (all dropped at once).
      expect(found[0]).toBeTypeOf('string');
      expect((JSON.parse(await connection.readCache('readTreeParts', 'o1')) as FleetColumns).machinePartCounts).toEqual([3, 3]);
      expect(found[1]).toBeUndefined();
    } finally {
      await connection.close();
    }
  }, 30_000);

  it('are not used after a write on main’s own connection', async () => {
    const { connection, found } = await launched(await cacheFile('main.sqlite'));
    try {
      connection.cache.prepare("UPDATE machines SET name = 'renamed' WHERE org_id = 'o1' AND id = 'm1'").run();
      expect(names(await connection.readCache('readTreeColumns', 'o1', false))).toEqual(['o1-0', 'o1-2', 'renamed']);
      expect(found[0]).toBeTypeOf('string');
    } finally {
      await connection.close();
    }
  }, 30_000);
});
