/**
 * The main thread's end of the cache worker (worker.ts): jobs go out as messages and come back as
 * promises. A worker that dies fails the jobs it held and is started again for the next job, so a
 * crash there costs one sync, never the app. Whole-tree reads (READER_JOBS) go to a second thread of
 * the same entry, the tree reader, so that they never queue behind the writer's jobs (a connect's
 * sync writes 10,000 machines page by page while the page asks for the trees it draws).
 */
import { Worker } from 'node:worker_threads';
import type { ErrorKind } from '../../common/result';
import { AppError } from '../backend/errors';
import { READER_JOBS, READER_STATS } from '../fleet/jobs';
import type { CacheJobName, JobArgs, JobResult } from './all-jobs';
import { READ_ON, readKey, type ReadAhead } from './worker-messages';

export interface CacheWorkerOptions {
  /** The worker's entry: out/main/cache-worker.js beside the main bundle (the tests bundle main/cache/worker.ts themselves: test/helpers/entries.ts). */
  readonly entry: string;
  /** Node flags for the worker thread. */
  readonly execArgv?: readonly string[];
  readonly log?: (message: string) => void;
  /**
   * Settings for the domains' work in the worker (each WorkerTask), by name: `searchBound`, how long
   * a log search may hold the worker (logs/cache.ts SEARCH_BOUND by default; tests make it small to
   * reach it cheaply).
   */
  readonly settings?: Readonly<Record<string, unknown>>;
  /**
   * Start the tree reader with the cache instead of on its first read. The app sets it: a thread
   * takes 0.3–1 s to start on two cores (its modules, beside the local service's start and the
   * connect's sync), and on a cold open that wait was most of the time from the page's first tree
   * call to its first screenful, while the page's own boot could have covered it. The reader then
   * also reads ahead what a page opening asks first (fleet/jobs.ts readAheadJobs) and keeps it
   * until the file changes.
   */
  readonly warm?: boolean;
  /** How long main keeps what the reader read ahead and nobody asked for (AHEAD_KEPT_MS; tests shorten it). */
  readonly aheadKeptMs?: number;
  /** How long the reader holds the read-ahead of parts when no page asks for a tree (AHEAD_HOLD_MS; tests change it). */
  readonly aheadHoldMs?: number;
}

/**
 * How long main keeps what the tree reader read ahead and nobody asked for: a launch's page asks
 * within seconds; a window that never does (closed at once) should not hold megabytes.
 */
export const AHEAD_KEPT_MS = 30_000;

/**
 * How long the tree reader holds back reading the organizations' parts ahead when no page asks for a
 * tree: it reads them once a page asks (its boot is over); a window that is slow to ask finds them
 * read all the same.
 */
export const AHEAD_HOLD_MS = 2_000;

/** What the tree reader did since it started: reads it ran (asked for or read ahead), answers it gave from what it kept, reads it made ahead. */
export interface ReaderStats {
  readonly read: number;
  readonly kept: number;
  readonly ahead: number;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** One worker thread of the cache (the writer or the tree reader) and the jobs it holds. */
class CacheThread {
  readonly #path: string;
  readonly #options: CacheWorkerOptions;
  #worker: Worker | null = null;
  #nextId = 1;
  readonly #pending = new Map<number, Pending>();
  #closed = false;

  readonly #role: 'writer' | 'reader';
  /** The reader's answers read ahead, by read key, until asked once (`takeAhead`), dropped, or AHEAD_KEPT_MS is up. */
  readonly #ahead = new Map<string, string>();
  #aheadTimer: NodeJS.Timeout | null = null;
  /** Dropped once, for good: what comes after (a restarted reader's, or read past a write) is not kept. */
  #aheadDropped = false;
  /** Whether the reader was told that a page asks for its trees (READ_ON). */
  #readOnSent = false;

  constructor(path: string, options: CacheWorkerOptions, role: 'writer' | 'reader') {
    this.#path = path;
    this.#options = options;
    this.#role = role;
  }

