/**
 * What the cache worker does for the main thread. Every write to a profile's cache goes through a
 * job, on the worker's one connection, one job after another: the fleet's big replacements (tens of
 * thousands of rows at 10,000 machines) and reads of whole trees take too long for the main thread,
 * and a small write on the main thread would otherwise wait — blocking — for the worker's transaction
 * to finish. Small reads stay on the main thread's connection: WAL readers never wait for a writer.
 *
 * Each domain declares its own jobs (main/<domain>/jobs.ts); all-jobs.ts merges them with the
 * kernel's below, and the worker and the connection run the merged map.
 */
import type { IsoTime, JsonObject } from '../../common/schemas';
import { markSynced, type CacheDb } from './cache';
import { putMetadata, type MetadataResource } from './metadata';
import { setUiState } from './ui-state';

/** The kernel's own tables: sync marks, metadata, UI state. */
export const kernelJobs = {
  markSynced: (db: CacheDb, resource: string, at: IsoTime): void => markSynced(db, resource, at),
  putMetadata: (db: CacheDb, type: MetadataResource, id: string, metadata: JsonObject, at: IsoTime): void => putMetadata(db, type, id, metadata, at),
  setUiState: (db: CacheDb, key: string, value: unknown): void => setUiState(db, key, value),
};

/**
 * Work a domain does in the cache worker between jobs (the logs' full-text indexing), so the worker
 * itself stays generic. The worker starts each task once its connection is open: `settings` is
 * CacheWorkerOptions.settings; `report` tells the main thread of a failure; `held` is true while a
 * job's transaction stays open between jobs (a fleet replacement), when the task must not write.
 */
export type WorkerTask = (
  db: CacheDb,
  context: { readonly settings: Readonly<Record<string, unknown>>; report(message: string): void; held(): boolean },
) => {
  /** A job ran and the worker checkpointed after it (deferred while a transaction is held). */
  afterJob(job: string): void;
  /** The worker is closing: no more work. */
  stop(): void;
};
