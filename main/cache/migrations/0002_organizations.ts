import type { Migration } from '../../../db/migrate';

/** The organizations the profile's key can see, as of the last sync. */
export default {
  version: 2,
  name: 'organizations',
  sql: `
    CREATE TABLE organizations (
      id TEXT PRIMARY KEY NOT NULL,
      name TEXT NOT NULL,
      created_on TEXT,
      public_namespace TEXT NOT NULL DEFAULT '',
      region TEXT NOT NULL DEFAULT '',
      cid TEXT NOT NULL DEFAULT '',
      default_fragments TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(default_fragments))
    ) STRICT;
    CREATE INDEX organizations_by_name ON organizations (name COLLATE NOCASE);
  `,
} satisfies Migration;
