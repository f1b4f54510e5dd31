import type { Migration } from '../../../db/migrate';

/**
 * SELECT `lead`, then position, fragment id and version ('' for the latest) of every entry of a JSON
 * config's top-level `fragments` that names an id (a string, or an object with a string `id`); what
 * is not an array names nothing. `from` may name a table the config comes from. (For indexing the
 * parts that exist when this step runs; the stores index what they write from then on.)
 */
const refsOf = (lead: string, config: string, from = '') => `
      SELECT ${lead}, CAST(f.key AS INTEGER),
             CASE f.type WHEN 'text' THEN f.value ELSE json_extract(f.value, '$.id') END,
             CASE WHEN f.type = 'object' AND json_type(f.value, '$.version') = 'text' THEN json_extract(f.value, '$.version') ELSE '' END
        FROM ${from}json_each(${config}, '$.fragments') f
       WHERE json_type(${config}, '$.fragments') = 'array' AND (f.type = 'text' OR json_type(f.value, '$.id') = 'text')`;

/**
 * Fragments (docs/PROTOCOL.md, "Fragments"): reusable config blocks with revisions, tags and history,
 * and the index of which configs name which fragments.
 *
 * - `fragments`: one row per fragment, its current name and visibility (1 private, 2 public, as
 *   FragmentVisibility), its latest `revision` and `last_updated` (when that revision was made).
 * - `fragment_revisions`: every revision, never changed once written: the name, visibility and config
 *   it had, when it was made and by whom (the editor's name then). Revision 1 is the creation; each
 *   update adds the next. History entries are read from here (an update's entry is its revision's
 *   editor and time with the revision before as the old state), so they cannot disagree.
 * - `fragment_tags`: names of revisions; a tag moves, a revision does not.
 * - `fragment_refs` and `part_fragment_refs`: what each fragment revision's and each part's config
 *   names in its top-level `fragments` (the id, and the version asked for: '' for the latest),
 *   written by the fragment and machine stores in the same transaction as the config. They answer
 *   "which parts does this fragment reach" (robot_part_count, the in-use check on delete,
 *   ListMachineSummaries' fragment filter) from indexes instead of parsing every config. Existing
 *   parts are indexed here. (Not triggers: an AFTER INSERT trigger on robot_parts, even an empty one,
 *   made the benchmark fleet's bulk insert of 30,000 parts 40 % slower.)
 */
export const fragments: Migration = {
  version: 12,
  name: 'fragments',
  sql: `
    CREATE TABLE fragments (
      id              TEXT PRIMARY KEY CHECK (length(id) = 36),
      organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      name            TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 200 AND name = trim(name)),
      visibility      INTEGER NOT NULL CHECK (visibility IN (1, 2)),
      revision        INTEGER NOT NULL CHECK (revision >= 1),
      created_on      TEXT NOT NULL,
      last_updated    TEXT NOT NULL
    ) STRICT;
    CREATE INDEX fragments_by_org ON fragments (organization_id, name, id);

    CREATE TABLE fragment_revisions (
      fragment_id TEXT NOT NULL REFERENCES fragments (id) ON DELETE CASCADE,
      revision    INTEGER NOT NULL CHECK (revision >= 1),
      name        TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      visibility  INTEGER NOT NULL CHECK (visibility IN (1, 2)),
      config_json TEXT NOT NULL CHECK (json_valid(config_json) AND json_type(config_json) = 'object'),
      created_on  TEXT NOT NULL,
      editor_type TEXT NOT NULL CHECK (editor_type IN ('', 'user')),
      editor_id   TEXT NOT NULL CHECK (editor_id <> ''),
      editor_name TEXT NOT NULL,
      PRIMARY KEY (fragment_id, revision)
    ) STRICT;

    CREATE TABLE fragment_tags (
      fragment_id TEXT NOT NULL,
      tag         TEXT NOT NULL CHECK (length(tag) BETWEEN 1 AND 60 AND tag GLOB '[a-uw-z_-]*' AND tag NOT GLOB '*[^a-z0-9_-]*'),
      revision    INTEGER NOT NULL,
      updated_on  TEXT NOT NULL,
      PRIMARY KEY (fragment_id, tag),
      FOREIGN KEY (fragment_id, revision) REFERENCES fragment_revisions (fragment_id, revision) ON DELETE CASCADE
    ) STRICT;

    CREATE TABLE fragment_refs (
      fragment_id TEXT NOT NULL,
      revision    INTEGER NOT NULL,
      position    INTEGER NOT NULL,
      ref_id      TEXT NOT NULL,
      ref_version TEXT NOT NULL,
      PRIMARY KEY (fragment_id, revision, position),
      FOREIGN KEY (fragment_id, revision) REFERENCES fragment_revisions (fragment_id, revision) ON DELETE CASCADE
    ) STRICT;
    CREATE INDEX fragment_refs_by_ref ON fragment_refs (ref_id, ref_version);

    CREATE TABLE part_fragment_refs (
      part_id     TEXT NOT NULL REFERENCES robot_parts (id) ON DELETE CASCADE,
      position    INTEGER NOT NULL,
      -- The part's machine (a part never changes machine): ListMachineSummaries filters machines by it.
      robot_id    TEXT NOT NULL,
      fragment_id TEXT NOT NULL,
      version     TEXT NOT NULL,
      PRIMARY KEY (part_id, position)
    ) STRICT, WITHOUT ROWID;
    CREATE INDEX part_fragment_refs_by_fragment ON part_fragment_refs (fragment_id, version, part_id);
    CREATE INDEX part_fragment_refs_by_robot ON part_fragment_refs (robot_id, fragment_id, version);

    INSERT INTO part_fragment_refs (part_id, robot_id, position, fragment_id, version)
      ${refsOf('p.id, p.robot_id', 'p.config_json', 'robot_parts p, ')};
  `,
};