  #start(): Worker {
    const readAhead = this.#options.warm === true ? { holdMs: this.#options.aheadHoldMs ?? AHEAD_HOLD_MS } : undefined;
    const workerData = this.#role === 'reader' ? { path: this.#path, role: 'reader', readAhead } : { path: this.#path, settings: this.#options.settings };
    this.#readOnSent = false;
    const worker = new Worker(this.#options.entry, { workerData, execArgv: [...(this.#options.execArgv ?? [])] });
    worker.on('message', (message: { id: number; ok: boolean; value?: unknown; error?: string; kind?: ErrorKind } | ReadAhead) => {
      if ('ahead' in message) return this.#keepAhead(message);
      // id 0: the worker's own background work (indexing log lines) reports a failure.
      if (message.id === 0 && !message.ok) this.#options.log?.(`${this.#name}: ${message.error ?? 'background work failed'}`);
      const pending = this.#pending.get(message.id);
      if (!pending) return;
      this.#pending.delete(message.id);
      if (this.#pending.size === 0) worker.unref();
      if (message.ok) pending.resolve(message.value);
      else if (message.kind !== undefined) pending.reject(new AppError(message.kind, message.error ?? 'the cache worker failed'));
      else pending.reject(new Error(message.error ?? 'the cache worker failed'));
    });
    const fail = (why: string) => {
      if (this.#worker !== worker) return;
      this.#worker = null;
      this.dropAhead();
      const pending = [...this.#pending.values()];
      this.#pending.clear();
      if (pending.length > 0 || !this.#closed) this.#options.log?.(`${this.#name}: ${why}`);
      for (const p of pending) p.reject(new Error(`the cache worker stopped (${why})`));
    };
    worker.on('error', (e) => fail(e.message));
    worker.on('exit', (code) => fail(`exited with code ${code}`));
    // An idle worker must not keep the process alive; one with jobs under way must (see run).
    worker.unref();
    return worker;
  }

  #keepAhead(message: ReadAhead): void {
    if (this.#closed || this.#aheadDropped) return;
    this.#ahead.set(message.ahead, message.text);
    this.#aheadTimer ??= setTimeout(() => this.dropAhead(), this.#options.aheadKeptMs ?? AHEAD_KEPT_MS).unref();
  }

  /** The answer read ahead for `key`, once: a second ask goes to the reader (which keeps it while the file is unchanged). */
  takeAhead(key: string): string | undefined {
    // A page asks for a tree: its boot is over, the reader may read the rest ahead.
    if (!this.#readOnSent && this.#worker !== null) {
      this.#readOnSent = true;
      this.#worker.postMessage(READ_ON);
    }
    const text = this.#ahead.get(key);
    this.#ahead.delete(key);
    return text;
  }

  /** Forget what was read ahead, and keep nothing read ahead from now on (it serves a launch's first asks only). */
  dropAhead(): void {
    this.#aheadDropped = true;
    this.#ahead.clear();
    if (this.#aheadTimer) clearTimeout(this.#aheadTimer);
    this.#aheadTimer = null;
  }

  get #name(): string {
    return this.#role === 'reader' ? 'cache tree reader' : 'cache worker';
  }

  /** Start the thread now if it is not running, so that the first job does not wait for it (an idle thread keeps no process alive). */
  warm(): void {
    if (!this.#closed) this.#worker ??= this.#start();
  }

  /** Whether the thread is running. */
  get running(): boolean {
    return this.#worker !== null;
  }

  /** Run `job` in the worker; resolves with its result. */
  run<J extends CacheJobName>(job: J, ...args: JobArgs<J>): Promise<JobResult<J>> {
    return this.post(job, args) as Promise<JobResult<J>>;
  }

  /** Send the thread a request (a job, or the reader's own READER_STATS) and resolve with its answer; `text`: the reader's answer as JSON text. */
  post(job: string, args: readonly unknown[], text = false): Promise<unknown> {
    if (this.#closed) return Promise.reject(new Error('the cache is closed'));
    const worker = (this.#worker ??= this.#start());
    const id = this.#nextId++;
    return new Promise<unknown>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage(text ? { id, job, args, text } : { id, job, args });
    });
  }

  /** Let the jobs under way finish, then close the worker's connection and stop it. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.dropAhead();
    const worker = this.#worker;
    if (!worker) return;
    const settled = [...this.#pending.values()].map(
      (p) =>
        new Promise<void>((done) => {
          const { resolve, reject } = p;
          p.resolve = (v) => (resolve(v), done());
          p.reject = (e) => (reject(e), done());
        }),
    );
    await Promise.all(settled);
    worker.ref();
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.postMessage('close');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, 2_000)))]);
    clearTimeout(timer);
    if (this.#worker === worker) await worker.terminate();
    this.#worker = null;
  }
}

/**
 * The profile cache's worker threads: the writer, which runs every job in order (writer.ts), and the
 * tree reader, which runs READER_JOBS on a read-only connection beside it (tree-reader.ts). Each starts on its first
 * job (the reader with the cache when `warm` is set) and is restarted after a crash.
 */
export class CacheWorker {
  readonly #writer: CacheThread;
  readonly #reader: CacheThread;

  constructor(path: string, options: CacheWorkerOptions) {
    this.#writer = new CacheThread(path, options, 'writer');
    this.#reader = new CacheThread(path, options, 'reader');
    if (options.warm === true) this.#reader.warm();
  }

  /** What the tree reader did since it (last) started: the bench tells a read-ahead that served a cold open from one that came too late. */
  readerStats(): Promise<ReaderStats> {
    return this.#reader.post(READER_STATS, []) as Promise<ReaderStats>;
  }

  /** Which threads are running now (a thread starts on its first job, and stops on a crash until the next). */
  get running(): { readonly writer: boolean; readonly reader: boolean } {
    return { writer: this.#writer.running, reader: this.#reader.running };
  }

  /** Run `job` in the worker (a whole-tree read in the tree reader); resolves with its result. */
  run<J extends CacheJobName>(job: J, ...args: JobArgs<J>): Promise<JobResult<J>> {
    return (READER_JOBS.has(job) ? this.#reader : this.#writer).run(job, ...args);
  }

  /**
   * A whole-tree read (READER_JOBS) as the JSON text of its result, serialized in the tree reader
   * and kept there as text: what the bridge sends on without parsing or writing it again on main's
   * thread (backend/serialized.ts).
   */
  read<J extends CacheJobName>(job: J, ...args: JobArgs<J>): Promise<string> {
    if (!READER_JOBS.has(job)) return Promise.reject(new Error(`${job} is not a read the tree reader runs`));
    return this.#reader.post(job, args, true) as Promise<string>;
  }

  /**
   * What the tree reader read ahead for this read (a launch's head or parts of an organization), as
   * JSON text, once; undefined when it has not (yet). It stands for the file as the reader read it:
   * the caller uses it only if nothing was written since (connection.ts Session.read), else drops
   * them all (`dropAhead`).
   */
  takeAhead<J extends CacheJobName>(job: J, ...args: JobArgs<J>): string | undefined {
    return READER_JOBS.has(job) ? this.#reader.takeAhead(readKey(job, args)) : undefined;
  }

  /** Forget what the reader read ahead (the file changed since), and keep no more of it. */
  dropAhead(): void {
    this.#reader.dropAhead();
  }

  /** Let the jobs under way finish, then close both threads' connections and stop them. */
  async close(): Promise<void> {
    await Promise.all([this.#writer.close(), this.#reader.close()]);
  }
}
