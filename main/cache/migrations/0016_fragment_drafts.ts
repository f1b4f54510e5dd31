import type { Migration } from '../../../db/migrate';

/**
 * Drafts of fragment configs, as part_config_drafts (migration 15) keeps them for parts: the edited
 * text, the text it started from and the fragment's last_updated then, one per fragment, until
 * saved or dropped.
 */
export default {
  version: 16,
  name: 'fragment_drafts',
  sql: `
    CREATE TABLE fragment_drafts (
      fragment_id       TEXT PRIMARY KEY NOT NULL,
      config_json       TEXT NOT NULL CHECK (json_valid(config_json)),
      base_config_json  TEXT NOT NULL CHECK (json_valid(base_config_json)),
      base_last_updated TEXT NOT NULL,
      saved_at          TEXT NOT NULL
    ) STRICT;
    CREATE INDEX fragment_drafts_by_time ON fragment_drafts (saved_at DESC, fragment_id);
  `,
} satisfies Migration;
