/**
 * The active profile's link to its service, and the cache behind it.
 *
 * Reads answer from the cache; the service fills it. A sync round pulls every registered resource
 * (organizations now; locations, machines, … as their slices land) and only then records the round
 * as `lastSyncedAt`. When the service cannot be reached the state turns `offline`, remembers since
 * when, and retries with backoff; when it answers again the state turns `online` and the banner goes.
 */
import type { ConnectionState } from '../../common/connection';
import { openCache, markSynced, syncedAt, type CacheDb } from '../cache/cache';
import type { EventBus } from '../backend/events';
import { AppError } from '../backend/errors';
import { FleetClient, type ServiceTarget } from '../grpc/client';

/** A resource kept in the cache. Slices register one each. */
export interface SyncedResource {
  readonly name: string;
  /** Pull from the service into the cache; must leave the cache whole if it throws. */
  sync(client: FleetClient, cache: CacheDb, at: string): Promise<void>;
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
}

/** The sync_state key of a complete round over every resource. */
const ROUND = 'fleet';

interface Session {
  readonly profileId: string;
  readonly address: string;
  readonly cache: CacheDb;
  readonly client: FleetClient | null;
}

export class Connection {
  readonly #options: ConnectionOptions;
  #session: Session | null = null;
  #state: ConnectionState = { profileId: null, status: 'offline', address: '', lastSyncedAt: null, offlineSince: null, nextRetryAt: null, error: null };
  #timer: NodeJS.Timeout | null = null;
  #attempt = 0;
  #syncing: Promise<void> | null = null;

  constructor(options: ConnectionOptions) {
    this.#options = options;
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
   * Make a profile the active one with its cache only: reads answer at once, the state says
   * `connecting`, and nothing touches the network. `connect` (or `markUnavailable`) follows.
   */
  open(profileId: string, cachePath: string): void {
    if (this.#session?.profileId === profileId && !this.#session.client) return;
    this.#closeSession();
    const cache = openCache(cachePath);
    this.#session = { profileId, address: '', cache, client: null };
    this.#attempt = 0;
    this.#set({ profileId, status: 'connecting', address: '', lastSyncedAt: syncedAt(cache, ROUND), offlineSince: null, nextRetryAt: null, error: null });
    for (const resource of this.#options.resources) resource.publish(cache);
  }

  /** Attach the service to the open profile and sync. Resolves when the first round is over, either way. */
  async connect(target: ServiceTarget): Promise<void> {
    const session = this.#session;
    if (!session) throw new AppError('not-found', 'No profile is active.');
    this.#clearTimer();
    session.client?.close();
    this.#session = { ...session, address: target.address, client: new FleetClient(target, { deadlineMs: this.#options.deadlineMs }) };
    this.#attempt = 0;
    this.#set({ ...this.#state, status: 'connecting', address: target.address, nextRetryAt: null });
    await this.sync().catch(() => undefined);
  }

  /**
   * The service became unreachable for a known reason (the local service was stopped): go offline
   * now instead of waiting for a call to time out. Cache reads keep working.
   */
  markUnavailable(reason: AppError): void {
    const session = this.#session;
    if (!session) return;
    this.#clearTimer();
    session.client?.close();
    this.#session = { ...session, client: null };
    this.#set({ ...this.#state, status: 'offline', offlineSince: this.#state.offlineSince ?? new Date().toISOString(), nextRetryAt: null, error: reason.toBridge() });
  }

  /** One sync round over every resource. Concurrent callers share the round in flight. */
  sync(): Promise<void> {
    this.#syncing ??= this.#round().finally(() => {
      this.#syncing = null;
    });
    return this.#syncing;
  }

  /** Try the service now (the user pressed Retry, or the local service came back). */
  async retry(): Promise<ConnectionState> {
    this.#attempt = 0;
    if (this.#session?.client) {
      if (this.#state.status === 'offline') this.#set({ ...this.#state, status: 'connecting', nextRetryAt: null });
      await this.sync().catch(() => undefined);
    }
    return this.#state;
  }

  /**
   * Run one service call for a handler. A failure to reach the service turns the state offline (and
   * is rethrown for the caller to show); success while offline brings the state back online.
   */
  async use<T>(fn: (client: FleetClient) => Promise<T>): Promise<T> {
    const session = this.#session;
    if (!session) throw new AppError('not-found', 'No profile is active.');
    if (!session.client) throw new AppError(this.#state.error?.kind ?? 'offline', this.#state.error?.message ?? 'The service cannot be reached.');
    try {
      const result = await fn(session.client);
      if (this.#state.status !== 'online' && this.#session === session) void this.sync().catch(() => undefined);
      return result;
    } catch (e) {
      if (e instanceof AppError && e.kind === 'offline' && this.#session === session) this.#goOffline(e);
      throw e;
    }
  }

  close(): void {
    this.#closeSession();
  }

  async #round(): Promise<void> {
    const session = this.#session;
    if (!session?.client) return;
    const at = new Date().toISOString();
    try {
      for (const resource of this.#options.resources) await resource.sync(session.client, session.cache, at);
      if (this.#session !== session) return; // switched away meanwhile: this result is not the active profile's
      markSynced(session.cache, ROUND, at);
      this.#attempt = 0;
      this.#set({ ...this.#state, status: 'online', lastSyncedAt: at, offlineSince: null, nextRetryAt: null, error: null });
      for (const resource of this.#options.resources) resource.publish(session.cache);
      this.#schedule(this.#options.refreshMs ?? 15_000);
    } catch (e) {
      if (this.#session !== session) return;
      const error = e instanceof AppError ? e : new AppError('internal', e instanceof Error ? e.message : String(e));
      if (error.kind === 'offline' || error.kind === 'unauthenticated') {
        this.#goOffline(error);
      } else {
        // The service answered but a sync step failed: stay online, say what failed, try again later.
        this.#options.log(`sync: ${error.message}`);
        this.#set({ ...this.#state, status: 'online', error: error.toBridge() });
        this.#schedule(this.#options.refreshMs ?? 15_000);
      }
      throw error;
    }
  }

  #goOffline(error: AppError): void {
    const min = this.#options.retryMinMs ?? 1_000;
    const max = this.#options.retryMaxMs ?? 10_000;
    const delay = Math.min(max, min * 2 ** this.#attempt);
    this.#attempt += 1;
    const now = Date.now();
    this.#set({
      ...this.#state,
      status: 'offline',
      offlineSince: this.#state.status === 'offline' && this.#state.offlineSince ? this.#state.offlineSince : new Date(now).toISOString(),
      nextRetryAt: new Date(now + delay).toISOString(),
      error: error.toBridge(),
    });
    this.#schedule(delay);
  }

  #schedule(ms: number): void {
    this.#clearTimer();
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.sync().catch(() => undefined);
    }, ms);
    this.#timer.unref();
  }

  #clearTimer(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #closeSession(): void {
    this.#clearTimer();
    const session = this.#session;
    this.#session = null;
    session?.client?.close();
    session?.cache.close();
  }

  #set(state: ConnectionState): void {
    this.#state = state;
    this.#options.events.emit('connection.changed', state);
  }
}
