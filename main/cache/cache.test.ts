import Database from 'better-sqlite3';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cacheMigrations } from './migrations/index';
import { markSynced, openCache, syncedAt } from './cache';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('openCache', () => {
  it('creates and migrates a new cache', () => {
    dir = mkdtempSync(join(tmpdir(), 'fleet-cache-'));
    const db = openCache(join(dir, 'p', 'cache.sqlite'));
    expect(db.pragma('user_version', { simple: true })).toBe(cacheMigrations.length);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });

  it.runIf(process.platform !== 'win32')('creates the database, -wal and -shm files readable by their owner only (0600), whatever the umask', () => {
    dir = mkdtempSync(join(tmpdir(), 'fleet-cache-'));
    const path = join(dir, 'p', 'cache.sqlite');
    const umask = process.umask(0o022);
    try {
      const db = openCache(path);
      markSynced(db, 'fleet', '2026-11-22T00:00:00.000Z');
      for (const suffix of ['', '-wal', '-shm']) {
        expect(existsSync(path + suffix), suffix).toBe(true);
        expect((statSync(path + suffix).mode & 0o777).toString(8), `cache.sqlite${suffix}`).toBe('600');
      }
      expect((statSync(join(dir, 'p')).mode & 0o777).toString(8)).toBe('700');
      db.close();
    } finally {
      process.umask(umask);
    }
  });

  it.runIf(process.platform !== 'win32')('narrows a cache an older build left readable by others', () => {
    dir = mkdtempSync(join(tmpdir(), 'fleet-cache-'));
    const path = join(dir, 'cache.sqlite');
    openCache(path).close();
    for (const suffix of ['', '-wal', '-shm']) if (existsSync(path + suffix)) chmodSync(path + suffix, 0o644);
    const db = openCache(path);
    markSynced(db, 'fleet', '2026-11-22T00:00:00.000Z');
    for (const suffix of ['', '-wal', '-shm']) {
      if (existsSync(path + suffix)) expect((statSync(path + suffix).mode & 0o777).toString(8), `cache.sqlite${suffix}`).toBe('600');
    }
    db.close();
  });

  it('sets a corrupt file aside and starts an empty cache', () => {
    dir = mkdtempSync(join(tmpdir(), 'fleet-cache-'));
    const path = join(dir, 'cache.sqlite');
    writeFileSync(path, 'this is not a database, but it is long enough to have a header '.repeat(20));
    const logs: string[] = [];
    const db = openCache(path, (m) => logs.push(m));
    expect(syncedAt(db, 'fleet')).toBeNull();
    markSynced(db, 'fleet', '2026-11-22T00:00:00.000Z');
    db.close();
    expect(readdirSync(dir).some((f) => f.startsWith('cache.sqlite.broken-'))).toBe(true);
    expect(logs.join('\n')).toMatch(/could not be opened .*moved it to/);
  });

  it('sets aside a cache written by a newer build instead of refusing to start', () => {
    dir = mkdtempSync(join(tmpdir(), 'fleet-cache-'));
    const path = join(dir, 'cache.sqlite');
    const newer = new Database(path);
    newer.pragma(`user_version = ${cacheMigrations.length + 5}`);
    newer.close();
    const db = openCache(path, () => undefined);
    expect(db.pragma('user_version', { simple: true })).toBe(cacheMigrations.length);
    db.close();
    expect(existsSync(path)).toBe(true);
    expect(readdirSync(dir).filter((f) => f.startsWith('cache.sqlite.broken-'))).toHaveLength(1);
  });
});
