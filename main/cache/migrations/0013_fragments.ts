import type { Migration } from '../../../db/migrate';

/**
 * Fragments, so an organization's fragments, a fragment's revisions as read, its tags and its
 * history can be read offline.
 *
 * - `fragments`: one row per fragment as last read (listed or read one by one): its name,
 *   organization, visibility, latest revision, last_updated (the token an update sends back) and
 *   how many parts use it. `org_id`, `name` make the organization's list an index scan in the
 *   service's order (name, then id).
 * - `fragment_revisions`: every revision the service listed, with its config once that revision
 *   was read (null before): revisions never change, so a config once read stays true.
 * - `fragment_tags`: the tags as last read (a tag moves, so the whole set is replaced each time).
 * - `fragment_history`: history entries by the revision they made (immutable too: pages read in any
 *   order fit together). `entry` is the bridge's FragmentHistoryEntry as JSON.
 *
 * An organization's last full listing is in sync_state (`fragments:<org>`), a fragment's history
 * read in `fragment-history:<fragment>`.
 */
export default {
  version: 13,
  name: 'fragments',
  sql: `
    CREATE TABLE fragments (
      id              TEXT PRIMARY KEY NOT NULL,
      org_id          TEXT NOT NULL,
      org_name        TEXT NOT NULL,
      name            TEXT NOT NULL,
      visibility      TEXT NOT NULL CHECK (visibility IN ('private', 'public')),
      created_on      TEXT,
      last_updated    TEXT NOT NULL,
      latest_revision INTEGER NOT NULL CHECK (latest_revision >= 1),
      part_count      INTEGER NOT NULL CHECK (part_count >= 0),
      synced_at       TEXT NOT NULL
    ) STRICT;
    CREATE INDEX fragments_by_org ON fragments (org_id, name, id);

    CREATE TABLE fragment_revisions (
      fragment_id TEXT NOT NULL,
      revision    INTEGER NOT NULL CHECK (revision >= 1),
      created_on  TEXT,
      config      TEXT CHECK (config IS NULL OR json_valid(config)),
      PRIMARY KEY (fragment_id, revision)
    ) STRICT;

    CREATE TABLE fragment_tags (
      fragment_id TEXT NOT NULL,
      tag         TEXT NOT NULL,
      revision    INTEGER NOT NULL CHECK (revision >= 1),
      updated_on  TEXT,
      PRIMARY KEY (fragment_id, tag)
    ) STRICT;

    CREATE TABLE fragment_history (
      fragment_id TEXT NOT NULL,
      revision    INTEGER NOT NULL CHECK (revision >= 1),
      entry       TEXT NOT NULL CHECK (json_valid(entry)),
      PRIMARY KEY (fragment_id, revision)
    ) STRICT;
  `,
} satisfies Migration;
