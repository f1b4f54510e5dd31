/**
 * The active profile's link to its service, and the cache behind it.
 *
 * Reads answer from the cache; the service fills it. A sync round pulls every registered resource
 * (organizations now; locations, machines, … as their slices land) and only then records the round
 * as `lastSyncedAt`. When the service cannot be reached the state turns `offline`, remembers since
 * when, and retries with backoff; when it answers again the state turns `online` and the banner goes.
 *
 * Each profile activation is a session with its own cache handle, client, sync round and timers.
 * Switching retires the old session: nothing it finishes later touches the new one's state, and its
 * client and cache stay open until the calls already under way have settled (a write the service
 * received is never reported as dropped just because the user switched profiles).
 */
import type { ConnectionState, SyncProgress } from '../../common/connection';
import { openCache, syncedAt, type CacheDb } from '../cache/cache';
import { cacheJobs, type CacheJobName, type JobArgs, type JobResult } from '../cache/all-jobs';
import { CacheWorker, type CacheWorkerOptions, type ReaderStats } from '../cache/worker-client';
import type { EventBus } from '../backend/events';
import { AppError } from '../backend/errors';
import { FleetClient, type ServiceTarget } from '../grpc/client';
import { ProfileScopes, type ProfileScoped } from './profile-scoped';

/** Runs a cache job: in the session's worker thread when it has one, else on this thread. */
export type CacheRunner = <J extends CacheJobName>(job: J, ...args: JobArgs<J>) => Promise<JobResult<J>>;

/** What a resource's sync may use besides the client and the cache. */
export interface SyncTools {
  /** Heavy cache work (thousands of rows): off the main thread. */
  readonly run: CacheRunner;
  /** Report how far the round got (merged into ConnectionState.sync). */
  readonly progress: (update: Partial<Omit<SyncProgress, 'startedAt'>>) => void;
  /** True for a round the user or a (re)connection asked for; false for the periodic refresh. */
  readonly forced: boolean;
}

/** A resource kept in the cache. Slices register one each. */
export interface SyncedResource {
  /** For logs: which resource a failed sync was about. */
  readonly name: string;
  /** Pull from the service into the cache; must leave the cache whole if it throws. */
  sync(client: FleetClient, cache: CacheDb, at: string, tools: SyncTools): Promise<void>;
  /** Tell the renderer what the cache holds now (after a switch or a sync). */
  publish(cache: CacheDb): void;
}

export interface ConnectionOptions {
  readonly events: EventBus;
  readonly resources: readonly SyncedResource[];
  readonly log: (message: string) => void;
  /** Backoff between retries while offline. */
  readonly retryMinMs?: number;
  readonly retryMaxMs?: number;
  /** How often an online profile is re-synced, so other clients' changes show up. */
  readonly refreshMs?: number;
  readonly deadlineMs?: number;
  /** Where the cache worker's entry is; without it cache jobs run on the main thread (unit tests). */
  readonly cacheWorker?: CacheWorkerOptions;
}

/** Progress is published at most this often (a sync of thousands of machines reports many pages). */
const PROGRESS_EVERY_MS = 250;

/** What the renderer shows when the key is refused: the service's words, and what to do. */
function keyRefused(message: string): string {
  if (/Enter a new key/.test(message)) return message;
  return `${message.replace(/ Check the key id and key of this profile\.$/, '')} It may have been deleted or rotated elsewhere: enter this profile’s new key to go on. Meanwhile you see the cached fleet.`;
}

/** The sync_state key of a complete round over every resource. */
const ROUND = 'fleet';

/** Where a SQLite file stands for one connection: commits by others move `version`, its own `changes`. */
interface FileState {
  readonly version: number;
  readonly changes: number;
}

function fileState(db: CacheDb): FileState {
  return { version: db.pragma('data_version', { simple: true }) as number, changes: db.prepare('SELECT total_changes()').pluck().get() as number };
}

