/**
 * The main thread's end of the cache worker (worker.ts): jobs go out as messages and come back as
 * promises. A worker that dies fails the jobs it held and is started again for the next job, so a
 * crash there costs one sync, never the app.
 */
import { Worker } from 'node:worker_threads';
import type { ErrorKind } from '../../common/result';
import { AppError } from '../backend/errors';
import type { CacheJobName, JobArgs, JobResult } from './all-jobs';

export interface CacheWorkerOptions {
  /** The worker's entry: out/main/cache-worker.js beside the main bundle (main/cache/worker.ts in tests). */
  readonly entry: string;
  /** Node flags for the worker (tests load the TypeScript entry through tsx). */
  readonly execArgv?: readonly string[];
  readonly log?: (message: string) => void;
  /**
   * Settings for the domains' work in the worker (each WorkerTask), by name: `searchBound`, how long
   * a log search may hold the worker (logs/cache.ts SEARCH_BOUND by default; tests make it small to
   * reach it cheaply).
   */
  readonly settings?: Readonly<Record<string, unknown>>;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

export class CacheWorker {
  readonly #path: string;
  readonly #options: CacheWorkerOptions;
  #worker: Worker | null = null;
  #nextId = 1;
  readonly #pending = new Map<number, Pending>();
  #closed = false;

  constructor(path: string, options: CacheWorkerOptions) {
    this.#path = path;
    this.#options = options;
  }

  #start(): Worker {
    const worker = new Worker(this.#options.entry, { workerData: { path: this.#path, settings: this.#options.settings }, execArgv: [...(this.#options.execArgv ?? [])] });
    worker.on('message', (message: { id: number; ok: boolean; value?: unknown; error?: string; kind?: ErrorKind }) => {
      // id 0: the worker's own background work (indexing log lines) reports a failure.
      if (message.id === 0 && !message.ok) this.#options.log?.(`cache worker: ${message.error ?? 'background work failed'}`);
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
      const pending = [...this.#pending.values()];
      this.#pending.clear();
      if (pending.length > 0 || !this.#closed) this.#options.log?.(`cache worker: ${why}`);
      for (const p of pending) p.reject(new Error(`the cache worker stopped (${why})`));
    };
    worker.on('error', (e) => fail(e.message));
    worker.on('exit', (code) => fail(`exited with code ${code}`));
    // An idle worker must not keep the process alive; one with jobs under way must (see run).
    worker.unref();
    return worker;
  }

  /** Run `job` in the worker; resolves with its result. */
  run<J extends CacheJobName>(job: J, ...args: JobArgs<J>): Promise<JobResult<J>> {
    if (this.#closed) return Promise.reject(new Error('the cache is closed'));
    const worker = (this.#worker ??= this.#start());
    const id = this.#nextId++;
    return new Promise<JobResult<J>>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      worker.ref();
      worker.postMessage({ id, job, args });
    });
  }

  /** Let the jobs under way finish, then close the worker's connection and stop it. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
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
