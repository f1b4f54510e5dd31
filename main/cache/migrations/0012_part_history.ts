import type { Migration } from '../../../db/migrate';

/**
 * Part histories, so the pages of a part's history already read can be read again offline.
 *
 * `part_history`: the entries in the order the service answers them (newest first), by their
 * position from the newest: history entries carry no id, and a history only grows at the new end,
 * so a fresh first page replaces what was cached and later pages are written at the positions their
 * page token says. `entry` is the bridge's PartHistoryEntry as JSON (the part as it was before the
 * change, without secrets). The first page's read time is in sync_state (`part-history:<part>`).
 */
export default {
  version: 12,
  name: 'part_history',
  sql: `
    CREATE TABLE part_history (
      part_id  TEXT NOT NULL,
      position INTEGER NOT NULL CHECK (position >= 0),
      entry    TEXT NOT NULL CHECK (json_valid(entry)),
      PRIMARY KEY (part_id, position)
    ) STRICT;
  `,
} satisfies Migration;
