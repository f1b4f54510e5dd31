/** The machines' cache jobs: liveness (cache.ts); the tree's writes are the kernel's (fleet/jobs.ts). */
import type { CacheDb } from '../cache/cache';
import { updateLiveness, type LivenessRow } from './cache';

export const machinesJobs = {
  updateLiveness: (db: CacheDb, fresh: Readonly<Record<string, LivenessRow>>): Record<string, LivenessRow> => updateLiveness(db, fresh),
};
