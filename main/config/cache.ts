/**
 * The config domain's tables of a profile's cache: part configs as last read (migration 11), the
 * pages of part histories read (migration 12), the fragments each machine resolves with
 * (migration 14), and drafts of edits not saved yet (migration 15). Writes run as cache jobs
 * (jobs.ts); reads are of one part or machine (or the drafts) and stay on the main thread.
 */
import type { ConfigDraft, MachineFragment, PartHistoryEntry } from '../../common/config';
import type { IsoTime } from '../../common/schemas';
import { markSynced, syncedAt, type CacheDb } from '../cache/cache';
import { draftTable } from '../cache/drafts';

/** History entries kept per part: the newest this many (10 pages of the default size) read offline; older ones only online. */
export const MAX_CACHED_HISTORY = 1000;

/** Drafts kept at most (the kernel's bound, the same for every table of drafts). */
export { MAX_DRAFTS } from '../cache/drafts';

/** The sync_state key of a part's history (when its first page was last read). */
const historyKey = (partId: string) => `part-history:${partId}`;

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

/** Forget what is cached of a part the service no longer has: its config and its history. */
export function forgetPart(db: CacheDb, partId: string): void {
  db.transaction(() => {
    db.prepare('DELETE FROM part_configs WHERE part_id = ?').run(partId);
    db.prepare('DELETE FROM part_history WHERE part_id = ?').run(partId);
    db.prepare('DELETE FROM sync_state WHERE resource = ?').run(historyKey(partId));
  })();
}

/**
 * Keep a page of a part's history read from the service, starting `offset` entries from the newest.
 * The first page replaces every cached entry of the part: the history may have grown at the new
 * end since, which moves every position.
 */
export function putPartHistory(db: CacheDb, partId: string, offset: number, entries: readonly PartHistoryEntry[], at: IsoTime): void {
  db.transaction(() => {
    if (offset === 0) {
      db.prepare('DELETE FROM part_history WHERE part_id = ?').run(partId);
      markSynced(db, historyKey(partId), at);
    }
    const insert = db.prepare('INSERT INTO part_history (part_id, position, entry) VALUES (?, ?, ?) ON CONFLICT (part_id, position) DO UPDATE SET entry = excluded.entry');
    entries.forEach((entry, i) => {
      if (offset + i < MAX_CACHED_HISTORY) insert.run(partId, offset + i, JSON.stringify(entry));
    });
  })();
}

/** Up to `limit` cached entries of a part's history from position `offset`, whether more are cached beyond, and when the history was read; null when it never was. */
export function cachedPartHistory(db: CacheDb, partId: string, offset: number, limit: number): { entries: PartHistoryEntry[]; more: boolean; syncedAt: IsoTime | null } | null {
  const read = syncedAt(db, historyKey(partId));
  const rows = db.prepare('SELECT entry FROM part_history WHERE part_id = ? AND position >= ? ORDER BY position LIMIT ?').pluck().all(partId, offset, limit + 1) as string[];
  if (read === null && rows.length === 0) return null;
  return { entries: rows.slice(0, limit).map((r) => JSON.parse(r) as PartHistoryEntry), more: rows.length > limit, syncedAt: read };
}

/** Keep what ListMachineFragments answered for a machine (its own use, without additional fragments). */
export function putMachineFragments(db: CacheDb, machineId: string, fragments: readonly MachineFragment[], at: IsoTime): void {
  db.prepare(
    'INSERT INTO machine_fragments (machine_id, fragments, synced_at) VALUES (?, ?, ?) ON CONFLICT (machine_id) DO UPDATE SET fragments = excluded.fragments, synced_at = excluded.synced_at',
  ).run(machineId, JSON.stringify(fragments), at);
}

/** The fragments a machine resolved with when last read, and when; null when never read. */
export function cachedMachineFragments(db: CacheDb, machineId: string): { fragments: MachineFragment[]; syncedAt: IsoTime } | null {
  const row = db.prepare('SELECT fragments, synced_at FROM machine_fragments WHERE machine_id = ?').get(machineId) as { fragments: string; synced_at: string } | undefined;
  return row ? { fragments: JSON.parse(row.fragments) as MachineFragment[], syncedAt: row.synced_at } : null;
}

/** What a draft holds of its own; its machine and part name come from the part's cached config. */
export type DraftContent = Pick<ConfigDraft, 'partId' | 'configJson' | 'baseConfigJson' | 'baseLastUpdated' | 'savedAt'>;

const drafts = draftTable<ConfigDraft>({
  table: 'part_config_drafts',
  key: 'part_id',
  join: 'LEFT JOIN part_configs c ON c.part_id = d.part_id',
  joined: 'c.machine_id, c.name',
  fromRow: (r, text) => ({
    partId: r.id,
    machineId: r['machine_id'] ?? '',
    partName: r['name'] ?? '',
    ...text,
  }),
});

/** Keep a part's draft, replacing the one it had. */
export function putDraft(db: CacheDb, draft: DraftContent): void {
  drafts.put(db, draft.partId, draft);
}

export function dropDraft(db: CacheDb, partId: string): void {
  drafts.drop(db, partId);
}

export function cachedDraft(db: CacheDb, partId: string): ConfigDraft | null {
  return drafts.get(db, partId);
}

/** Every draft, most recently kept first. */
export function cachedDrafts(db: CacheDb): ConfigDraft[] {
  return drafts.all(db);
}

/** Whether another draft may be kept for `partId` (replacing its own always may). */
export function roomForDraft(db: CacheDb, partId: string): boolean {
  return drafts.room(db, partId);
}
