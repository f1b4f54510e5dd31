import type { Migration } from '../../../db/migrate';

/**
 * The training page's "what changed since I last read" (main/training/cache.ts `changedTrainingJobs`,
 * every watcher round) by index: without it each round scanned every cached job of the organization,
 * a cost that grew with its finished jobs (bench/training-page.ts: 5,000 jobs).
 */
export default {
  version: 18,
  name: 'training_changed',
  sql: `
    CREATE INDEX training_jobs_by_org_cached ON training_jobs (org_id, cached_at);
  `,
} satisfies Migration;
