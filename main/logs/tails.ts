/**
 * Log views and the live tails behind them. A view names parts; each part is tailed once however
 * many views show it (TailRobotPartLogs, every level), and what arrives is written to the cache in
 * batches — one cache job per FLUSH_MS for all parts — whose answer carries one update per changed
 * view: the renderer gets at most one `logs.view` message per view per batch, never one per line.
 *
 * A stream that breaks (service restart, network loss) is reopened with backoff; the gap is filled
 * from GetRobotPartLogs since the newest entry held, once when the stream reopens and again when its
 * first message arrives (the subscription may have taken effect after the first fill), and entries
 * already cached are skipped by identity: the cache ends with no gap and no duplicate. Each break is
 * kept as an outage (from, to, lines filled) for the view to show.
 */
import { DEFAULT_RETENTION, type LogFilter, type LogRetention, type LogViewState, type LogViewUpdate, type TailStatus, type TailStatuses } from '../../common/logs';
import { GetRobotPartLogsRequest } from '../../proto/gen/fleet/app/v1/logs';
import { AppError } from '../backend/errors';
import type { EventBus } from '../backend/events';
import type { CacheDb } from '../cache/cache';
import type { CacheRunner, Connection } from '../connection/connection';
import type { ProfileScoped } from '../connection/profile-scoped';
import { LONG_DEADLINE_MS, rawUnary, type FleetClient } from '../grpc/client';
import { AppServiceService } from '../../proto/gen/fleet/app/v1/app';
import type { LogPartInfo } from './cache';
import { packMessages, scanLogsPage } from './convert';

/**
 * How often tailed lines are written to the cache and views are told (one job for every part):
 * under an animation frame and a half, so a view still gets at most one update per frame at 60 Hz
 * and less, while a line waits 12 ms for its write on average (it was 50 ms: a quarter of the
 * 250 ms latency budget, at 20,000 lines a second, went to waiting for the next write).
 */
export const FLUSH_MS = 25;
/**
 * Entries fetched when a view first opens, and per "load older" step: for all its parts together
 * (each part at least MIN_PART_HISTORY), so a location of 150 parts opens as fast as one part.
 */
export const HISTORY_PAGE = 1000;
const MIN_PART_HISTORY = 100;
/** Fetches of history and gap fills under way at once (a merged view opens its parts a few at a time). */
const FETCHES_AT_ONCE = 4;

/** How many entries of history to fetch per part for a view of `parts` parts. */
export function historyPerPart(parts: number): number {
  return Math.max(MIN_PART_HISTORY, Math.ceil(HISTORY_PAGE / Math.max(1, parts)));
}
/** A gap fill stops after this many entries (the service keeps 20,000 per part). */
const MAX_FILL = 20_000;
/** Outages kept per part. */
const MAX_OUTAGES = 10;
/**
 * Tailed bytes queued beyond which arriving messages are dropped (each part's first drop noted)
 * until the cache worker has written the queue down to half; then each part that lost messages
 * fetches them with one gap fill, from its newest written line at that moment. Main's memory stays
 * bounded however far the cache falls behind. (Refilling at once, while the queue was still full,
 * fed back on itself: each fill re-fetched what was still queued and overflowed it again.)
 */
const MAX_QUEUED_BYTES = 16 * 1024 * 1024;
/**
 * Bytes of queued lines one cache write takes at most (about 25,000 lines): however far behind the
 * cache is, a write stays a fraction of a second, so views keep moving and the worker stays free for
 * reads between writes. (Unbounded, a write after a burst of gap fills took seconds, the tails
 * overflowed meanwhile, and their fills made the next write as large.)
 */
const MAX_WRITE_BYTES = 4 * 1024 * 1024;

export interface LogTailsOptions {
  readonly retryMinMs?: number;
  readonly retryMaxMs?: number;
  readonly flushMs?: number;
  /** MAX_QUEUED_BYTES, smaller in tests. */
  readonly maxQueuedBytes?: number;
  /** MAX_WRITE_BYTES, smaller in tests. */
  readonly maxWriteBytes?: number;
}

