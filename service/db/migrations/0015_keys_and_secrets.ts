import type { Migration } from '../../../db/migrate';

/**
 * API key rotation and use, and location secrets.
 *
 * - `api_keys.secret_version` counts the key's secrets: RotateKey raises it, and every access
 *   token carries the version it was issued for, so the guard's one lookup of the key per call
 *   (which it makes anyway to refuse deleted keys) also refuses tokens of a rotated secret.
 * - `api_keys.last_used_at`: when the key last authenticated or made a call, written at most once
 *   a minute per key (a write per call would turn every read into a write).
 * - `location_secrets`: a location's shared secrets (parts have theirs since 0006). Every existing
 *   location gets one, as a new location does, so that LocationAuth has something to show.
 * - `authorizations_by_resource`: GetRobotAPIKeys and the drops before a delete find
 *   authorizations by the resource they are on.
 */
export const keysAndSecrets: Migration = {
  version: 15,
  name: 'keys_and_secrets',
  sql: `
    ALTER TABLE api_keys ADD COLUMN secret_version INTEGER NOT NULL DEFAULT 1 CHECK (secret_version >= 1);
    ALTER TABLE api_keys ADD COLUMN last_used_at TEXT CHECK (last_used_at IS NULL OR last_used_at >= created_at);

    CREATE TABLE location_secrets (
      id          TEXT PRIMARY KEY CHECK (length(id) = 36),
      location_id TEXT NOT NULL REFERENCES locations (id) ON DELETE CASCADE,
      secret      TEXT NOT NULL CHECK (length(secret) >= 32),
      created_on  TEXT NOT NULL
    ) STRICT;
    CREATE INDEX location_secrets_by_location ON location_secrets (location_id, created_on);

    INSERT INTO location_secrets (id, location_id, secret, created_on)
      SELECT lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-' ||
                   substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))),
             id, lower(hex(randomblob(24))), created_on
        FROM locations;

    CREATE INDEX authorizations_by_resource ON authorizations (resource_type, resource_id);
  `,
};
