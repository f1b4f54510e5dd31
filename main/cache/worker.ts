/**
 * The cache worker thread (out/main/cache-worker.js): runs cache jobs (all-jobs.ts) on its own
 * connection to the profile's cache file, one at a time, in the order they arrive. It knows no
 * domain: their jobs, reads and work between jobs come merged from all-jobs.ts; the fleet tree's
 * streamed replacement is the kernel's (fleet/jobs.ts).
 *
 * Started with `role: 'reader'`, the same entry is the tree reader instead: a second thread with a
 * read-only connection that runs only READER_JOBS, so that reading a whole tree never waits in the
 * writer's queue behind a sync's page writes (WAL lets it read beside the writer).
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { cacheJobs, READ_JOBS, workerTasks, type CacheJobName } from './all-jobs';
import { READER_JOBS, STREAM_JOBS, streaming } from '../fleet/jobs';
import { isErrorKind } from '../../common/result';

interface Request {
  readonly id: number;
  readonly job: CacheJobName;
  readonly args: readonly unknown[];
}

const port = parentPort;
if (port === null) throw new Error('the cache worker runs only as a worker thread');
const { path, settings, role } = workerData as { path: string; settings?: Readonly<Record<string, unknown>>; role?: 'reader' };
if (role === 'reader') serveReads(port, path);
else serveJobs(port, path, settings ?? {});

/** A job's answer, or its failure with its kind if it has one. */
function answer(port: NonNullable<typeof parentPort>, id: number, work: () => unknown): void {
  try {
    port.postMessage({ id, ok: true, value: work() });
  } catch (e) {
    // An expected failure (a search too broad) keeps its kind: main answers it as that, not as a bug.
    const kind = e instanceof Error && 'kind' in e && isErrorKind(e.kind) ? e.kind : undefined;
    port.postMessage({ id, ok: false, error: e instanceof Error ? e.message : String(e), kind });
  }
}

/**
 * The tree reader: each job in one read transaction (its statements see one committed state, as
 * they did when the reads ran between the writer's jobs), and the last answer per job and
 * arguments kept while the file is unchanged (`data_version` moves with every commit of another
 * connection): a tree asked for again — a change announced twice, a second window — is not read again.
 */
function serveReads(port: NonNullable<typeof parentPort>, path: string): void {
  const reader = new Database(path, { fileMustExist: true, readonly: true });
  // Trees are a few MB read now and then: the default 16 MB page cache would only hold memory.
  reader.pragma('cache_size = -4000');
  reader.pragma('busy_timeout = 5000');
  const ready = new Map<string, { version: number; value: unknown }>();
  port.on('message', (message: Request | 'close') => {
    if (message === 'close') {
      reader.close();
      port.close();
      return;
    }
    answer(port, message.id, () => {
      if (!READER_JOBS.has(message.job)) throw new Error(`${message.job} is not a read the tree reader runs`);
      const run = cacheJobs[message.job] as (database: Database.Database, ...args: readonly unknown[]) => unknown;
      return reader.transaction(() => {
        const version = reader.pragma('data_version', { simple: true }) as number;
        const key = JSON.stringify([message.job, message.args]);
        const kept = ready.get(key);
        if (kept?.version === version) return kept.value;
        const value = run(reader, ...message.args);
        ready.set(key, { version, value });
        return value;
      })();
    });
  });
}

function serveJobs(port: NonNullable<typeof parentPort>, path: string, settings: Readonly<Record<string, unknown>>): void {
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

  const tasks = workerTasks.map((start) =>
    start(db, {
      settings,
      report: (error) => port.postMessage({ id: 0, ok: false, error }),
      held: () => streaming(db),
    }),
  );

  /** Writes that arrived while a streamed replacement was open: they run after it ends, in order. */
  const deferred: Request[] = [];
  /** A replacement whose caller went quiet (a switch, a crash of the sync) is rolled back after this long. */
  const ABANDONED_MS = 60_000;
  let abandonTimer: NodeJS.Timeout | undefined;

  function execute(message: Request): void {
    const run = cacheJobs[message.job] as (database: typeof db, ...args: readonly unknown[]) => unknown;
    answer(port, message.id, () => run(READER_JOBS.has(message.job) ? reader : db, ...message.args));
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
    for (const task of tasks) task.afterJob(message.job);
  }

  function drain(): void {
    while (!streaming(db) && deferred.length > 0) handle(deferred.shift() as Request);
  }

  port.on('message', (message: Request | 'close') => {
    if (message === 'close') {
      clearTimeout(abandonTimer);
      for (const task of tasks) task.stop();
      cacheJobs.abortFleet(db);
      drain();
      reader.close();
      db.close();
      port.close();
      return;
    }
    handle(message);
  });
}
