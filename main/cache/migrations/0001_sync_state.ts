import type { Migration } from '../../../db/migrate';

/** When each cached resource last matched the service: what the offline banner's "cached at" reads. */
export default {
  version: 1,
  name: 'sync_state',
  sql: `
    CREATE TABLE sync_state (
      resource TEXT PRIMARY KEY NOT NULL,
      synced_at TEXT NOT NULL
    ) STRICT;
  `,
} satisfies Migration;
