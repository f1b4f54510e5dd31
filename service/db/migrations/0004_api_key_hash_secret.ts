import type { Migration } from '../../../db/migrate';

/**
 * The server secret of API key hashes. API keys are 256-bit random values, so a keyed hash
 * (HMAC-SHA-256 under this secret, with a per-key salt) is as strong as a slow hash against
 * guessing, and costs microseconds instead of tens of milliseconds per sign-in: a flood of wrong
 * keys can no longer starve real sign-ins. A stolen database without this row is also no help for
 * checking guesses offline. Like the token secret, the row is written by the service with
 * node:crypto, not by SQL.
 */
export const apiKeyHashSecret: Migration = {
  version: 4,
  name: 'api_key_hash_secret',
  sql: `
    CREATE TABLE api_key_hash_secret (
      id         INTEGER PRIMARY KEY CHECK (id = 1),
      secret     BLOB NOT NULL CHECK (length(secret) >= 32),
      created_at TEXT NOT NULL
    ) STRICT;
  `,
};
