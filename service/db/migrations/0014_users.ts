import type { Migration } from '../../../db/migrate';

/**
 * Users, the API keys they sign in with, and pending organization invites (docs/PROTOCOL.md,
 * "Users, sign-in and invites").
 *
 * - `users.email` is stored lower-cased and is unique: one user per address, whatever its case.
 * - `api_keys.user_id` names the user a key signs in as; NULL for a key that is its own identity.
 *   A user key's calls act with the user's authorizations (identity type `user`).
 * - An invite is pending until accepted or withdrawn; at most one per organization and email.
 *   `token_hash` is the SHA-256 of the token its email carried (NULL for an invite made without
 *   email, granted at the user's next sign-in instead); the token itself is never stored.
 * - An invite's authorizations are held in their own table, so that one resource is named once
 *   per role and an update adds and removes rows rather than rewriting a list.
 */
export const users: Migration = {
  version: 14,
  name: 'users',
  sql: `
    CREATE TABLE users (
      id           TEXT PRIMARY KEY CHECK (length(id) = 36),
      email        TEXT NOT NULL UNIQUE CHECK (email = lower(email) AND length(email) BETWEEN 3 AND 254 AND email GLOB '?*@?*'),
      display_name TEXT NOT NULL CHECK (length(display_name) BETWEEN 1 AND 200),
      created_at   TEXT NOT NULL,
      last_login   TEXT
    ) STRICT;

    ALTER TABLE api_keys ADD COLUMN user_id TEXT REFERENCES users (id);
    CREATE INDEX api_keys_by_user ON api_keys (user_id) WHERE user_id IS NOT NULL;

    CREATE TABLE organization_invites (
      id              INTEGER PRIMARY KEY,
      organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      email           TEXT NOT NULL CHECK (email = lower(email) AND length(email) BETWEEN 3 AND 254),
      send_email      INTEGER NOT NULL CHECK (send_email IN (0, 1)),
      token_hash      BLOB UNIQUE CHECK (token_hash IS NULL OR length(token_hash) = 32),
      created_at      TEXT NOT NULL,
      UNIQUE (organization_id, email)
    ) STRICT;
    CREATE INDEX organization_invites_by_email ON organization_invites (email);

    CREATE TABLE organization_invite_authorizations (
      invite_id     INTEGER NOT NULL REFERENCES organization_invites (id) ON DELETE CASCADE,
      resource_type TEXT NOT NULL CHECK (resource_type IN ('organization', 'location', 'robot')),
      resource_id   TEXT NOT NULL CHECK (resource_id <> ''),
      role_id       TEXT NOT NULL CHECK (role_id IN ('owner', 'operator')),
      PRIMARY KEY (invite_id, resource_type, resource_id, role_id)
    ) STRICT;
  `,
};
