import type { Migration } from '../../../db/migrate';

/**
 * The secret that signs access tokens: one per data dir, so tokens survive a restart of the
 * service but are worthless against another data dir. The row is created by the service, with
 * node:crypto, not here: SQLite's randomblob() is not documented as a cryptographic generator.
 */
export const tokenSigningSecret: Migration = {
  version: 1,
  name: 'token_signing_secret',
  sql: `
    CREATE TABLE token_signing_secret (
      id         INTEGER PRIMARY KEY CHECK (id = 1),
      secret     BLOB NOT NULL CHECK (length(secret) >= 32),
      created_at TEXT NOT NULL
    ) STRICT;
  `,
};
