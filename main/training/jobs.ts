/** Training's cache jobs (cache.ts). */
import type { IsoTime } from '../../common/schemas';
import type { CacheDb } from '../cache/cache';
import { dropTrainingExcept, mergeTrainingJobs, putTrainingJobs, removeTrainingJobs, replaceTrainingJobs, setWatched, type TrainingWrite } from './cache';
import type { CachedJob } from './convert';

export const trainingJobs = {
  /** Training jobs read one by one; answers what changed and the watched jobs that ended. */
  trainingPut: (db: CacheDb, jobs: readonly CachedJob[], at: IsoTime): TrainingWrite => putTrainingJobs(db, jobs, at),
  /** An organization's whole list of jobs replaces its cached ones. */
  trainingReplace: (db: CacheDb, orgId: string, jobs: readonly CachedJob[], at: IsoTime): TrainingWrite => replaceTrainingJobs(db, orgId, jobs, at),
  /** The jobs the service listed as changed since the organization's last read, merged into its cached ones. */
  trainingMerge: (db: CacheDb, orgId: string, jobs: readonly CachedJob[], at: IsoTime): TrainingWrite => mergeTrainingJobs(db, orgId, jobs, at),
  trainingRemove: (db: CacheDb, ids: readonly string[]): void => removeTrainingJobs(db, ids),
  trainingDropExcept: (db: CacheDb, orgIds: readonly string[]): void => dropTrainingExcept(db, orgIds),
  trainingWatch: (db: CacheDb, jobId: string, watch: boolean, at: IsoTime): void => setWatched(db, jobId, watch, at),
};
