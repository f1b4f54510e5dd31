import type { Migration } from '../../../db/migrate';

/** User-defined metadata of organizations, locations, machines and parts, as last read (fetched on demand). */
export default {
  version: 4,
  name: 'metadata',
  sql: `
    CREATE TABLE metadata (
      resource_type TEXT NOT NULL CHECK (resource_type IN ('organization', 'location', 'machine', 'part')),
      resource_id   TEXT NOT NULL,
      json          TEXT NOT NULL CHECK (json_valid(json) AND json_type(json) = 'object'),
      fetched_at    TEXT NOT NULL,
      PRIMARY KEY (resource_type, resource_id)
    ) STRICT, WITHOUT ROWID;
  `,
} satisfies Migration;
