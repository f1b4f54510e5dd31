import type { Migration } from '../../../db/migrate';

/**
 * Part history (docs/PROTOCOL.md, "Machines and machine parts"): every change of a part — its name or
 * config (UpdateRobotPart), its main flag (MarkPartAsMain, both parts), its restart flag
 * (MarkPartForRestart) — leaves a row holding the part's state before the change, when it was made,
 * and who made it (the editor's name as it was then, so the entry stays readable once the key is
 * gone). The machines store writes a row in the same transaction as the change.
 *
 * `config_json` is the old config's text as stored (key order kept); `secrets` the ids and creation
 * times of the part's secrets then, never their values (a deleted secret must not be recoverable from
 * history). Times are ISO-8601 UTC from one formatter, so text order is time order; `id` orders
 * entries of the same instant. Rows go with their part (and so with their machine).
 */
export const partHistory: Migration = {
  version: 11,
  name: 'part_history',
  sql: `
    CREATE TABLE robot_part_history (
      id                 INTEGER PRIMARY KEY,
      part_id            TEXT NOT NULL REFERENCES robot_parts (id) ON DELETE CASCADE,
      edited_on          TEXT NOT NULL,
      editor_type        TEXT NOT NULL CHECK (editor_type IN ('', 'user')),
      editor_id          TEXT NOT NULL CHECK (editor_id <> ''),
      editor_name        TEXT NOT NULL,
      name               TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      config_json        TEXT NOT NULL CHECK (json_valid(config_json) AND json_type(config_json) = 'object'),
      main_part          INTEGER NOT NULL CHECK (main_part IN (0, 1)),
      marked_for_restart INTEGER NOT NULL CHECK (marked_for_restart IN (0, 1)),
      secrets            TEXT NOT NULL CHECK (json_valid(secrets) AND json_type(secrets) = 'array'),
      last_updated       TEXT NOT NULL
    ) STRICT;
    CREATE INDEX robot_part_history_newest_first ON robot_part_history (part_id, edited_on DESC, id DESC);
  `,
};
