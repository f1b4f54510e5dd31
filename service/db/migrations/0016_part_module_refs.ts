import type { Migration } from '../../../db/migrate';

/** The parts whose refs name the item `r` of organization `o` in either id form (`<org id>:<name>`, `<namespace>:<name>`). */
const count = (r: string, namespace: string) =>
  `(SELECT count(DISTINCT part_id) FROM part_module_refs WHERE module_id IN (${r}.organization_id || ':' || ${r}.name, ${namespace} || ':' || ${r}.name))`;

/**
 * The item a ref names: `<org id or namespace>:<name>`, resolved as the registry resolves ids. `ref`
 * is NEW or OLD of a `part_module_refs` trigger.
 */
const named = (ref: string) => `
  SELECT r.id, r.organization_id, r.name, o.public_namespace FROM registry_items r JOIN organizations o ON o.id = r.organization_id
   WHERE r.name = substr(${ref}.module_id, instr(${ref}.module_id, ':') + 1)
     AND r.organization_id = coalesce((SELECT id FROM organizations WHERE id = substr(${ref}.module_id, 1, instr(${ref}.module_id, ':') - 1)),
                                      (SELECT id FROM organizations WHERE public_namespace = substr(${ref}.module_id, 1, instr(${ref}.module_id, ':') - 1)))`;

/** The part of `ref` still names item `n` in its other id form. */
const otherForm = (ref: string) => `
  EXISTS (SELECT 1 FROM part_module_refs x WHERE x.part_id = ${ref}.part_id AND x.module_id <> ${ref}.module_id
             AND x.module_id IN (n.organization_id || ':' || n.name, n.public_namespace || ':' || n.name))`;

/**
 * What used to grow with the fleet in the registry (issue #20), kept at write time instead:
 *
 * - `part_module_refs`: which module ids each part's config names in `modules[].module_id` (the
 *   text as written, either id form), one row per part and id. Written by the machine store and the
 *   demo seeder in the same transaction as the config, as `part_fragment_refs` (migration 0012) is,
 *   and read as the scan it replaces read configs: every object among `modules`' values whose
 *   `module_id` is text. Existing parts are indexed here.
 * - `registry_items.usage`: the parts whose config names the item in either form (total_robot_usage,
 *   DeleteRegistryItem's in-use check), and `registry_items.platforms`: the sorted platforms of its
 *   files (a JSON array). ListRegistryItems reads both with the row, so a page is one query over
 *   its rows, where it used to run a platform query per candidate row and a scan of every part's
 *   config per module. Kept by triggers, in the transaction of each write that changes them: a ref
 *   added or removed (by a config written, or a part, machine, location or organization deleted:
 *   cascades fire them), an item created after configs named it, an organization's namespace
 *   changed (configs naming the new one count, the old one's stop counting), a file recorded. A
 *   part naming the item in both forms counts once: a ref changes the count only when the part
 *   names the item in no other form. (Triggers here, unlike on `robot_parts` (see 0012), fire only
 *   for parts whose config names modules and for registry writes.)
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

    ALTER TABLE registry_items ADD COLUMN usage INTEGER NOT NULL DEFAULT 0 CHECK (usage >= 0);
    ALTER TABLE registry_items ADD COLUMN platforms TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(platforms) AND json_type(platforms) = 'array');
    UPDATE registry_items AS r SET
      usage = ${count('r', '(SELECT public_namespace FROM organizations WHERE id = r.organization_id)')},
      platforms = (SELECT json_group_array(platform ORDER BY platform) FROM (SELECT DISTINCT platform FROM registry_files WHERE item_id = r.id));

    CREATE TRIGGER part_module_refs_added AFTER INSERT ON part_module_refs BEGIN
      UPDATE registry_items SET usage = usage + 1
       WHERE id IN (SELECT n.id FROM (${named('NEW')}) n WHERE NOT ${otherForm('NEW')});
    END;
    CREATE TRIGGER part_module_refs_removed AFTER DELETE ON part_module_refs BEGIN
      UPDATE registry_items SET usage = usage - 1
       WHERE id IN (SELECT n.id FROM (${named('OLD')}) n WHERE NOT ${otherForm('OLD')});
    END;
    CREATE TRIGGER registry_items_usage AFTER INSERT ON registry_items BEGIN
      UPDATE registry_items AS r SET usage = ${count('r', '(SELECT public_namespace FROM organizations WHERE id = r.organization_id)')} WHERE id = NEW.id;
    END;
    CREATE TRIGGER organizations_namespace_usage AFTER UPDATE OF public_namespace ON organizations
      WHEN NEW.public_namespace IS NOT OLD.public_namespace BEGIN
      UPDATE registry_items AS r SET usage = ${count('r', 'NEW.public_namespace')} WHERE organization_id = NEW.id;
    END;
    CREATE TRIGGER registry_files_platforms AFTER INSERT ON registry_files BEGIN
      UPDATE registry_items SET platforms = (SELECT json_group_array(platform ORDER BY platform) FROM (SELECT DISTINCT platform FROM registry_files WHERE item_id = NEW.item_id))
       WHERE id = NEW.item_id;
    END;
    CREATE TRIGGER registry_files_platforms_removed AFTER DELETE ON registry_files BEGIN
      UPDATE registry_items SET platforms = (SELECT json_group_array(platform ORDER BY platform) FROM (SELECT DISTINCT platform FROM registry_files WHERE item_id = OLD.item_id))
       WHERE id = OLD.item_id;
    END;
  `,
};
