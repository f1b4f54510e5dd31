/**
 * The cache worker thread (out/main/cache-worker.js): runs cache jobs (jobs.ts) on its own
 * connection to the profile's cache file, one at a time, in the order they arrive.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { cacheJobs, READ_JOBS, STREAM_JOBS, streaming, type CacheJobName } from './jobs';
import { indexPending, mergeIndexInSteps, mergeIndexStep, setSearchBound, type SearchBound } from '../logs/cache';
import { isErrorKind } from '../../common/result';

interface Request {
  readonly id: number;
  readonly job: CacheJobName;
  readonly args: readonly unknown[];
}

const port = parentPort;
if (port === null) throw new Error('the cache worker runs only as a worker thread');
const { path, searchBound } = workerData as { path: string; searchBound?: Partial<SearchBound> };
// The main thread created and migrated the file before starting us.
const db = new Database(path, { fileMustExist: true });
db.pragma('journal_mode = WAL');
db.pragma('foreign_keys = ON');
// As safe as the main connection in WAL mode (a power cut loses the last commits, never the file), and far fewer fsyncs.
db.pragma('synchronous = NORMAL');
// The main thread's small writes may hold the lock for a moment.
db.pragma('busy_timeout = 5000');
// Checkpoints run after each job, a job's worth of pages at a time (PASSIVE: never waiting on a
// reader), rather than whenever the log passes 1,000 pages inside whichever commit that happens to
// be: at 20,000 log lines a second those came every second and made a tail write wait for them.
db.pragma('wal_autocheckpoint = 0');

// Trees are read on a connection of their own: it sees the last committed fleet, never the half of
// one that a streamed replacement has written so far.
const reader = new Database(path, { fileMustExist: true, readonly: true });
// Trees are a few MB read now and then: the default 16 MB page cache would only hold memory.
reader.pragma('cache_size = -4000');

mergeIndexInSteps(db);
if (searchBound) setSearchBound(db, searchBound);

/** Writes that arrived while a streamed replacement was open: they run after it ends, in order. */
const deferred: Request[] = [];
/** A replacement whose caller went quiet (a switch, a crash of the sync) is rolled back after this long. */
const ABANDONED_MS = 60_000;
let abandonTimer: NodeJS.Timeout | undefined;

function execute(message: Request): void {
  try {
    const run = cacheJobs[message.job] as (database: typeof db, ...args: readonly unknown[]) => unknown;
    const value = run(message.job === 'readTree' ? reader : db, ...message.args);
    port?.postMessage({ id: message.id, ok: true, value });
  } catch (e) {
    // An expected failure (a search too broad) keeps its kind: main answers it as that, not as a bug.
    const kind = e instanceof Error && 'kind' in e && isErrorKind(e.kind) ? e.kind : undefined;
    port?.postMessage({ id: message.id, ok: false, error: e instanceof Error ? e.message : String(e), kind });
  }
}

function handle(message: Request): void {
  if (streaming(db) && !STREAM_JOBS.has(message.job) && !READ_JOBS.has(message.job)) {
    deferred.push(message);
    return;
  }
  execute(message);
  clearTimeout(abandonTimer);
  if (streaming(db)) {
    abandonTimer = setTimeout(() => {
      cacheJobs.abortFleet(db);
      drain();
    }, ABANDONED_MS);
    return;
  }
  drain();
  // The write-ahead log is copied back after every job (see wal_autocheckpoint above).
  if (!READ_JOBS.has(message.job)) db.pragma('wal_checkpoint(PASSIVE)');
  if (message.job === 'logsAppend') lastAppendMs = Date.now();
  if (message.job === 'logsAppend' || message.job === 'commitFleet') indexLater();
}

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
let indexing: NodeJS.Timeout | null = null;
let lastAppendMs = 0;
/** Steps alternate: a slice of pending lines, then a step of merging the index's segments (see mergeIndexInSteps). */
let mergeNext = false;
function indexLater(delayMs = 0): void {
  indexing ??= setTimeout(() => {
    indexing = null;
    if (streaming(db)) return; // the fleet's transaction is open; the next job schedules again
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
      port?.postMessage({ id: 0, ok: false, error: `indexing log lines failed: ${e instanceof Error ? e.message : String(e)}` });
    }
  }, delayMs);
}

function drain(): void {
  while (!streaming(db) && deferred.length > 0) handle(deferred.shift() as Request);
}

// Lines a previous run left unindexed.
indexLater();

port.on('message', (message: Request | 'close') => {
  if (message === 'close') {
    clearTimeout(abandonTimer);
    if (indexing) clearTimeout(indexing);
    cacheJobs.abortFleet(db);
    drain();
    reader.close();
    db.close();
    port.close();
    return;
  }
  handle(message);
});
