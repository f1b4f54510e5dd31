import type { Migration } from '../../../db/migrate';

/**
 * The fragments each machine resolves with, so a part's effective config can be resolved offline.
 *
 * `machine_fragments`: per machine, ListMachineFragments' answer as last read (the bridge's
 * MachineFragment list as JSON: every fragment its parts use, top-level and nested, at the revisions
 * their configs ask for, with each fragment's revisions and tags). It is the machine's own copy, not
 * the fragments domain's tables: what a machine resolved with is the config domain's business, and a
 * domain reads no other domain's tables.
 */
export default {
  version: 14,
  name: 'machine_fragments',
  sql: `
    CREATE TABLE machine_fragments (
      machine_id TEXT PRIMARY KEY NOT NULL,
      fragments  TEXT NOT NULL CHECK (json_valid(fragments) AND json_type(fragments) = 'array'),
      synced_at  TEXT NOT NULL
    ) STRICT;
  `,
} satisfies Migration;
