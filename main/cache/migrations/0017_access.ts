import type { Migration } from '../../../db/migrate';

/**
 * The access domain's copies, per organization: members with their roles, pending invites (email,
 * roles: never the invite's token, which the service never answers), API keys (id, name, times,
 * roles: never a secret; the service keeps only a hash), the roles held on the organization's
 * resources (what `access.holders` reads offline), and what the active key may do over the
 * organization's tree (one bit set per resource, see common/access.ts `KeyPermissions`). When each
 * list was last read is in sync_state (`access-people:<org>`, `access-keys:<org>`,
 * `access-roles:<org>`). No table here has a column a secret could go in.
 */
export default {
  version: 17,
  name: 'access',
  sql: `
    CREATE TABLE access_members (
      org_id     TEXT NOT NULL,
      user_id    TEXT NOT NULL,
      position   INTEGER NOT NULL,
      name       TEXT NOT NULL DEFAULT '',
      emails     TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(emails)),
      date_added TEXT,
      last_login TEXT,
      grants     TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(grants)),
      PRIMARY KEY (org_id, user_id)
    ) STRICT, WITHOUT ROWID;

    CREATE TABLE access_invites (
      org_id     TEXT NOT NULL,
      email      TEXT NOT NULL,
      position   INTEGER NOT NULL,
      created_on TEXT,
      grants     TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(grants)),
      PRIMARY KEY (org_id, email)
    ) STRICT, WITHOUT ROWID;

    CREATE TABLE access_keys (
      org_id     TEXT NOT NULL,
      key_id     TEXT NOT NULL,
      position   INTEGER NOT NULL,
      name       TEXT NOT NULL,
      created_on TEXT,
      last_used  TEXT,
      grants     TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(grants)),
      PRIMARY KEY (org_id, key_id)
    ) STRICT, WITHOUT ROWID;

    CREATE TABLE access_roles (
      org_id        TEXT NOT NULL,
      resource_type TEXT NOT NULL CHECK (resource_type IN ('organization', 'location', 'machine')),
      resource_id   TEXT NOT NULL,
      identity_type TEXT NOT NULL CHECK (identity_type IN ('user', 'key')),
      identity_id   TEXT NOT NULL,
      role          TEXT NOT NULL CHECK (role IN ('owner', 'operator')),
      PRIMARY KEY (org_id, resource_id, identity_id, role)
    ) STRICT, WITHOUT ROWID;

    CREATE TABLE key_permissions (
      org_id       TEXT PRIMARY KEY NOT NULL,
      organization INTEGER NOT NULL,
      locations    TEXT NOT NULL CHECK (json_valid(locations)),
      machines     TEXT NOT NULL CHECK (json_valid(machines)),
      checked_at   TEXT NOT NULL
    ) STRICT;
  `,
} satisfies Migration;
