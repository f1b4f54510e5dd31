import type { Migration } from '../../../db/migrate';

/**
 * The registry: items an organization publishes (modules, ML models, ML training scripts,
 * archives), their uploaded versions and files, and uploads interrupted mid-stream.
 *
 * - `registry_items`: a module is the item of type MODULE (2); its manifest (entrypoint, models,
 *   apps, first_run) lives on the item and is copied to a version when the version's first file is
 *   uploaded. Names are unique within the organization across every type. `markdown` is NULL when
 *   the item has no documentation. `models` and `apps` are JSON arrays as the wire has them.
 * - `registry_versions` / `registry_files`: one row per uploaded version, one per file (platform)
 *   of it; a file row exists only once its bytes are stored whole with their size and SHA-256, so
 *   a broken upload never shows. `version_key` orders semantic versions numerically.
 * - `registry_uploads`: the bytes an interrupted upload committed, kept so that a new stream can
 *   continue from them (docs/PROTOCOL.md section 8); at most one per file.
 */
export const registry: Migration = {
  version: 9,
  name: 'registry',
  sql: `
    CREATE TABLE registry_items (
      id              TEXT PRIMARY KEY CHECK (length(id) = 36),
      organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      name            TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 200 AND name GLOB '[a-z0-9]*' AND name NOT GLOB '*[^a-z0-9_-]*'),
      type            INTEGER NOT NULL CHECK (type IN (1, 2, 3, 5)),
      visibility      INTEGER NOT NULL DEFAULT 1 CHECK (visibility IN (1, 2, 3)),
      description     TEXT NOT NULL DEFAULT '',
      url             TEXT NOT NULL DEFAULT '',
      markdown        TEXT,
      entrypoint      TEXT NOT NULL DEFAULT '',
      models          TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(models) AND json_type(models) = 'array'),
      apps            TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(apps) AND json_type(apps) = 'array'),
      first_run       TEXT NOT NULL DEFAULT '',
      created_at      TEXT NOT NULL,
      updated_at      TEXT NOT NULL,
      UNIQUE (organization_id, name)
    ) STRICT;
    CREATE INDEX registry_items_by_visibility ON registry_items (visibility, organization_id);

    CREATE TABLE registry_versions (
      item_id     TEXT NOT NULL REFERENCES registry_items (id) ON DELETE CASCADE,
      version     TEXT NOT NULL CHECK (version GLOB '[0-9]*.[0-9]*.[0-9]*'),
      version_key TEXT NOT NULL,
      entrypoint  TEXT NOT NULL DEFAULT '',
      models      TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(models) AND json_type(models) = 'array'),
      apps        TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(apps) AND json_type(apps) = 'array'),
      uploaded_at TEXT NOT NULL,
      PRIMARY KEY (item_id, version)
    ) STRICT;
    CREATE INDEX registry_versions_in_order ON registry_versions (item_id, version_key);

    CREATE TABLE registry_files (
      item_id     TEXT NOT NULL,
      version     TEXT NOT NULL,
      platform    TEXT NOT NULL CHECK (platform GLOB '[a-z0-9]*/[a-z0-9]*'),
      size_bytes  INTEGER NOT NULL CHECK (size_bytes > 0),
      sha256      TEXT NOT NULL CHECK (length(sha256) = 64 AND sha256 NOT GLOB '*[^0-9a-f]*'),
      uploaded_at TEXT NOT NULL,
      PRIMARY KEY (item_id, version, platform),
      FOREIGN KEY (item_id, version) REFERENCES registry_versions (item_id, version) ON DELETE CASCADE
    ) STRICT;

    CREATE TABLE registry_uploads (
      item_id        TEXT NOT NULL REFERENCES registry_items (id) ON DELETE CASCADE,
      version        TEXT NOT NULL,
      platform       TEXT NOT NULL,
      committed      INTEGER NOT NULL CHECK (committed >= 0),
      started_at     TEXT NOT NULL,
      updated_at     TEXT NOT NULL,
      PRIMARY KEY (item_id, version, platform)
    ) STRICT;
  `,
};
