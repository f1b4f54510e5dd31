import type { Migration } from '../../../db/migrate';

/**
 * An organization's default fragments (UpdateOrganization's `default_fragments`, a list of
 * FragmentImport): the fragments, in order, that the main part of a machine created in the
 * organization afterwards starts with. `version` is '' for the latest revision. An entry goes with its
 * organization, and with its fragment: DeleteFragment refuses a fragment in another organization's
 * list, so only the fragment's own organization's entries ever cascade.
 */
export const defaultFragments: Migration = {
  version: 13,
  name: 'default_fragments',
  sql: `
    CREATE TABLE organization_default_fragments (
      organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      position        INTEGER NOT NULL CHECK (position >= 0),
      fragment_id     TEXT NOT NULL REFERENCES fragments (id) ON DELETE CASCADE,
      version         TEXT NOT NULL CHECK (length(version) <= 60),
      PRIMARY KEY (organization_id, position)
    ) STRICT;
    CREATE INDEX organization_default_fragments_by_fragment ON organization_default_fragments (fragment_id, version);
  `,
};
