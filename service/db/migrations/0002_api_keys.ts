import type { Migration } from '../../../db/migrate';

/**
 * API keys. The secret itself is never stored: only a salted hash, with the name of the scheme
 * that produced it so the cost parameters can be raised later without a schema change.
 * Deleting a key sets `deleted_at` instead of removing the row, so that its authorizations and
 * the tokens issued for it can still be recognised as belonging to a deleted key.
 */
export const apiKeys: Migration = {
  version: 2,
  name: 'api_keys',
  sql: `
    CREATE TABLE api_keys (
      id          TEXT PRIMARY KEY CHECK (length(id) = 36),
      name        TEXT NOT NULL,
      hash_scheme TEXT NOT NULL CHECK (hash_scheme <> ''),
      salt        BLOB NOT NULL CHECK (length(salt) >= 16),
      hash        BLOB NOT NULL CHECK (length(hash) >= 32),
      created_at  TEXT NOT NULL,
      deleted_at  TEXT CHECK (deleted_at IS NULL OR deleted_at >= created_at)
    ) STRICT;
  `,
};
