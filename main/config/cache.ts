/**
 * The config domain's tables of a profile's cache: part configs as last read (migration 11). Writes
 * run as cache jobs (jobs.ts); reads are of one part and stay on the main thread.
 */
import type { IsoTime } from '../../common/schemas';
import type { CacheDb } from '../cache/cache';

/** A part's config as the cache keeps it. */
export interface CachedPartConfig {
  readonly partId: string;
  readonly machineId: string;
  readonly name: string;
  readonly configJson: string;
  readonly lastUpdated: IsoTime;
  readonly syncedAt: IsoTime;
}

interface PartConfigRow {
  part_id: string;
  machine_id: string;
  name: string;
  config_json: string;
  last_updated: string;
  synced_at: string;
}

/**
 * Keep a part's config as read or saved. An answer older than the cached one (a read that left
 * before a save and came back after it) does not replace it: `last_updated` only grows at the
 * service, and ISO times of one format compare as strings.
 */
export function putPartConfig(db: CacheDb, config: CachedPartConfig): void {
  db.prepare(
    `INSERT INTO part_configs (part_id, machine_id, name, config_json, last_updated, synced_at) VALUES (@partId, @machineId, @name, @configJson, @lastUpdated, @syncedAt)
     ON CONFLICT (part_id) DO UPDATE SET machine_id = excluded.machine_id, name = excluded.name, config_json = excluded.config_json,
       last_updated = excluded.last_updated, synced_at = excluded.synced_at
     WHERE excluded.last_updated >= part_configs.last_updated`,
  ).run(config);
}

export function cachedPartConfig(db: CacheDb, partId: string): CachedPartConfig | null {
  const row = db.prepare('SELECT * FROM part_configs WHERE part_id = ?').get(partId) as PartConfigRow | undefined;
  return row
    ? { partId: row.part_id, machineId: row.machine_id, name: row.name, configJson: row.config_json, lastUpdated: row.last_updated, syncedAt: row.synced_at }
    : null;
}

/** Forget what is cached of a part the service no longer has. */
export function forgetPart(db: CacheDb, partId: string): void {
  db.prepare('DELETE FROM part_configs WHERE part_id = ?').run(partId);
}
