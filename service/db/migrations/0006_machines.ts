import type { Migration } from '../../../db/migrate';

/**
 * Machines (robots), their parts, part secrets, and the simulation that makes demo parts check in.
 *
 * Machine names are unique within their location, and so are part names (GetRobotPartByNameAndLocation
 * finds one part by name in a location): parts carry their machine's location, which the store keeps
 * equal to the machine's in the same transaction as a move. Exactly one part of a machine is its main
 * part; the partial unique index enforces "at most one" and the store "at least one".
 * `last_access` is an ISO-8601 UTC instant (all written by one formatter, so text order is time order).
 * `part_simulation` rows exist only for the demo fleet: the service's own stand-in for robots that
 * contact it, since no operation of the contract sets last_access.
 */
export const machines: Migration = {
  version: 6,
  name: 'machines',
  sql: `
    CREATE TABLE robots (
      id          TEXT PRIMARY KEY CHECK (length(id) = 36),
      location_id TEXT NOT NULL REFERENCES locations (id) ON DELETE CASCADE,
      name        TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 200 AND name = trim(name)),
      created_on  TEXT NOT NULL,
      metadata    TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(metadata) AND json_type(metadata) = 'object'),
      UNIQUE (location_id, name)
    ) STRICT;

    CREATE TABLE robot_parts (
      id                 TEXT PRIMARY KEY CHECK (length(id) = 36),
      robot_id           TEXT NOT NULL REFERENCES robots (id) ON DELETE CASCADE,
      location_id        TEXT NOT NULL REFERENCES locations (id) ON DELETE CASCADE,
      name               TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 200 AND name = trim(name)),
      main_part          INTEGER NOT NULL CHECK (main_part IN (0, 1)),
      config_json        TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(config_json) AND json_type(config_json) = 'object'),
      fqdn               TEXT NOT NULL,
      local_fqdn         TEXT NOT NULL DEFAULT '',
      last_access        TEXT,
      marked_for_restart INTEGER NOT NULL DEFAULT 0 CHECK (marked_for_restart IN (0, 1)),
      created_on         TEXT NOT NULL,
      last_updated       TEXT NOT NULL,
      metadata           TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(metadata) AND json_type(metadata) = 'object'),
      UNIQUE (location_id, name)
    ) STRICT;
    CREATE UNIQUE INDEX robot_parts_one_main ON robot_parts (robot_id) WHERE main_part = 1;
    CREATE INDEX robot_parts_by_robot ON robot_parts (robot_id, main_part DESC, created_on);

    CREATE TABLE part_secrets (
      id         TEXT PRIMARY KEY CHECK (length(id) = 36),
      part_id    TEXT NOT NULL REFERENCES robot_parts (id) ON DELETE CASCADE,
      secret     TEXT NOT NULL CHECK (secret <> ''),
      created_on TEXT NOT NULL
    ) STRICT;
    CREATE INDEX part_secrets_by_part ON part_secrets (part_id);

    -- steady: checks in every interval_s seconds. flaky: up for period_s seconds (checking in every
    -- interval_s), then down for period_s, offset by phase_s so parts do not flip together.
    CREATE TABLE part_simulation (
      part_id    TEXT PRIMARY KEY REFERENCES robot_parts (id) ON DELETE CASCADE,
      pattern    TEXT NOT NULL CHECK (pattern IN ('steady', 'flaky')),
      interval_s INTEGER NOT NULL CHECK (interval_s BETWEEN 1 AND 9),
      period_s   INTEGER NOT NULL CHECK (period_s >= 1),
      phase_s    INTEGER NOT NULL CHECK (phase_s >= 0)
    ) STRICT;
  `,
};