class Session {
  client: FleetClient | null = null;
  syncing: Promise<void> | null = null;
  timer: NodeJS.Timeout | null = null;
  attempt = 0;
  /** Calls under way through `use()`; a retired session closes when they are done. */
  inflight = 0;
  retired = false;

  /** The next round is one asked for (connect, retry, refresh), not the periodic one. */
  forceNext = true;

  constructor(
    readonly profileId: string,
    readonly cache: CacheDb,
    readonly worker: CacheWorker | null,
    /** The cache file as it was before `worker` (and its tree reader) started (see `#unwritten`). */
    readonly opened: FileState,
  ) {}

  /**
   * Whether nothing was written to the cache file since `opened`: not by the worker's writer or any
   * other connection (`data_version` moves), nor on this one (`total_changes`). `opened` was taken
   * before the tree reader started, so all it read ahead was read after it: those answers stand for
   * the file only while this holds.
   */
  #unwritten(): boolean {
    const now = fileState(this.cache);
    return now.version === this.opened.version && now.changes === this.opened.changes;
  }

  /** Run a cache job in the worker, or here when there is none. */
  run<J extends CacheJobName>(job: J, ...args: JobArgs<J>): Promise<JobResult<J>> {
    if (this.worker) return this.worker.run(job, ...args);
    const fn = cacheJobs[job] as unknown as (db: CacheDb, ...rest: JobArgs<J>) => JobResult<J>;
    try {
      return Promise.resolve(fn(this.cache, ...args));
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
  }

  /** A whole-tree read as JSON text: serialized in the tree reader, or here when there is no worker. */
  async read<J extends CacheJobName>(job: J, ...args: JobArgs<J>): Promise<string> {
    if (!this.worker) return JSON.stringify(await this.run(job, ...args));
    // A launch's page asks for what the reader read ahead: answered here, without waiting for the
    // reader's next turn (it may be reading the next organization's parts, 0.1 s at 10,000 machines).
    const ahead = this.worker.takeAhead(job, ...args);
    if (ahead !== undefined) {
      if (this.#unwritten()) return ahead;
      this.worker.dropAhead();
    }
    return this.worker.read(job, ...args);
  }

  clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Replace the client; the old one closes once no call uses it. */
  setClient(client: FleetClient | null): void {
    const old = this.client;
    this.client = client;
    if (old && this.inflight === 0) old.close();
    else if (old) this.#closeLater.push(old);
  }

  retire(): void {
    this.retired = true;
    this.clearTimer();
    this.settle();
  }

  /** Close what is no longer needed: everything, once retired and idle. */
  settle(): void {
    if (this.inflight > 0) return;
    for (const client of this.#closeLater.splice(0)) client.close();
    if (this.retired && !this.#closing) {
      this.client?.close();
      this.client = null;
      if (this.cache.open) this.cache.close();
      this.#closing = (this.worker?.close() ?? Promise.resolve()).catch(() => undefined).then(() => this.#release());
    }
  }

  /**
   * Settles once a retired session has let go of its cache files (its calls done, its worker's
   * connection closed), so they can be deleted without a late write recreating them.
   */
  get released(): Promise<void> {
    return this.#released;
  }

  readonly #closeLater: FleetClient[] = [];
  #closing: Promise<void> | null = null;
  #release: () => void = () => undefined;
  readonly #released = new Promise<void>((resolve) => (this.#release = resolve));
}

export class Connection {
  readonly #options: ConnectionOptions;
  #session: Session | null = null;
  #state: ConnectionState = { profileId: null, status: 'offline', address: '', lastSyncedAt: null, offlineSince: null, nextRetryAt: null, error: null, sync: null };
  #progressAt = 0;
  readonly #scopes = new ProfileScopes();

  constructor(options: ConnectionOptions) {
    this.#options = options;
  }

  /** Tell `scoped` whenever the active profile changes (before the change is announced); returns the function that stops it. */
  scope(scoped: ProfileScoped): () => void {
    return this.#scopes.add(scoped);
  }

  get state(): ConnectionState {
    return this.#state;
  }

  /** The active profile's cache. Throws when no profile is active. */
  get cache(): CacheDb {
    if (!this.#session) throw new AppError('not-found', 'No profile is active. Add a profile or start the local service.');
    return this.#session.cache;
  }

  get profileId(): string | null {
    return this.#session?.profileId ?? null;
  }

  /**
   * Run a cache job for the active profile, off the main thread when it has a worker. Reads of
   * thousands of rows (a big organization's tree) go through here.
   */
  runCache<J extends CacheJobName>(job: J, ...args: JobArgs<J>): Promise<JobResult<J>> {
    if (!this.#session) return Promise.reject(new AppError('not-found', 'No profile is active. Add a profile or start the local service.'));
    return this.#session.run(job, ...args);
  }

  /** {@link runCache} of a whole-tree read (READER_JOBS), answered as JSON text to send on as it is. */
  readCache<J extends CacheJobName>(job: J, ...args: JobArgs<J>): Promise<string> {
    if (!this.#session) return Promise.reject(new AppError('not-found', 'No profile is active. Add a profile or start the local service.'));
    return this.#session.read(job, ...args);
  }

  /**
   * What the active profile's tree reader did since it started (reads, answers kept, reads ahead);
   * null without a profile or a worker. Tests tell a launch's asks answered from the read-ahead from
   * asks read again.
   */
  readerStats(): Promise<ReaderStats | null> {
    const worker = this.#session?.worker;
    return worker ? worker.readerStats() : Promise.resolve(null);
  }

  /**
   * The active session's profile, client and cache runner, for work that outlives a call (a log
   * tail): writes through this `run` land in the profile the work started on, even after a switch.
   */
  current(): { readonly profileId: string; readonly client: FleetClient | null; readonly run: CacheRunner } | null {
    const session = this.#session;
    if (!session) return null;
    return { profileId: session.profileId, client: session.client, run: (job, ...args) => session.run(job, ...args) };
  }

  /** Whether the active profile has a service to call (false while its key is missing or its local service is down). */
  get hasService(): boolean {
    return this.#session?.client != null;
  }

  /**
   * Make a profile the active one with its cache only: reads answer at once, the state says
   * `connecting`, and nothing touches the network. `connect` (or `markUnavailable`) follows.
   * The new cache is opened before the old session is retired, so a failure leaves the old one active.
   */
  open(profileId: string, cachePath: string): void {
    const current = this.#session;
    if (current?.profileId === profileId && !current.client) return;
    const cache = openCache(cachePath, this.#options.log);
    // Before the worker's tree reader starts: what it reads ahead must have been read after this.
    const opened = fileState(cache);
    const worker = this.#options.cacheWorker && cachePath !== ':memory:' ? new CacheWorker(cachePath, { log: this.#options.log, ...this.#options.cacheWorker }) : null;
    const session = new Session(profileId, cache, worker, opened);
    current?.retire();
    this.#session = session;
    this.#set({ profileId, status: 'connecting', address: '', lastSyncedAt: syncedAt(session.cache, ROUND), offlineSince: null, nextRetryAt: null, error: null, sync: null });
    for (const resource of this.#options.resources) resource.publish(session.cache);
  }

  /**
   * Attach the service to the open profile and start a sync round. The returned promise settles when
   * that first round is over, either way; callers that need no answer need not wait for it.
   */
  connect(profileId: string, target: ServiceTarget): Promise<void> {
    const session = this.#session;
    if (!session || session.profileId !== profileId) return Promise.resolve(); // switched away meanwhile
    session.clearTimer();
    session.setClient(new FleetClient(target, { deadlineMs: this.#options.deadlineMs }));
    session.syncing = null; // a round of the previous client must not stand in for this one
    session.attempt = 0;
    session.forceNext = true;
    this.#set({ ...this.#state, status: 'connecting', address: target.address, nextRetryAt: null, error: null });
    return this.#sync(session).catch(() => undefined);
  }

  /**
   * The profile's service became unreachable for a known reason (its local service stopped, its key
   * is missing): go offline now instead of waiting for a call to time out. Cache reads keep working.
   * Ignored when `profileId` is no longer the active profile.
   */
  markUnavailable(profileId: string, reason: AppError): void {
    const session = this.#session;
    if (!session || session.profileId !== profileId) return;
    session.clearTimer();
    session.setClient(null);
    this.#set({ ...this.#state, status: 'offline', offlineSince: this.#state.offlineSince ?? new Date().toISOString(), nextRetryAt: null, error: reason.toBridge(), sync: null });
  }

  /** One full sync round of the active profile (the user asked). Concurrent callers share the round in flight. */
  sync(): Promise<void> {
    const session = this.#session;
    if (!session) return Promise.reject(new AppError('not-found', 'No profile is active.'));
    session.forceNext = true;
    return this.#sync(session);
  }

  /** Try the service now (the user pressed Retry, or the local service came back). */
  async retry(): Promise<ConnectionState> {
    const session = this.#session;
    if (session?.client) {
      session.attempt = 0;
      session.forceNext = true;
      if (this.#state.status === 'offline' || this.#state.status === 'needs-key') this.#set({ ...this.#state, status: 'connecting', nextRetryAt: null });
      await this.#sync(session).catch(() => undefined);
    }
    return this.#state;
  }

  /**
   * Run one service call for a handler, with the session's own client and cache (a handler that
   * writes its answer to the cache writes it to the profile it asked, even if the user switched
   * meanwhile). A failure to reach the service turns the state offline and is rethrown for the caller
   * to show; success while offline brings the state back online.
   */
  async use<T>(fn: (client: FleetClient, cache: CacheDb, run: CacheRunner) => Promise<T>): Promise<T> {
    const session = this.#session;
    if (!session) throw new AppError('not-found', 'No profile is active.');
    const client = session.client;
    if (!client) throw new AppError(this.#state.error?.kind ?? 'offline', this.#state.error?.message ?? 'The service cannot be reached.');
    // The key was refused: no call signs in again until a new key is given or a retry step comes (one sign-in per step, not one per click).
    if (this.#state.status === 'needs-key' && this.#session === session) throw new AppError('unauthenticated', this.#state.error?.message ?? 'The service refused this profile’s API key. Enter a new key.');
    session.inflight += 1;
    try {
      const result = await fn(client, session.cache, (job, ...args) => session.run(job, ...args));
      if (this.#session === session && this.#state.status !== 'online') void this.#sync(session).catch(() => undefined);
      return result;
    } catch (e) {
      if (e instanceof AppError && this.#session === session && session.client === client) {
        if (e.kind === 'offline') this.#goOffline(session, e);
        else if (e.kind === 'unauthenticated') this.#needKey(session, e);
      }
      throw e;
    } finally {
      session.inflight -= 1;
      session.settle();
    }
  }

  /** Retire the active profile's session; resolves once its cache files are released. */
  close(): Promise<void> {
    const session = this.#session;
    session?.retire();
    this.#session = null;
    return session?.released ?? Promise.resolve();
  }

  #sync(session: Session): Promise<void> {
    session.syncing ??= this.#round(session).finally(() => {
      session.syncing = null;
    });
    return session.syncing;
  }

  async #round(session: Session): Promise<void> {
    const client = session.client;
    if (!client) return;
    // A round is a step of the backoff (or the user's retry): the one sign-in it may make.
    client.allowSignIn();
    const at = new Date().toISOString();
    const current = () => this.#session === session && session.client === client;
    const forced = session.forceNext;
    session.forceNext = false;
    let progress: SyncProgress = { startedAt: at, orgsDone: 0, orgsTotal: 0, machines: 0 };
    const tools: SyncTools = {
      run: (job, ...args) => session.run(job, ...args),
      forced,
      progress: (update) => {
        progress = { ...progress, ...update };
        if (!current()) return;
        const now = Date.now();
        // Organizations done are few and always told; machine counts come with every page and are thinned out.
        const step = update.orgsDone !== undefined || update.orgsTotal !== undefined;
        if (!step && now - this.#progressAt < PROGRESS_EVERY_MS) return;
        this.#progressAt = now;
        this.#set({ ...this.#state, sync: progress });
      },
    };
    if (current()) this.#set({ ...this.#state, sync: progress });
    session.inflight += 1;
    try {
      for (const resource of this.#options.resources) {
        try {
          await resource.sync(client, session.cache, at, tools);
        } catch (e) {
          throw e instanceof AppError ? e : new AppError('internal', `Could not sync ${resource.name}: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
      if (!current()) return; // switched away or reconnected meanwhile: this result is not the active one's
      await session.run('markSynced', ROUND, at);
      session.attempt = 0;
      this.#set({ ...this.#state, status: 'online', lastSyncedAt: at, offlineSince: null, nextRetryAt: null, error: null, sync: null });
      for (const resource of this.#options.resources) resource.publish(session.cache);
      this.#schedule(session, this.#options.refreshMs ?? 15_000);
    } catch (e) {
      if (!current()) return;
      const error = e as AppError;
      if (error.kind === 'offline') {
        this.#goOffline(session, error);
      } else if (error.kind === 'unauthenticated') {
        this.#needKey(session, error);
      } else {
        // The service answered but a sync step failed: stay online, say what failed, try again later.
        this.#options.log(`sync: ${error.message}`);
        this.#set({ ...this.#state, status: 'online', error: error.toBridge(), sync: null });
        this.#schedule(session, this.#options.refreshMs ?? 15_000);
      }
      throw error;
    } finally {
      session.inflight -= 1;
      session.settle();
    }
  }

  #goOffline(session: Session, error: AppError): void {
    this.#backOff(session, error, 'offline');
  }

  /**
   * The service refused the key (the client already signed in again once, so it is the key, not an
   * expired token): say `needs-key` so the renderer asks for a new one, and try again only on the
   * backoff's steps, each one round with one sign-in (`use` refuses at once meanwhile): a key
   * deleted or rotated elsewhere costs the service one Authenticate per step, never a storm.
   */
  #needKey(session: Session, error: AppError): void {
    if (this.#state.status === 'needs-key' && session.timer) return; // already asking; the step under way stands
    this.#backOff(session, new AppError('unauthenticated', keyRefused(error.message)), 'needs-key');
  }

  #backOff(session: Session, error: AppError, status: 'offline' | 'needs-key'): void {
    const min = this.#options.retryMinMs ?? 1_000;
    const max = this.#options.retryMaxMs ?? 10_000;
    const delay = Math.min(max, min * 2 ** session.attempt);
    session.attempt += 1;
    const now = Date.now();
    const away = this.#state.status === 'offline' || this.#state.status === 'needs-key';
    this.#set({
      ...this.#state,
      status,
      offlineSince: away && this.#state.offlineSince ? this.#state.offlineSince : new Date(now).toISOString(),
      nextRetryAt: new Date(now + delay).toISOString(),
      error: error.toBridge(),
      sync: null,
    });
    this.#schedule(session, delay);
  }

  #schedule(session: Session, ms: number): void {
    session.clearTimer();
    if (session.retired) return;
    session.timer = setTimeout(() => {
      session.timer = null;
      void this.#sync(session).catch(() => undefined);
    }, ms);
    session.timer.unref();
  }

  #set(state: ConnectionState): void {
    this.#state = state;
    this.#scopes.announce(state.profileId);
    this.#options.events.emit('connection.changed', state);
  }
}
