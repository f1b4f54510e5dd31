/**
 * The per-profile SQLite cache: what the fleet looked like at the last sync, so it can be browsed
 * offline. One file per profile, under `<userData>/profiles/<id>/cache.sqlite`.
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { migrate } from '../../service/db/migrate';
import { cacheMigrations } from './migrations/index';

export type CacheDb = Database.Database;

export function openCache(path: string): CacheDb {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 2000');
  migrate(db, cacheMigrations);
  return db;
}

/** When `resource` last matched the service (ISO), or null if never. */
export function syncedAt(db: CacheDb, resource: string): string | null {
  const row = db.prepare('SELECT synced_at FROM sync_state WHERE resource = ?').get(resource) as { synced_at: string } | undefined;
  return row?.synced_at ?? null;
}

export function markSynced(db: CacheDb, resource: string, at: string): void {
  db.prepare('INSERT INTO sync_state (resource, synced_at) VALUES (?, ?) ON CONFLICT (resource) DO UPDATE SET synced_at = excluded.synced_at').run(resource, at);
}
