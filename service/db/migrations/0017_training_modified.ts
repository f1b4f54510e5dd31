import type { Migration } from '../../../db/migrate';

/**
 * ListTrainingJobs' `modified_since` (issue #20): a client that keeps a copy of an organization's
 * jobs asks only for those changed since its last read, and this index lets that read seek to them
 * instead of scanning every finished job the organization ever ran.
 */
export const trainingModified: Migration = {
  version: 17,
  name: 'training_modified',
  sql: `CREATE INDEX training_jobs_by_modified ON training_jobs (organization_id, last_modified);`,
};
