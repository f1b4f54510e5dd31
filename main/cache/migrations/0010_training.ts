import type { Migration } from '../../../db/migrate';

/**
 * Training jobs, so an organization's jobs can be read offline, and the jobs the user is notified
 * about when they end.
 *
 * - `training_jobs`: one row per job as the service last answered it (`job`, the bridge's
 *   TrainingJob without `watched`, as JSON); `org_id`, `status` and `created_on` are columns so the
 *   training page and the badge are answered from an index. Rows of organizations the profile no
 *   longer sees are dropped by the sync.
 * - `training_watched`: jobs this app submitted or the user asked to watch. Kept apart from the job
 *   rows, so a sync that replaces an organization's jobs never forgets who watches what, and kept
 *   across runs, so a job that ends while the app is closed is announced at the next start.
 */
export default {
  version: 10,
  name: 'training',
  sql: `
    CREATE TABLE training_jobs (
      id         TEXT PRIMARY KEY NOT NULL,
      org_id     TEXT NOT NULL,
      status     TEXT NOT NULL CHECK (status IN ('pending', 'running', 'succeeded', 'failed', 'canceling', 'canceled')),
      created_on TEXT,
      job        TEXT NOT NULL CHECK (json_valid(job)),
      cached_at  TEXT NOT NULL
    ) STRICT;
    CREATE INDEX training_jobs_by_org ON training_jobs (org_id, created_on DESC, id);
    CREATE INDEX training_jobs_by_status ON training_jobs (status, org_id);

    CREATE TABLE training_watched (
      job_id TEXT PRIMARY KEY NOT NULL,
      since  TEXT NOT NULL
    ) STRICT;
  `,
} satisfies Migration;
