import type { Migration } from '../../../db/migrate';

/**
 * Locations, nested to any depth, and the organizations they are shared with; metadata on
 * organizations and locations.
 *
 * A location belongs to one organization (its owner) for good; `location_shares` gives other
 * organizations access to it and to everything under it. `parent_location_id` cascades like the
 * rest: DeleteLocation refuses a location that is not empty before any row goes, so the cascade
 * only ever runs for DeleteOrganization, which removes the whole tree at once.
 * User-defined metadata is a JSON object kept as text beside the row it describes, so deleting the
 * resource deletes its metadata with it.
 */
export const locations: Migration = {
  version: 5,
  name: 'locations',
  sql: `
    ALTER TABLE organizations ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(metadata) AND json_type(metadata) = 'object');

    CREATE TABLE locations (
      id                 TEXT PRIMARY KEY CHECK (length(id) = 36),
      organization_id    TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      -- NULL at the top level.
      parent_location_id TEXT REFERENCES locations (id) ON DELETE CASCADE CHECK (parent_location_id IS NULL OR parent_location_id <> id),
      name               TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 200 AND name = trim(name)),
      region             TEXT NOT NULL DEFAULT '',
      created_on         TEXT NOT NULL,
      metadata           TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(metadata) AND json_type(metadata) = 'object')
    ) STRICT;
    CREATE INDEX locations_by_organization ON locations (organization_id, name);
    CREATE INDEX locations_by_parent ON locations (parent_location_id);

    -- rowid order is the order organizations received access (GetOrganizationsWithAccessToLocation).
    CREATE TABLE location_shares (
      location_id     TEXT NOT NULL REFERENCES locations (id) ON DELETE CASCADE,
      organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      created_at      TEXT NOT NULL,
      UNIQUE (location_id, organization_id)
    ) STRICT;
    CREATE INDEX location_shares_by_organization ON location_shares (organization_id);
  `,
};
