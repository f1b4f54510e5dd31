import type { Migration } from '../../../db/migrate';

/**
 * Part logs. `id` is the insertion order: with `time_us` it orders a part's log newest first
 * without ties, and it is the stable identity of an entry. `time_us` is the creation time in epoch
 * microseconds (as stamped by the part). `caller` is a JSON object or null, `fields` a JSON array of
 * objects. A part's logs go with it. The demo simulation gains a log rate per part (lines a minute;
 * 0 = a silent part), so simulated machines log like real ones while they are live.
 */
export const logs: Migration = {
  version: 7,
  name: 'logs',
  sql: `
    CREATE TABLE part_logs (
      id       INTEGER PRIMARY KEY,
      part_id  TEXT NOT NULL REFERENCES robot_parts (id) ON DELETE CASCADE,
      time_us  INTEGER NOT NULL,
      level    TEXT NOT NULL CHECK (level IN ('DEBUG', 'INFO', 'WARN', 'ERROR')),
      source   TEXT NOT NULL DEFAULT '',
      host     TEXT NOT NULL DEFAULT '',
      message  TEXT NOT NULL,
      caller   TEXT CHECK (caller IS NULL OR (json_valid(caller) AND json_type(caller) = 'object')),
      stack    TEXT NOT NULL DEFAULT '',
      fields   TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(fields) AND json_type(fields) = 'array')
    ) STRICT;
    CREATE INDEX part_logs_by_part_time ON part_logs (part_id, time_us DESC, id DESC);

    ALTER TABLE part_simulation ADD COLUMN log_per_min INTEGER NOT NULL DEFAULT 0 CHECK (log_per_min >= 0);
  `,
};
