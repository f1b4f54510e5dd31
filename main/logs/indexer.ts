/**
 * The logs' work in the cache worker between jobs (a WorkerTask): the full-text index, and the
 * search bound the main thread set.
 */
import type { WorkerTask } from '../cache/jobs';
import { indexPending, mergeIndexInSteps, mergeIndexStep, setSearchBound, type SearchBound } from './cache';

/**
 * Cached log lines wait for the full-text index (migration 0007); it is built here in slices
 * between jobs, so a job that arrives waits for at most one slice (150 lines: ~1.5 ms on average,
 * 15 ms at worst on a small machine's core; a tailed line's latency includes that wait). The
 * trigram index costs ~6–9 µs a line in such slices (it seemed ~80 µs while each slice also counted
 * the pending queue, a scan of up to millions of keys). While lines keep arriving, slices take at
 * most a third of this thread's time (a pause twice the slice's length after each), so indexing
 * never starves the tails, the views or the other processes of the cores; searches take the lines
 * still pending by scan, and the index catches up at full speed once the lines slow down.
 */
const INDEX_SLICE = 150;
/** While logsAppend jobs came this recently, indexing is paced. */
const BUSY_MS = 1_000;

export const logsIndexer: WorkerTask = (db, { settings, report, held }) => {
  let indexing: NodeJS.Timeout | null = null;
  let lastAppendMs = 0;
  /** Steps alternate: a slice of pending lines, then a step of merging the index's segments (see mergeIndexInSteps). */
  let mergeNext = false;
  const indexLater = (delayMs = 0): void => {
    indexing ??= setTimeout(() => {
      indexing = null;
      if (held()) return; // the fleet's transaction is open; the next job schedules again
      try {
        const startedMs = performance.now();
        const merging = mergeNext;
        const worked = merging ? mergeIndexStep(db) : indexPending(db, INDEX_SLICE) > 0;
        if (worked) db.pragma('wal_checkpoint(PASSIVE)');
        const tookMs = performance.now() - startedMs;
        // After a slice, a merge step; after a merge step, a slice. With no lines pending and nothing
        // to merge, indexing stops until the next append.
        mergeNext = !merging;
        if (worked || !merging) indexLater(Date.now() - lastAppendMs < BUSY_MS ? 2 * tookMs : 0);
      } catch (e) {
        report(`indexing log lines failed: ${e instanceof Error ? e.message : String(e)}`);
      }
    }, delayMs);
  };

  mergeIndexInSteps(db);
  const searchBound = settings.searchBound as Partial<SearchBound> | undefined;
  if (searchBound) setSearchBound(db, searchBound);
  // Lines a previous run left unindexed.
  indexLater();

  return {
    afterJob(job) {
      if (job === 'logsAppend') lastAppendMs = Date.now();
      // A fleet replacement held the write transaction: indexing waited for its commit.
      if (job === 'logsAppend' || job === 'commitFleet') indexLater();
    },
    stop() {
      if (indexing) clearTimeout(indexing);
      indexing = null;
    },
  };
};
