import type { Migration } from '../../../db/migrate';

/**
 * Drafts of part configs: an edit that could not be saved (the service was away) or was not saved
 * yet, kept until it is saved or dropped, across restarts of the app.
 *
 * `part_config_drafts`: one per part, the edited text and what the edit started from (the text and
 * its last_updated): the base of a three-way merge and the token its save sends, so a draft saved
 * after someone else changed the part is a conflict, never an overwrite. Unlike the rest of the
 * cache this is the user's own work, not a copy of the service's.
 */
export default {
  version: 15,
  name: 'part_config_drafts',
  sql: `
    CREATE TABLE part_config_drafts (
      part_id           TEXT PRIMARY KEY NOT NULL,
      config_json       TEXT NOT NULL CHECK (json_valid(config_json)),
      base_config_json  TEXT NOT NULL CHECK (json_valid(base_config_json)),
      base_last_updated TEXT NOT NULL,
      saved_at          TEXT NOT NULL
    ) STRICT;
    CREATE INDEX part_config_drafts_by_time ON part_config_drafts (saved_at DESC, part_id);
  `,
} satisfies Migration;
