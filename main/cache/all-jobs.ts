/**
 * Composition root of the cache jobs, like backend/backend.ts for the handlers: the one place that
 * knows every domain's jobs. The cache worker and the connection (which runs jobs on the main thread
 * when there is no worker) run this merged map; a new domain adds its record here.
 */
import { fleetJobs, READER_JOBS } from '../fleet/jobs';
import { logsIndexer } from '../logs/indexer';
import { LOGS_READ_JOBS, logsJobs } from '../logs/jobs';
import { machinesJobs } from '../machines/jobs';
import { orgsJobs } from '../orgs/jobs';
import { trainingJobs } from '../training/jobs';
import { configJobs } from '../config/jobs';
import { fragmentsJobs } from '../fragments/jobs';
import { accessJobs } from '../access/jobs';
import type { CacheDb } from './cache';
import { kernelJobs, type WorkerTask } from './jobs';

/** Every job by name; all-jobs.test.ts proves no two records name the same job. */
export const jobRecords = [kernelJobs, fleetJobs, orgsJobs, machinesJobs, logsJobs, trainingJobs, configJobs, fragmentsJobs, accessJobs] as const;

export const cacheJobs = { ...kernelJobs, ...fleetJobs, ...orgsJobs, ...machinesJobs, ...logsJobs, ...trainingJobs, ...configJobs, ...fragmentsJobs, ...accessJobs };

/** Jobs that only read: they run even while a fleet replacement holds the write transaction open. */
export const READ_JOBS: ReadonlySet<string> = new Set([...READER_JOBS, ...LOGS_READ_JOBS]);

/** The domains' work in the worker between jobs. */
export const workerTasks: readonly WorkerTask[] = [logsIndexer];

export type CacheJobs = typeof cacheJobs;
export type CacheJobName = keyof CacheJobs;
/** A job's arguments, without the connection the worker supplies. */
export type JobArgs<J extends CacheJobName> = Parameters<CacheJobs[J]> extends [CacheDb, ...infer Rest] ? Rest : never;
export type JobResult<J extends CacheJobName> = ReturnType<CacheJobs[J]>;
