/**
 * New log entries as they are stored, for the tails that follow them. One poller per service reads
 * what was stored since its last look (by entry id: one indexed query, whatever the number of
 * tails) and hands each part's entries to that part's subscribers. Polling the database rather than
 * hooking the writer means every writer counts — the simulation, or another process on the same
 * data dir. It runs only while someone follows.
 */
import { logOnce } from '../errors';
import type { LogStore, StoredLogEntry } from './store';

/**
 * How often the feed looks for new entries: a look is one indexed query that usually finds nothing,
 * and every millisecond here is a millisecond of every tailed line's latency.
 */
export const FEED_INTERVAL_MS = 25;
/** Most entries read per look; a backlog is read over the next looks. */
const BATCH = 20_000;

type Listener = (entries: readonly StoredLogEntry[]) => void;

/** A subscriber, and the newest entry stored when it subscribed: it gets only what came after. */
interface Subscription {
  readonly listener: Listener;
  readonly after: number;
}

export class LogFeed {
  readonly #listeners = new Map<string, Set<Subscription>>();
  #last = 0;
  #timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly logs: LogStore,
    private readonly log: (line: string) => void,
    private readonly intervalMs = FEED_INTERVAL_MS,
  ) {}

  /** Follow a part's new entries (those stored from now on). Returns the function that stops. */
  subscribe(partId: string, listener: Listener): () => void {
    if (this.#timer === null) {
      this.#last = this.logs.latestId();
      this.#timer = setInterval(() => this.#poll(), this.intervalMs);
      this.#timer.unref();
    }
    let set = this.#listeners.get(partId);
    if (!set) this.#listeners.set(partId, (set = new Set()));
    // The feed may be up to one look behind: entries stored before this moment are not this subscriber's.
    const subscription: Subscription = { listener, after: this.logs.latestId() };
    set.add(subscription);
    return () => {
      set.delete(subscription);
      if (set.size === 0) this.#listeners.delete(partId);
      if (this.#listeners.size === 0) this.stop();
    };
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  #poll(): void {
    let rows;
    try {
      rows = this.logs.after(this.#last, BATCH);
    } catch (e) {
      // A poll every 25 ms: say it once a minute at most, not forty times a second.
      logOnce(this.log, 'log feed', `log feed: could not read new entries (${e instanceof Error ? e.message : String(e)}); trying again`);
      return;
    }
    const newest = rows.at(-1);
    if (!newest) return;
    this.#last = newest.id;
    const byPart = new Map<string, StoredLogEntry[]>();
    for (const row of rows) {
      if (!this.#listeners.has(row.partId)) continue;
      let list = byPart.get(row.partId);
      if (!list) byPart.set(row.partId, (list = []));
      list.push(row);
    }
    for (const [partId, entries] of byPart) {
      for (const { listener, after } of this.#listeners.get(partId) ?? []) {
        const fresh = entries[0] !== undefined && entries[0].id > after ? entries : entries.filter((e) => e.id > after);
        if (fresh.length > 0) listener(fresh);
      }
    }
  }
}
