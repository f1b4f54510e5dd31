import type { Migration } from '../../../db/migrate';

/**
 * The fleet of each organization as the last sync saw it: its locations, machines and their parts.
 * Rows are keyed by the organization whose tree shows them (`org_id`) as well as by their id: a
 * location shared with another organization is in both trees, and each tree is replaced on its own
 * in one transaction per organization. `fleet_sync` says when each organization's tree last matched
 * the service. Part details that only GetRobotPart gives (local address, secrets count, update
 * times) are filled in when a part is opened, and kept across syncs.
 */
export default {
  version: 3,
  name: 'fleet',
  sql: `
    CREATE TABLE fleet_sync (
      org_id    TEXT PRIMARY KEY NOT NULL,
      synced_at TEXT NOT NULL
    ) STRICT;

    CREATE TABLE locations (
      org_id             TEXT NOT NULL,
      id                 TEXT NOT NULL,
      name               TEXT NOT NULL,
      parent_location_id TEXT NOT NULL DEFAULT '',
      owner_org_id       TEXT NOT NULL,
      shared_with        TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(shared_with)),
      region             TEXT NOT NULL DEFAULT '',
      created_on         TEXT,
      robot_count        INTEGER NOT NULL DEFAULT 0,
      fetched_at         TEXT NOT NULL,
      PRIMARY KEY (org_id, id)
    ) STRICT, WITHOUT ROWID;
    CREATE INDEX locations_by_id ON locations (id);

    CREATE TABLE machines (
      org_id      TEXT NOT NULL,
      id          TEXT NOT NULL,
      name        TEXT NOT NULL,
      location_id TEXT NOT NULL,
      created_on  TEXT,
      fetched_at  TEXT NOT NULL,
      PRIMARY KEY (org_id, id)
    ) STRICT, WITHOUT ROWID;
    CREATE INDEX machines_by_id ON machines (id);

    CREATE TABLE parts (
      org_id             TEXT NOT NULL,
      id                 TEXT NOT NULL,
      machine_id         TEXT NOT NULL,
      name               TEXT NOT NULL,
      main_part          INTEGER NOT NULL CHECK (main_part IN (0, 1)),
      position           INTEGER NOT NULL,
      fqdn               TEXT NOT NULL DEFAULT '',
      last_access        TEXT,
      marked_for_restart INTEGER NOT NULL DEFAULT 0 CHECK (marked_for_restart IN (0, 1)),
      local_fqdn         TEXT,
      created_on         TEXT,
      last_updated       TEXT,
      secret_count       INTEGER,
      fetched_at         TEXT NOT NULL,
      PRIMARY KEY (org_id, id)
    ) STRICT, WITHOUT ROWID;
    CREATE INDEX parts_by_machine ON parts (org_id, machine_id, position);
    CREATE INDEX parts_by_id ON parts (id);
  `,
} satisfies Migration;
