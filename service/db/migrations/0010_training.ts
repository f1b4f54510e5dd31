import type { Migration } from '../../../db/migrate';

/**
 * ML training (docs/PROTOCOL.md, "ML training"): datasets, jobs, the ledger of model versions, and
 * registry versions that are free labels.
 *
 * - `training_datasets`: what a job can train on, per organization (datasets are managed outside the
 *   contract; the demo fleet fills this). `labels` is a JSON array of strings; `readable` = 0 stands
 *   for a dataset whose files cannot be read (a job on it ends FAILED).
 * - `training_jobs`: one row per job, its whole state (the runner keeps nothing in memory, so a
 *   restart resumes from the rows). `status` is the wire's TrainingStatus (1 PENDING … 6 CANCELED);
 *   times are ISO-8601 UTC (one formatter: text order is time order). A custom job names its
 *   script by the item's row id (`script_item_id`, NULL once the item is deleted) and by the wire id
 *   it had when submitted (`registry_item_id`).
 * - `training_model_versions`: every (organization, model_name, model_version) a job ever took. It
 *   is never deleted with a job, so a version stays taken; its primary key makes two submissions
 *   of the same version race-safe.
 * - `registry_versions` / `registry_files` are rebuilt with a looser version check: a trained
 *   model's version is a free label (`1`, `2026-11-25`), 1–64 characters of letters, digits, `.`,
 *   `_`, `-`, starting with a letter or digit. Uploads still require MAJOR.MINOR.PATCH (checked by
 *   the request validator). The rebuild keeps foreign keys on (the step runs in a transaction):
 *   new tables are made and filled, the old ones dropped (files first), and the new ones renamed,
 *   which rewrites the files' reference to the versions table.
 */
export const training: Migration = {
  version: 10,
  name: 'training',
  sql: `
    CREATE TABLE registry_versions_v2 (
      item_id     TEXT NOT NULL REFERENCES registry_items (id) ON DELETE CASCADE,
      version     TEXT NOT NULL CHECK (length(version) BETWEEN 1 AND 64 AND version GLOB '[A-Za-z0-9]*' AND version NOT GLOB '*[^A-Za-z0-9._-]*'),
      version_key TEXT NOT NULL,
      entrypoint  TEXT NOT NULL DEFAULT '',
      models      TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(models) AND json_type(models) = 'array'),
      apps        TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(apps) AND json_type(apps) = 'array'),
      uploaded_at TEXT NOT NULL,
      PRIMARY KEY (item_id, version)
    ) STRICT;
    INSERT INTO registry_versions_v2 (item_id, version, version_key, entrypoint, models, apps, uploaded_at)
      SELECT item_id, version, version_key, entrypoint, models, apps, uploaded_at FROM registry_versions;

    CREATE TABLE registry_files_v2 (
      item_id     TEXT NOT NULL,
      version     TEXT NOT NULL,
      platform    TEXT NOT NULL CHECK (platform GLOB '[a-z0-9]*/[a-z0-9]*'),
      size_bytes  INTEGER NOT NULL CHECK (size_bytes > 0),
      sha256      TEXT NOT NULL CHECK (length(sha256) = 64 AND sha256 NOT GLOB '*[^0-9a-f]*'),
      uploaded_at TEXT NOT NULL,
      PRIMARY KEY (item_id, version, platform),
      FOREIGN KEY (item_id, version) REFERENCES registry_versions_v2 (item_id, version) ON DELETE CASCADE
    ) STRICT;
    INSERT INTO registry_files_v2 (item_id, version, platform, size_bytes, sha256, uploaded_at)
      SELECT item_id, version, platform, size_bytes, sha256, uploaded_at FROM registry_files;

    DROP TABLE registry_files;
    DROP TABLE registry_versions;
    ALTER TABLE registry_versions_v2 RENAME TO registry_versions;
    ALTER TABLE registry_files_v2 RENAME TO registry_files;
    CREATE INDEX registry_versions_in_order ON registry_versions (item_id, version_key);

    CREATE TABLE training_datasets (
      id              TEXT PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 200),
      organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      name            TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 200 AND name = trim(name)),
      size_bytes      INTEGER NOT NULL CHECK (size_bytes >= 0),
      image_count     INTEGER NOT NULL CHECK (image_count >= 0),
      labels          TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(labels) AND json_type(labels) = 'array'),
      readable        INTEGER NOT NULL DEFAULT 1 CHECK (readable IN (0, 1)),
      created_on      TEXT NOT NULL
    ) STRICT;
    CREATE INDEX training_datasets_by_org ON training_datasets (organization_id, created_on, id);

    CREATE TABLE training_jobs (
      id                    TEXT PRIMARY KEY CHECK (length(id) = 36),
      organization_id       TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      dataset_id            TEXT NOT NULL CHECK (length(dataset_id) BETWEEN 1 AND 200),
      model_name            TEXT NOT NULL CHECK (length(model_name) BETWEEN 1 AND 200 AND model_name GLOB '[a-z0-9]*' AND model_name NOT GLOB '*[^a-z0-9_-]*'),
      model_version         TEXT NOT NULL CHECK (length(model_version) BETWEEN 1 AND 64 AND model_version GLOB '[A-Za-z0-9]*' AND model_version NOT GLOB '*[^A-Za-z0-9._-]*'),
      model_type            INTEGER NOT NULL CHECK (model_type BETWEEN 0 AND 3),
      tags                  TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(tags) AND json_type(tags) = 'array'),
      is_custom             INTEGER NOT NULL CHECK (is_custom IN (0, 1)),
      script_item_id        TEXT REFERENCES registry_items (id) ON DELETE SET NULL,
      registry_item_id      TEXT NOT NULL DEFAULT '',
      registry_item_version TEXT NOT NULL DEFAULT '',
      status                INTEGER NOT NULL CHECK (status BETWEEN 1 AND 6),
      error_code            INTEGER,
      error_message         TEXT,
      progress_percent      INTEGER NOT NULL DEFAULT 0 CHECK (progress_percent BETWEEN 0 AND 100),
      created_on            TEXT NOT NULL,
      last_modified         TEXT NOT NULL,
      training_started      TEXT,
      training_ended        TEXT,
      cancel_requested      TEXT,
      synced_model_id       TEXT NOT NULL DEFAULT '',
      CHECK (is_custom = 1 OR (registry_item_id = '' AND registry_item_version = '' AND script_item_id IS NULL)),
      CHECK ((status = 4) = (error_code IS NOT NULL))
    ) STRICT;
    CREATE INDEX training_jobs_by_org ON training_jobs (organization_id, created_on, id);
    CREATE INDEX training_jobs_by_status ON training_jobs (status, organization_id, created_on, id);

    CREATE TABLE training_model_versions (
      organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      model_name      TEXT NOT NULL,
      model_version   TEXT NOT NULL,
      job_id          TEXT NOT NULL,
      taken_at        TEXT NOT NULL,
      PRIMARY KEY (organization_id, model_name, model_version)
    ) STRICT;
  `,
};
