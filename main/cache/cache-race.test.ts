/**
 * Opening a cache while another session of the same profile closes: its last connection deletes the
 * -wal file, which may happen between our look and our chmod. fs is mocked only to place that
 * deletion exactly there; SQLite and the files are real.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as Fs from 'node:fs';
import { afterEach, expect, it, vi } from 'vitest';

const race = vi.hoisted(() => ({ walGone: false }));
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof Fs>();
  return {
    ...fs,
    chmodSync: (path: string, mode: number) => {
      if (race.walGone && String(path).endsWith('-wal')) {
        race.walGone = false;
        throw Object.assign(new Error(`ENOENT: no such file or directory, chmod '${String(path)}'`), { code: 'ENOENT' });
      }
      fs.chmodSync(path, mode);
    },
  };
});

const { markSynced, openCache, syncedAt } = await import('./cache');

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('a -wal file deleted while the cache opens (another session closing) is no reason to set the cache aside', () => {
  dir = mkdtempSync(join(tmpdir(), 'fleet-cache-race-'));
  const path = join(dir, 'cache.sqlite');
  const first = openCache(path);
  markSynced(first, 'fleet', '2026-11-22T00:00:00.000Z');
  race.walGone = true;
  const logs: string[] = [];
  const second = openCache(path, (m) => logs.push(m));
  expect(race.walGone).toBe(false); // the race was played
  expect(syncedAt(second, 'fleet')).toBe('2026-11-22T00:00:00.000Z');
  expect(logs).toEqual([]);
  expect(readdirSync(dir).filter((f) => f.includes('broken'))).toEqual([]);
  second.close();
  first.close();
});
