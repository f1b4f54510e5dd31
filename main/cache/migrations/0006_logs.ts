import type { Migration } from '../../../db/migrate';

/**
 * Cached log entries of every part the user tailed or browsed, so logs can be reviewed offline.
 *
 * - `key` orders lines by time across all parts: the entry's ms since 2020 × 4096 plus a counter for
 *   lines of the same millisecond, so "newest first" and "evict the oldest" are walks of the primary
 *   key, and full-text results come back in time order straight from the index.
 * - An entry is identified by (part_id, entry_id): the service's LogEntry.id, or a hash of its
 *   content from a service that gives none. The unique index makes a second copy (a gap filled
 *   twice, a page fetched again) a no-op.
 * - `logs_fts` indexes messages with the trigram tokenizer: a substring of 3 or more characters is
 *   an index lookup, not a scan.
 * - `log_totals` keeps the count and bytes the retention bounds are checked against, without a scan.
 * - `log_sources` lists the sources each part logged from.
 * - `log_parts` keeps, per part, the names to show in search results (the part may leave the fleet
 *   while its lines stay) and how far back its history was fetched.
 */
export default {
  version: 6,
  name: 'logs',
  sql: `
    CREATE TABLE logs (
      key       INTEGER PRIMARY KEY,
      part_id   TEXT NOT NULL,
      entry_id  TEXT NOT NULL,
      level     INTEGER NOT NULL CHECK (level BETWEEN 0 AND 3),
      source    TEXT NOT NULL,
      host      TEXT NOT NULL,
      message   TEXT NOT NULL,
      detail    TEXT CHECK (detail IS NULL OR json_valid(detail)),
      bytes     INTEGER NOT NULL,
      cached_at INTEGER NOT NULL
    ) STRICT;
    CREATE UNIQUE INDEX logs_identity ON logs (part_id, entry_id);
    CREATE INDEX logs_by_part ON logs (part_id, key);

    CREATE VIRTUAL TABLE logs_fts USING fts5(message, content = 'logs', content_rowid = 'key', tokenize = 'trigram');
    CREATE TRIGGER logs_fts_insert AFTER INSERT ON logs BEGIN
      INSERT INTO logs_fts (rowid, message) VALUES (new.key, new.message);
    END;
    CREATE TRIGGER logs_fts_delete AFTER DELETE ON logs BEGIN
      INSERT INTO logs_fts (logs_fts, rowid, message) VALUES ('delete', old.key, old.message);
    END;

    CREATE TABLE log_totals (
      id    INTEGER PRIMARY KEY CHECK (id = 1),
      lines INTEGER NOT NULL,
      bytes INTEGER NOT NULL
    ) STRICT;
    INSERT INTO log_totals VALUES (1, 0, 0);

    CREATE TABLE log_parts (
      part_id      TEXT PRIMARY KEY NOT NULL,
      org_id       TEXT NOT NULL,
      machine_id   TEXT NOT NULL,
      machine_name TEXT NOT NULL,
      part_name    TEXT NOT NULL,
      -- Everything the service held before this time (ms) is cached; null until history was fetched.
      history_from INTEGER,
      -- The service has no older entries than those cached.
      history_done INTEGER NOT NULL DEFAULT 0 CHECK (history_done IN (0, 1))
    ) STRICT;

    -- The sources each part logged from (the source filter's choices, without a scan of its lines).
    CREATE TABLE log_sources (
      part_id TEXT NOT NULL,
      source  TEXT NOT NULL,
      PRIMARY KEY (part_id, source)
    ) STRICT, WITHOUT ROWID;
  `,
} satisfies Migration;
