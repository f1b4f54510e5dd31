import type { Migration } from '../../../db/migrate';

/**
 * Lines are indexed for full-text search after they are cached, not while: the trigram index costs
 * about as much per line as everything else together, and a tail of 20,000 lines a second must not
 * wait for it. A new line's key goes to `log_fts_pending`; the cache worker indexes pending lines in
 * small slices whenever it has nothing else to do, and searches look at pending lines by scan (there
 * are few of them but while a burst lasts). A line evicted before it was indexed leaves the index
 * untouched: the index is only told to delete what it holds.
 */
export default {
  version: 7,
  name: 'logs_fts_pending',
  sql: `
    DROP TRIGGER logs_fts_insert;
    DROP TRIGGER logs_fts_delete;
    CREATE TABLE log_fts_pending (
      key INTEGER PRIMARY KEY
    ) STRICT;
    CREATE TRIGGER logs_pending_insert AFTER INSERT ON logs BEGIN
      INSERT INTO log_fts_pending (key) VALUES (new.key);
    END;
    CREATE TRIGGER logs_fts_delete AFTER DELETE ON logs BEGIN
      INSERT INTO logs_fts (logs_fts, rowid, message) SELECT 'delete', old.key, old.message WHERE NOT EXISTS (SELECT 1 FROM log_fts_pending WHERE key = old.key);
      DELETE FROM log_fts_pending WHERE key = old.key;
    END;
  `,
} satisfies Migration;
