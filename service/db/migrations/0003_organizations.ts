import type { Migration } from '../../../db/migrate';

/**
 * Organizations and the role authorizations that say who may see them.
 *
 * `authorizations` follows the spec's Authorization record. `identity_id` is an API key id when
 * `identity_type` is '' and a user id when it is 'user'; there is no users table yet, so it
 * carries no foreign key. `resource_id` names an organization, location or robot, so it carries
 * none either; an organization authorization must name its own organization.
 */
export const organizations: Migration = {
  version: 3,
  name: 'organizations',
  sql: `
    CREATE TABLE organizations (
      id               TEXT PRIMARY KEY CHECK (length(id) = 36),
      name             TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 200 AND name = trim(name)),
      created_on       TEXT NOT NULL,
      -- NULL until set; set at most once. docs/PROTOCOL.md: [a-z0-9-], 1 to 63, no dash at either end.
      public_namespace TEXT UNIQUE CHECK (
        public_namespace IS NULL
        OR (length(public_namespace) BETWEEN 1 AND 63
            AND public_namespace NOT GLOB '*[^a-z0-9-]*'
            AND public_namespace NOT GLOB '-*'
            AND public_namespace NOT GLOB '*-')
      ),
      region           TEXT NOT NULL DEFAULT '',
      cid              TEXT NOT NULL DEFAULT ''
    ) STRICT;

    CREATE TABLE authorizations (
      id                 INTEGER PRIMARY KEY,
      authorization_type TEXT NOT NULL CHECK (authorization_type = 'role'),
      authorization_id   TEXT NOT NULL CHECK (authorization_id = resource_type || '_' || role_id),
      resource_type      TEXT NOT NULL CHECK (resource_type IN ('organization', 'location', 'robot')),
      resource_id        TEXT NOT NULL CHECK (resource_id <> ''),
      identity_id        TEXT NOT NULL CHECK (identity_id <> ''),
      identity_type      TEXT NOT NULL CHECK (identity_type IN ('', 'user')),
      organization_id    TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      role_id            TEXT NOT NULL CHECK (role_id IN ('owner', 'operator')),
      created_at         TEXT NOT NULL,
      UNIQUE (identity_type, identity_id, resource_type, resource_id, role_id),
      CHECK (resource_type <> 'organization' OR resource_id = organization_id)
    ) STRICT;

    -- "Which organizations may this identity see" is asked on every organization call.
    CREATE INDEX authorizations_by_identity ON authorizations (identity_type, identity_id, organization_id);
    CREATE INDEX authorizations_by_organization ON authorizations (organization_id);
  `,
};
