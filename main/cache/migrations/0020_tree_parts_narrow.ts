import type { Migration } from '../../../db/migrate';

/**
 * The tree no longer reads part addresses (they stay in `parts` for a part's page, common/machines.ts
 * TreePart): `parts_tree` without `fqdn` still covers the tree's read of parts, and at 30,000
 * parts no longer copies 1.2 MB of addresses into an index every sync rewrites.
 */
export default {
  version: 20,
  name: 'tree_parts_narrow',
  sql: `
    DROP INDEX parts_tree;
    CREATE INDEX parts_tree ON parts (org_id, machine_id, position, id, name, last_access, main_part, marked_for_restart);
  `,
} satisfies Migration;