interface Tail {
  readonly partId: string;
  refs: number;
  status: TailStatus;
  cancel: (() => void) | null;
  /** Messages of this part were dropped while the queue was full: fill them once it has drained. */
  overflowed: boolean;
  /** Bumped on every (re)open: callbacks of an older stream are ignored. */
  generation: number;
  attempt: number;
  timer: NodeJS.Timeout | null;
  /** Newest entry time received or cached (ms): a gap fill starts here. */
  newestMs: number | null;
  /** When the stream broke (null while it has not). */
  brokeAtMs: number | null;
  /** The start of the fill still owed when the new stream's first message arrives. */
  refillFromMs: number | null;
  /** Lines the fills of the current reconnection brought. */
  filled: number;
  /** A background fill is under way (at most one per part). */
  filling: boolean;
  /** A gap found while it was: filled after it, from the earliest start asked for (null: the part's history). */
  fillAgain: { fromMs: number | null; generation: number } | null;
}

/** A part's lines waiting for the cache worker, still protobuf bytes (the worker decodes them). */
interface QueuedPart {
  /** Pages fetched by gap fills. */
  readonly pages: Buffer[];
  /** Tailed messages. */
  readonly tailed: Buffer[];
  bytes: number;
  /** Fills waiting for their pages to be written: told how many lines were new. */
  readonly waiters: ((added: number) => void)[];
}

interface ViewRecord {
  readonly partIds: readonly string[];
  filter: LogFilter;
}

export class LogTails implements ProfileScoped {
  readonly #connection: Connection;
  readonly #events: EventBus;
  readonly #log: (message: string) => void;
  readonly #retryMinMs: number;
  readonly #retryMaxMs: number;
  readonly #flushMs: number;
  readonly #maxQueuedBytes: number;
  readonly #maxWriteBytes: number;
  readonly #views = new Map<string, ViewRecord>();
  readonly #tails = new Map<string, Tail>();
  /** What waits to be written, per part, in the order parts first queued something. */
  #queue = new Map<string, QueuedPart>();
  /** Tailed bytes waiting, for the bound (fills are bounded by their own rule: one per part). */
  #queuedBytes = 0;
  #flushTimer: NodeJS.Timeout | null = null;
  #writing: Promise<void> | null = null;
  #profileId: string | null = null;
  #run: CacheRunner | null = null;
  #nextView = 1;
  #fetching = 0;
  readonly #waiting: (() => void)[] = [];
  /** Whether arriving messages are dropped because the queue is full. */
  #overflowing = false;
  retention: LogRetention = DEFAULT_RETENTION;
  /**
   * What the tails did so far (benchmarks and diagnostics): gap fills, entries they fetched, entries
   * the service dropped, times main's queue overflowed (messages dropped, then filled), cache writes
   * and those that left part of the queue for the next (MAX_WRITE_BYTES), and the time writes took
   * from main's side (the worker's queue included).
   */
  readonly stats = { fills: 0, filled: 0, dropped: 0, overflows: 0, writes: 0, splitWrites: 0, writeMs: 0 };

