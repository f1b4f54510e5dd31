/**
 * The per-profile SQLite cache: what the fleet looked like at the last sync, so it can be browsed
 * offline. One file per profile, under `<userData>/profiles/<id>/cache.sqlite`.
 *
 * It is only a cache: a file that cannot be opened or migrated (corrupt, or written by a newer build)
 * is set aside — renamed, not deleted, for a bug report — and a fresh one is synced in its place. The
 * app never refuses to start over it.
 */
import Database from 'better-sqlite3';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import { migrate } from '../../db/migrate';
import { cacheMigrations } from './migrations/index';

export type CacheDb = Database.Database;

/** The files SQLite keeps for a database in WAL mode. */
const SUFFIXES = ['', '-wal', '-shm'] as const;

/**
 * The cache holds the fleet's names, ids and (later) logs: readable by its owner only, like every
 * other file the app writes. SQLite gives the -wal and -shm files the mode of the database file, so
 * the database file is created 0600 before SQLite opens it; a cache an older build created 0644 is
 * narrowed on open.
 */
function restrictFiles(path: string): void {
  closeSync(openSync(path, 'a', 0o600));
  for (const suffix of SUFFIXES) {
    try {
      chmodSync(path + suffix, 0o600);
    } catch (e) {
      // Not there, or just removed: the last connection of a session closing meanwhile deletes its -wal
      // file (a switch back to a profile right after leaving it). Nothing to narrow, and no reason to
      // take the cache for broken.
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
}

function openAndMigrate(path: string): CacheDb {
  if (path !== ':memory:') restrictFiles(path);
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 2000');
    migrate(db, cacheMigrations);
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

export function openCache(path: string, log: (message: string) => void = () => undefined): CacheDb {
  if (path === ':memory:') return openAndMigrate(path);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    return openAndMigrate(path);
  } catch (e) {
    const aside = `${path}.broken-${Date.now()}`;
    for (const suffix of SUFFIXES) {
      if (existsSync(path + suffix)) renameSync(path + suffix, aside + suffix);
    }
    log(`cache: ${path} could not be opened (${e instanceof Error ? e.message : String(e)}); moved it to ${aside} and starting an empty cache`);
    return openAndMigrate(path);
  }
}

/** When `resource` last matched the service (ISO), or null if never. */
export function syncedAt(db: CacheDb, resource: string): string | null {
  const row = db.prepare('SELECT synced_at FROM sync_state WHERE resource = ?').get(resource) as { synced_at: string } | undefined;
  return row?.synced_at ?? null;
}

export function markSynced(db: CacheDb, resource: string, at: string): void {
  db.prepare('INSERT INTO sync_state (resource, synced_at) VALUES (?, ?) ON CONFLICT (resource) DO UPDATE SET synced_at = excluded.synced_at').run(resource, at);
}
