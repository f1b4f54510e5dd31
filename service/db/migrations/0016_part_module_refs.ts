import type { Migration } from '../../../db/migrate';

/**
 * `part_module_refs`: which module ids each part's config names in `modules[].module_id` (the text
 * as written, either id form), one row per part and id. A registry item's total_robot_usage and
 * DeleteRegistryItem's in-use check count a module's parts from its index instead of parsing every
 * part's config (issue #20: that scan grew with the fleet, and ListRegistryItems ran it per
 * module). Written by the machine store and the demo seeder in the same transaction as the config,
 * as `part_fragment_refs` (migration 0012) is, and for the same reason not by a trigger. The ids
 * are kept as written rather than resolved to an item: a namespace given to an organization later
 * makes configs written before it count, as the scan did. Entries are read as the scan read them:
 * every object among `modules`' values whose `module_id` is text. Existing parts are indexed here.
 */
export const partModuleRefs: Migration = {
  version: 16,
  name: 'part_module_refs',
  sql: `
    CREATE TABLE part_module_refs (
      part_id   TEXT NOT NULL REFERENCES robot_parts (id) ON DELETE CASCADE,
      module_id TEXT NOT NULL,
      PRIMARY KEY (part_id, module_id)
    ) STRICT, WITHOUT ROWID;
    CREATE INDEX part_module_refs_by_module ON part_module_refs (module_id, part_id);

    INSERT OR IGNORE INTO part_module_refs (part_id, module_id)
      SELECT p.id, json_extract(m.value, '$.module_id')
        FROM robot_parts p, json_each(p.config_json, '$.modules') m
       WHERE m.type = 'object' AND json_type(m.value, '$.module_id') = 'text';
  `,
};
