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
import { isTreeHead, READER_JOBS, READER_STATS, readAheadJobs, STREAM_JOBS, streaming } from '../fleet/jobs';
import { isErrorKind } from '../../common/result';

interface Request {
  readonly id: number;
  readonly job: CacheJobName;
  readonly args: readonly unknown[];
  /** The tree reader answers with the JSON text of the value (worker-client.ts CacheWorker.read). */
  readonly text?: boolean;
}

const port = parentPort;
if (port === null) throw new Error('the cache worker runs only as a worker thread');
const { path, settings, role, readAhead } = workerData as { path: string; settings?: Readonly<Record<string, unknown>>; role?: 'reader'; readAhead?: boolean };
if (role === 'reader') serveReads(port, path, readAhead === true);
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
 * connection): a tree asked for again — a change announced twice, a second window, a launch's page
 * asking what was read ahead — is not read again.
 */
function serveReads(port: NonNullable<typeof parentPort>, path: string, readAhead: boolean): void {
  const reader = new Database(path, { fileMustExist: true, readonly: true });
  // Trees are a few MB read now and then: the default 16 MB page cache would only hold memory.
  reader.pragma('cache_size = -4000');
  reader.pragma('busy_timeout = 5000');
  /**
   * Kept answers in one form: the value as read, or, once asked as text (what the app asks: main
   * sends it on as it is), its JSON text alone — whole trees are megabytes, and the text also
   * leaves this thread as one string instead of 150,000.
   */
  const ready = new Map<string, { version: number; value: unknown; text: string | null }>();
  /** What the reader did so far (READER_STATS): reads it ran (asked or ahead), answers it gave from what it kept. */
  const stats = { read: 0, kept: 0, ahead: 0 };
  let closed = false;
  const read = (job: string, args: readonly unknown[], text: boolean, asked = true): unknown => {
    if (!READER_JOBS.has(job)) throw new Error(`${job} is not a read the tree reader runs`);
    const run = cacheJobs[job as CacheJobName] as (database: Database.Database, ...args: readonly unknown[]) => unknown;
    return reader.transaction(() => {
      const version = reader.pragma('data_version', { simple: true }) as number;
      const key = JSON.stringify([job, args]);
      let kept = ready.get(key);
      if (kept?.version === version) {
        if (asked) stats.kept++;
      } else {
        stats.read++;
        // What was kept of an older revision will never be given again: megabytes per tree.
        for (const [other, entry] of ready) if (entry.version !== version) ready.delete(other);
        kept = { version, value: run(reader, ...args), text: null };
        ready.set(key, kept);
      }
      if (!text) return kept.text === null ? kept.value : JSON.parse(kept.text);
      if (kept.text === null) {
        kept.text = JSON.stringify(kept.value);
        kept.value = null;
      }
      return kept.text;
    })();
  };
  // Requests wait here for a turn of the event loop: a page asks for every organization's head and
  // parts at once, and the heads (its first screenful) are answered before any parts, whatever the
  // order they came in. One read per turn, so that what arrives meanwhile is weighed too.
  const waiting: Request[] = [];
  let draining = false;
  const drain = () => {
    draining = false;
    if (closed) return;
    const at = waiting.findIndex((r) => isTreeHead(r.job, r.args));
    const [message] = waiting.splice(at === -1 ? 0 : at, 1);
    if (message === undefined) return;
    answer(port, message.id, () => ((message.job as string) === READER_STATS ? { ...stats } : read(message.job, message.args, message.text === true)));
    if (waiting.length > 0) schedule();
  };
  const schedule = () => {
    if (draining) return;
    draining = true;
    setImmediate(drain);
  };
  port.on('message', (message: Request | 'close') => {
    if (message === 'close') {
      closed = true;
      reader.close();
      port.close();
      return;
    }
    waiting.push(message);
    schedule();
  });
  if (!readAhead) return;
  // One read per turn too, after any request waiting. A read that fails is left to the request that
  // needs it, which says why.
  let ahead: ReturnType<typeof readAheadJobs> = [];
  try {
    ahead = readAheadJobs(reader);
  } catch {
    // A cache the reader cannot list yet: it answers what is asked, as without a read-ahead.
  }
  const next = () => {
    if (closed) return;
    if (waiting.length > 0) return void setImmediate(next);
    const item = ahead.shift();
    if (item === undefined) return;
    try {
      // Kept as the page's asks will want it: as text.
      read(item.job, item.args, true, false);
      stats.ahead++;
    } catch {
      // Nothing asked for it yet.
    }
    setImmediate(next);
  };
  setImmediate(next);
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
