/**
 * The cache writer thread (worker.ts): runs cache jobs (all-jobs.ts) on its own connection to the
 * profile's cache file, one at a time, in the order they arrive. It knows no domain: their jobs,
 * reads and work between jobs come merged from all-jobs.ts; the fleet tree's streamed replacement
 * is the kernel's (fleet/jobs.ts).
 */
import type { MessagePort } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { cacheJobs, READ_JOBS, workerTasks } from './all-jobs';
import { READER_JOBS, STREAM_JOBS, streaming } from '../fleet/jobs';
import { answer, type Request } from './worker-messages';

export function serveJobs(port: MessagePort, path: string, settings: Readonly<Record<string, unknown>>): void {
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
