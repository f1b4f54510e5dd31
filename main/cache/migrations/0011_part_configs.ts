import type { Migration } from '../../../db/migrate';

/**
 * Part configs, so a part's config can be read (and an edit started) offline.
 *
 * `part_configs`: one row per part whose config was read, as the service last answered it: the text
 * verbatim (an editor reopens exactly what was stored) and its `last_updated`, the token a save
 * sends back. The part's name rides along because UpdateRobotPart needs one. Nothing secret: a
 * part's secrets are no part of its config and never reach this table.
 */
export default {
  version: 11,
  name: 'part_configs',
  sql: `
    CREATE TABLE part_configs (
      part_id      TEXT PRIMARY KEY NOT NULL,
      machine_id   TEXT NOT NULL,
      name         TEXT NOT NULL,
      config_json  TEXT NOT NULL CHECK (json_valid(config_json)),
      last_updated TEXT NOT NULL,
      synced_at    TEXT NOT NULL
    ) STRICT;
    CREATE INDEX part_configs_by_machine ON part_configs (machine_id);
  `,
} satisfies Migration;
