/**
 * Edits kept while the service could not be reached (a part's config, a fragment): each domain
 * has its own table (its own migration) of one row per thing edited, with the same columns
 * (`config_json`, `base_config_json`, `base_last_updated`, `saved_at`) beside the thing's id.
 * This keeps, drops and lists those rows; the domain says what a row joins for its names.
 */
import type { CacheDb } from './cache';

/** How many drafts a table keeps at the most: an edit past that is refused with a message, never dropped silently. */
export const MAX_DRAFTS = 1000;

/** What every draft holds of its own, whatever was edited. */
export interface DraftText {
  readonly configJson: string;
  /** The text the edit started from: the base of a three-way merge. */
  readonly baseConfigJson: string;
  readonly baseLastUpdated: string;
  readonly savedAt: string;
}

/** A draft row as read: the draft's columns, and whatever the domain's join adds (as `extra`). */
export interface DraftRow {
  readonly id: string;
  readonly config_json: string;
  readonly base_config_json: string;
  readonly base_last_updated: string;
  readonly saved_at: string;
  readonly [extra: string]: string | null;
}

/** One domain's draft table. */
export interface DraftTableSpec<D> {
  /** The table, e.g. `part_config_drafts`. */
  readonly table: string;
  /** Its id column, e.g. `part_id`. */
  readonly key: string;
  /** What names a draft: a join on the draft `d`, and the columns it adds (e.g. `LEFT JOIN fragments f ON f.id = d.fragment_id`, `f.org_id, f.name`). */
  readonly join: string;
  readonly joined: string;
  /** The draft the bridge answers, from a row and the text it holds. */
  readonly fromRow: (row: DraftRow, text: DraftText) => D;
}

/** Keep, drop and read one domain's drafts. */
export interface DraftTable<D> {
  /** Keep the draft of `id`, replacing the one it had. */
  put(db: CacheDb, id: string, draft: DraftText): void;
  drop(db: CacheDb, id: string): void;
  get(db: CacheDb, id: string): D | null;
  /** Every draft, most recently kept first. */
  all(db: CacheDb): D[];
  /** Whether another draft may be kept for `id` (replacing its own always may). */
  room(db: CacheDb, id: string): boolean;
}

/** The draft table `spec` names; its SQL is made of the spec's names, never of anything a caller sends. */
export function draftTable<D>(spec: DraftTableSpec<D>): DraftTable<D> {
  const { table, key } = spec;
  const select = `SELECT d.${key} AS id, d.config_json, d.base_config_json, d.base_last_updated, d.saved_at, ${spec.joined} FROM ${table} d ${spec.join}`;
  const fromRow = (r: DraftRow): D => spec.fromRow(r, { configJson: r.config_json, baseConfigJson: r.base_config_json, baseLastUpdated: r.base_last_updated, savedAt: r.saved_at });
  const get = (db: CacheDb, id: string): D | null => {
    const row = db.prepare(`${select} WHERE d.${key} = ?`).get(id) as DraftRow | undefined;
    return row ? fromRow(row) : null;
  };
  return {
    put: (db, id, draft) => {
      db.prepare(
        `INSERT INTO ${table} (${key}, config_json, base_config_json, base_last_updated, saved_at) VALUES (@id, @configJson, @baseConfigJson, @baseLastUpdated, @savedAt)
         ON CONFLICT (${key}) DO UPDATE SET config_json = excluded.config_json, base_config_json = excluded.base_config_json,
           base_last_updated = excluded.base_last_updated, saved_at = excluded.saved_at`,
      ).run({ id, configJson: draft.configJson, baseConfigJson: draft.baseConfigJson, baseLastUpdated: draft.baseLastUpdated, savedAt: draft.savedAt });
    },
    drop: (db, id) => {
      db.prepare(`DELETE FROM ${table} WHERE ${key} = ?`).run(id);
    },
    get,
    all: (db) => (db.prepare(`${select} ORDER BY d.saved_at DESC, d.${key} LIMIT ?`).all(MAX_DRAFTS) as DraftRow[]).map(fromRow),
    room: (db, id) => get(db, id) !== null || (db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number) < MAX_DRAFTS,
  };
}