  constructor(connection: Connection, events: EventBus, log: (message: string) => void, options: LogTailsOptions = {}) {
    this.#connection = connection;
    this.#events = events;
    this.#log = log;
    this.#retryMinMs = options.retryMinMs ?? 500;
    this.#retryMaxMs = options.retryMaxMs ?? 10_000;
    this.#flushMs = options.flushMs ?? FLUSH_MS;
    this.#maxQueuedBytes = options.maxQueuedBytes ?? MAX_QUEUED_BYTES;
    this.#maxWriteBytes = options.maxWriteBytes ?? MAX_WRITE_BYTES;
    connection.scope(this);
    events.subscribe((event, payload) => {
      if (event !== 'connection.changed') return;
      const state = payload as { profileId: string | null; status: string };
      if (state.profileId === this.#profileId && state.status === 'online') this.#retryBrokenNow();
    });
  }

  switchTo(profileId: string | null): void {
    if (profileId !== this.#profileId) this.reset();
  }

  /** The profile's cache runner, starting afresh when the active profile changed. */
  #session(): CacheRunner {
    const current = this.#connection.current();
    if (!current) throw new AppError('not-found', 'No profile is active.');
    if (current.profileId !== this.#profileId || this.#run === null) {
      this.reset();
      this.#profileId = current.profileId;
      this.#run = current.run;
    }
    return this.#run;
  }

  /** Forget every view and stop every tail (a profile switch). */
  reset(): void {
    for (const tail of this.#tails.values()) this.#stopTail(tail);
    this.#tails.clear();
    this.#views.clear();
    for (const queued of this.#queue.values()) for (const waiter of queued.waiters) waiter(0);
    this.#queue = new Map();
    this.#queuedBytes = 0;
    this.#profileId = null;
    this.#run = null;
    this.#emitStatuses();
  }

  async open(partIds: readonly string[], filter: LogFilter, names: readonly LogPartInfo[]): Promise<LogViewState> {
    const run = this.#session();
    const viewId = `v${this.#nextView++}`;
    if (names.length > 0) await run('logsParts', names);
    // Parts opened for the first time get their recent history before the view is drawn.
    const perPart = historyPerPart(new Set(partIds).size);
    await Promise.all(partIds.map((id) => this.#firstHistory(id, run, perPart)));
    this.#views.set(viewId, { partIds: [...new Set(partIds)], filter });
    for (const id of new Set(partIds)) this.#acquire(id);
    try {
      const state = await run('logsOpen', viewId, [...new Set(partIds)], filter);
      this.#emitStatuses();
      return state;
    } catch (e) {
      // Nobody holds the view id: its tails stop here or never would. (The worker kept no view; its
      // tails are released before the worker is asked, so a worker gone meanwhile changes nothing.)
      await this.close(viewId).catch(() => undefined);
      throw e;
    }
  }

  /** Run a read of an open view; a view the worker lost (it restarted) is opened again first. */
  async onView<T>(viewId: string, read: (run: CacheRunner) => Promise<T>): Promise<T> {
    const run = this.#session();
    const record = this.#views.get(viewId);
    if (!record) throw new AppError('not-found', `The log view ${viewId} is closed. Open the logs again.`);
    if (!(await run('logsHasView', viewId))) await run('logsOpen', viewId, record.partIds, record.filter);
    return read(run);
  }

  async filter(viewId: string, filter: LogFilter): Promise<LogViewState> {
    const state = await this.onView(viewId, (run) => run('logsFilter', viewId, filter));
    const record = this.#views.get(viewId);
    if (record) record.filter = filter;
    return state;
  }

  async close(viewId: string): Promise<void> {
    const record = this.#views.get(viewId);
    if (!record) return;
    this.#views.delete(viewId);
    for (const id of record.partIds) this.#release(id);
    await this.#run?.('logsClose', viewId);
    this.#emitStatuses();
  }

  partsOf(viewId: string): readonly string[] {
    const record = this.#views.get(viewId);
    if (!record) throw new AppError('not-found', `The log view ${viewId} is closed. Open the logs again.`);
    return record.partIds;
  }

  statuses(): TailStatuses {
    return Object.fromEntries([...this.#tails.values()].map((t) => [t.partId, t.status]));
  }

  /** Fetch one older page of history for each of the view's parts. */
  async older(viewId: string): Promise<{ added: number; exhausted: boolean }> {
    const run = this.#session();
    const partIds = this.partsOf(viewId);
    const client = this.#client();
    let added = 0;
    let exhausted = true;
    for (const partId of partIds) {
      const mark = await run('logsHistoryMark', partId);
      if (mark.done) continue;
      const { pages, complete } = await this.#fetch(client, partId, { end: mark.fromMs, count: historyPerPart(partIds.length) });
      const stored = await this.#store(run, partId, pages);
      added += stored.added;
      const oldest = stored.oldestMs === null ? mark.fromMs : Math.min(stored.oldestMs, mark.fromMs ?? Infinity);
      await run('logsSetHistoryMark', partId, oldest, complete);
      if (!complete) exhausted = false;
    }
    this.#emit(await run('logsReload', partIds));
    return { added, exhausted };
  }

  /** Stop everything (the backend closes). */
  stop(): void {
    this.reset();
    if (this.#flushTimer) clearTimeout(this.#flushTimer);
    this.#flushTimer = null;
  }

  // --- tails ---

  #acquire(partId: string): void {
    let tail = this.#tails.get(partId);
    if (!tail) {
      tail = {
        partId,
        refs: 0,
        status: { state: 'connecting', sinceMs: Date.now(), retryAt: null, error: null, outages: [] },
        cancel: null,
        overflowed: false,
        generation: 0,
        attempt: 0,
        timer: null,
        newestMs: null,
        brokeAtMs: null,
        refillFromMs: null,
        filling: false,
        fillAgain: null,
        filled: 0,
      };
      this.#tails.set(partId, tail);
      void this.#startTail(tail);
    }
    tail.refs += 1;
  }

  #release(partId: string): void {
    const tail = this.#tails.get(partId);
    if (!tail) return;
    tail.refs -= 1;
    if (tail.refs > 0) return;
    this.#stopTail(tail);
    this.#tails.delete(partId);
  }

  #stopTail(tail: Tail): void {
    tail.generation += 1;
    if (tail.timer) clearTimeout(tail.timer);
    tail.timer = null;
    tail.cancel?.();
    tail.cancel = null;
  }

  #client(): FleetClient {
    const current = this.#connection.current();
    if (!current?.client) throw new AppError(this.#connection.state.error?.kind ?? 'offline', this.#connection.state.error?.message ?? 'The service cannot be reached: showing the cached logs.');
    return current.client;
  }

  async #startTail(tail: Tail): Promise<void> {
    const generation = ++tail.generation;
    const run = this.#run;
    if (!run) return;
    this.#setStatus(tail, { state: 'connecting', retryAt: null });
    try {
      const client = this.#client();
      if (tail.newestMs === null) tail.newestMs = await run('logsNewest', tail.partId);
      const cancel = await client.tail(
        { robotPartId: tail.partId, errorsOnly: false, filter: '' },
        (message) => {
          if (tail.generation !== generation) return;
          this.#enqueueTailed(tail.partId, message);
          // The first message proves the subscription: fill again what may have come before it.
          const refill = tail.refillFromMs;
          if (refill !== null) {
            tail.refillFromMs = null;
            this.#backgroundFill(tail, run, client, refill);
          }
        },
        (error) => {
          if (tail.generation !== generation) return;
          this.#broken(tail, generation, error ?? new AppError('offline', 'the service ended the log stream'));
        },
      );
      if (tail.generation !== generation) {
        cancel();
        return;
      }
      tail.cancel = cancel;
      const from = tail.newestMs;
      tail.refillFromMs = from;
      await this.#fill(tail, generation, run, client, from);
      if (tail.generation !== generation) return;
      const now = Date.now();
      const outages = tail.brokeAtMs === null ? tail.status.outages : [...tail.status.outages, { fromMs: tail.brokeAtMs, toMs: now, filled: tail.filled }].slice(-MAX_OUTAGES);
      tail.brokeAtMs = null;
      tail.filled = 0;
      tail.attempt = 0;
      this.#setStatus(tail, { state: 'live', retryAt: null, error: null, outages });
    } catch (e) {
      this.#broken(tail, generation, e);
    }
  }

  /** Fetch what the part logged since `fromMs` (inclusive; what is cached is skipped) and queue it for the cache. */
  async #fill(tail: Tail, generation: number, run: CacheRunner, client: FleetClient, fromMs: number | null): Promise<void> {
    if (fromMs === null) {
      const mark = await run('logsHistoryMark', tail.partId);
      if (mark.fromMs === null && !mark.done) {
        // Nothing fetched yet (the view opened offline): start with the part's recent history.
        await this.#firstHistory(tail.partId, run);
        tail.newestMs = await run('logsNewest', tail.partId);
        return;
      }
      // Its history was fetched and held nothing: whatever the part logged since is new, from its
      // first line on (no start time: the app's clock need not agree with the service's).
    }
    const { pages, count } = await this.#fetch(client, tail.partId, { start: fromMs, count: MAX_FILL });
    this.stats.fills += 1;
    this.stats.filled += count;
    if (tail.generation !== generation) return;
    // Through the same batches as the tail (a view hears of it in its next update, not in one of its own).
    tail.filled += await this.#enqueue(tail.partId, pages);
  }

  /**
   * A gap fill nobody waits for, one per part at a time. Under sustained overload every batch finds
   * new gaps; without this, fills of the same part piled up behind the few fetches allowed at once.
   */
  #backgroundFill(tail: Tail, run: CacheRunner, client: FleetClient, fromMs: number | null): void {
    const generation = tail.generation;
    if (tail.filling) {
      const again = tail.fillAgain;
      const earliest = again === null || again.generation !== generation ? fromMs : again.fromMs === null || fromMs === null ? null : Math.min(again.fromMs, fromMs);
      tail.fillAgain = { fromMs: earliest, generation };
      return;
    }
    tail.filling = true;
    void this.#fill(tail, generation, run, client, fromMs)
      .catch((e: unknown) => this.#broken(tail, generation, e))
      .finally(() => {
        tail.filling = false;
        const again = tail.fillAgain;
        tail.fillAgain = null;
        // A fill asked for by an older stream is moot: the new stream's own fill covers it.
        if (again && again.generation === tail.generation) this.#backgroundFill(tail, run, client, again.fromMs);
      });
  }

  #broken(tail: Tail, generation: number, e: unknown): void {
    if (tail.generation !== generation) return;
    tail.generation += 1;
    tail.cancel?.();
    tail.cancel = null;
    tail.brokeAtMs ??= Date.now();
    const error = e instanceof AppError ? e : new AppError('internal', e instanceof Error ? e.message : String(e));
    // A part that is gone or forbidden will not come back soon: wait the longest.
    const lasting = error.kind === 'not-found' || error.kind === 'permission-denied';
    const wait = lasting ? this.#retryMaxMs : Math.min(this.#retryMaxMs, this.#retryMinMs * 2 ** tail.attempt);
    tail.attempt += 1;
    this.#log(`logs: the tail of part ${tail.partId} broke (${error.kind}: ${error.message}); reconnecting in ${wait} ms`);
    this.#setStatus(tail, { state: 'disconnected', retryAt: Date.now() + wait, error: error.message });
    if (tail.timer) clearTimeout(tail.timer);
    tail.timer = setTimeout(() => {
      tail.timer = null;
      void this.#startTail(tail);
    }, wait);
    tail.timer.unref();
  }

  /** The service is back: broken tails retry now instead of at their backoff's end. */
  #retryBrokenNow(): void {
    for (const tail of this.#tails.values()) {
      if (tail.status.state !== 'disconnected' || !tail.timer) continue;
      clearTimeout(tail.timer);
      tail.timer = null;
      tail.attempt = 0;
      void this.#startTail(tail);
    }
  }

  #setStatus(tail: Tail, change: Partial<TailStatus>): void {
    const sinceMs = change.state !== undefined && change.state !== tail.status.state ? Date.now() : tail.status.sinceMs;
    tail.status = { ...tail.status, ...change, sinceMs };
    this.#emitStatuses();
  }

