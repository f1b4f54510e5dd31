import type { Migration } from '../../../db/migrate';

/** What the UI remembers per profile (expanded tree nodes, the selection): small JSON values by key. */
export default {
  version: 5,
  name: 'ui_state',
  sql: `
    CREATE TABLE ui_state (
      key   TEXT PRIMARY KEY NOT NULL,
      value TEXT NOT NULL CHECK (json_valid(value))
    ) STRICT;
  `,
} satisfies Migration;