  #emitStatuses(): void {
    this.#events.emit('logs.tails', this.statuses());
  }

  // --- history ---

  async #firstHistory(partId: string, run: CacheRunner, count = HISTORY_PAGE): Promise<void> {
    const mark = await run('logsHistoryMark', partId);
    if (mark.fromMs !== null || mark.done) return;
    let client: FleetClient;
    try {
      client = this.#client();
    } catch {
      return; // offline: the view shows what is cached
    }
    try {
      const { pages, complete } = await this.#fetch(client, partId, { count });
      const oldest = (await this.#store(run, partId, pages)).oldestMs;
      await run('logsSetHistoryMark', partId, oldest ?? Date.now(), complete);
    } catch (e) {
      // The view still opens from the cache; the tail reports the failure.
      this.#log(`logs: history of ${partId}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** Wait for a turn among the fetches under way (at most FETCHES_AT_ONCE). */
  async #turn<T>(work: () => Promise<T>): Promise<T> {
    while (this.#fetching >= FETCHES_AT_ONCE) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#fetching += 1;
    try {
      return await work();
    } finally {
      this.#fetching -= 1;
      this.#waiting.shift()?.();
    }
  }

  /**
   * GetRobotPartLogs page by page, newest first, up to `count` entries, a few fetches at a time. The
   * pages stay protobuf bytes (the cache worker decodes them); only their size and next token are read here.
   */
  #fetch(client: FleetClient, partId: string, range: { start?: number | null; end?: number | null; count: number }): Promise<{ pages: Buffer[]; count: number; complete: boolean }> {
    return this.#turn(() => this.#fetchNow(client, partId, range));
  }

  async #fetchNow(client: FleetClient, partId: string, range: { start?: number | null; end?: number | null; count: number }): Promise<{ pages: Buffer[]; count: number; complete: boolean }> {
    const pages: Buffer[] = [];
    let count = 0;
    let pageToken = '';
    const method = rawUnary(client.app, AppServiceService.getRobotPartLogs);
    do {
      const request = GetRobotPartLogsRequest.fromPartial({
        robotPartId: partId,
        numLogEntries: range.count,
        limit: 1000,
        pageToken,
        start: range.start == null ? undefined : new Date(range.start),
        end: range.end == null ? undefined : new Date(range.end),
      });
      const page = await client.call('read the logs', method, request, { deadlineMs: LONG_DEADLINE_MS });
      const scanned = scanLogsPage(page);
      pages.push(page);
      count += scanned.count;
      pageToken = scanned.nextPageToken;
    } while (pageToken !== '' && count < range.count);
    return { pages, count, complete: count < range.count };
  }

  /** Write fetched pages now (not through the tail queue): the caller waits for them. */
  async #store(run: CacheRunner, partId: string, pages: readonly Buffer[]): Promise<{ added: number; oldestMs: number | null }> {
    if (pages.length === 0) return { added: 0, oldestMs: null };
    const { updates, added, oldestMs } = await run('logsAppend', [], [{ partId, kind: 'page', packed: packMessages(pages) }], Date.now(), this.retention);
    this.#emit(updates);
    return { added: added[partId] ?? 0, oldestMs: oldestMs[partId] ?? null };
  }

  // --- the write queue ---

  #queued(partId: string): QueuedPart {
    let queued = this.#queue.get(partId);
    if (!queued) {
      queued = { pages: [], tailed: [], bytes: 0, waiters: [] };
      this.#queue.set(partId, queued);
    }
    return queued;
  }

  /** Queue fetched pages (a gap fill) for a coming write; resolves with how many of their lines were new, once written. */
  #enqueue(partId: string, pages: readonly Buffer[]): Promise<number> {
    if (pages.length === 0) return Promise.resolve(0);
    const queued = this.#queued(partId);
    queued.pages.push(...pages);
    for (const page of pages) queued.bytes += page.length;
    const written = new Promise<number>((resolve) => queued.waiters.push(resolve));
    this.#scheduleFlush();
    return written;
  }

  /** Queue a tailed message for the next write; beyond the bound, drop it and note the part (see MAX_QUEUED_BYTES). */
  #enqueueTailed(partId: string, message: Buffer): void {
    if (!this.#overflowing && this.#queuedBytes > this.#maxQueuedBytes) {
      this.#overflowing = true;
      this.stats.overflows += 1;
    }
    if (this.#overflowing) {
      const tail = this.#tails.get(partId);
      if (tail) tail.overflowed = true;
      return;
    }
    const queued = this.#queued(partId);
    queued.tailed.push(message);
    queued.bytes += message.length;
    this.#queuedBytes += message.length;
    this.#scheduleFlush();
  }

  /** The queue is down to half: take messages again, and fill what each part lost, from its newest written line. */
  #drained(run: CacheRunner): void {
    this.#overflowing = false;
    const client = this.#connection.current()?.client;
    for (const tail of this.#tails.values()) {
      if (!tail.overflowed) continue;
      tail.overflowed = false;
      // Now, before lines taken from here on are written and move the part's newest line past the gap.
      const from = tail.newestMs;
      if (client) this.#backgroundFill(tail, run, client, from);
    }
  }

  #scheduleFlush(delayMs = this.#flushMs): void {
    this.#flushTimer ??= setTimeout(() => {
      this.#flushTimer = null;
      void this.#flush();
    }, delayMs);
  }

  /**
   * Write what is queued, at most MAX_WRITE_BYTES of it (whole parts, oldest queued first), in one
   * cache-worker job; one write at a time, the rest in the next at once.
   */
  async #flush(): Promise<void> {
    if (this.#writing) return; // the write under way schedules the next when it ends
    const run = this.#run;
    if (!run || this.#queue.size === 0) return;
    const batches: { partId: string; kind: 'page' | 'tail'; packed: Uint8Array }[] = [];
    const waiters = new Map<string, ((added: number) => void)[]>();
    let bytes = 0;
    for (const [partId, queued] of this.#queue) {
      if (bytes > 0 && bytes + queued.bytes > this.#maxWriteBytes) break;
      bytes += queued.bytes;
      this.#queue.delete(partId);
      // Pages before tailed messages: a fill's lines are older than the part's tailed ones.
      if (queued.pages.length > 0) batches.push({ partId, kind: 'page', packed: packMessages(queued.pages) });
      if (queued.tailed.length > 0) {
        batches.push({ partId, kind: 'tail', packed: packMessages(queued.tailed) });
        for (const message of queued.tailed) this.#queuedBytes -= message.length;
      }
      if (queued.waiters.length > 0) waiters.set(partId, queued.waiters);
    }
    this.stats.writes += 1;
    if (this.#queue.size > 0) this.stats.splitWrites += 1;
    const startedMs = Date.now();
    this.#writing = run('logsAppend', [], batches, startedMs, this.retention)
      .then(({ updates, added, newestMs, dropped }) => {
        this.stats.writeMs += Date.now() - startedMs;
        if (this.#run !== run) return;
        this.#emit(updates);
        for (const [partId, ms] of Object.entries(newestMs)) {
          const tail = this.#tails.get(partId);
          if (!tail) continue;
          const before = tail.newestMs;
          if (tail.newestMs === null || ms > tail.newestMs) tail.newestMs = ms;
          // The service dropped entries (this app read too slowly): fetch them.
          this.stats.dropped += dropped[partId] ?? 0;
          if ((dropped[partId] ?? 0) > 0) {
            const client = this.#connection.current()?.client;
            if (client) this.#backgroundFill(tail, run, client, before);
          }
        }
        for (const [partId, resolves] of waiters) for (const resolve of resolves) resolve(added[partId] ?? 0);
      })
      .catch((e: unknown) => {
        this.#log(`logs: caching tailed lines failed: ${e instanceof Error ? e.message : String(e)}`);
        // Let each tail's next fill fetch them again.
        for (const { partId } of batches) {
          const tail = this.#tails.get(partId);
          if (tail) tail.refillFromMs ??= tail.newestMs;
        }
        for (const resolves of waiters.values()) for (const resolve of resolves) resolve(0);
      })
      .finally(() => {
        this.#writing = null;
        if (this.#run !== run) return;
        if (this.#overflowing && this.#queuedBytes <= this.#maxQueuedBytes / 2) this.#drained(run);
        // What did not fit goes now; what arrived meanwhile has waited the write's time of its interval.
        if (this.#queue.size > 0) this.#scheduleFlush(bytes >= this.#maxWriteBytes / 2 ? 0 : Math.max(0, this.#flushMs - (Date.now() - startedMs)));
      });
    await this.#writing;
  }

  #emit(updates: readonly LogViewUpdate[]): void {
    for (const update of updates) if (this.#views.has(update.viewId)) this.#events.emit('logs.view', update);
  }
}

/** Names of parts for search results and exports, read from the fleet cache. */
export function partNames(cache: CacheDb, partIds: readonly string[]): LogPartInfo[] {
  if (partIds.length === 0) return [];
  return cache
    .prepare(
      `SELECT p.id AS partId, p.org_id AS orgId, p.machine_id AS machineId, m.name AS machineName, p.name AS partName
       FROM parts p JOIN machines m ON m.org_id = p.org_id AND m.id = p.machine_id
       WHERE p.id IN (SELECT value FROM json_each(?)) GROUP BY p.id`,
    )
    .all(JSON.stringify(partIds)) as LogPartInfo[];
}
