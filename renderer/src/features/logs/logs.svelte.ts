/**
 * Log views and the fleet-wide log search in the renderer. A view holds only the rows it has read
 * (by position, in chunks) and what main says of it; the lines themselves stay in main's cache, so a
 * view of a million lines costs a screenful here.
 */
import type { FleetBridge } from '../../../../common/bridge';
import { LOG_LEVELS, type LogLevel } from '../../../../common/log-levels';
import type { LogFilter, LogHistogram, LogLine, LogSearchHit, LogViewUpdate, TailStatuses } from '../../../../common/logs';
import type { BridgeError, Result } from '../../../../common/result';
import { Latest } from '../../lib/state/latest';

export const EMPTY_FILTER: LogFilter = { text: '', levels: [], sources: [], startMs: null, endMs: null };
/** Rows are read in chunks of this many. */
export const CHUNK = 200;
/** Chunks kept beyond those on screen (a view scrolled through a million lines keeps a bounded cache). */
const MAX_CHUNKS = 60;
/** The histogram is refreshed at most this often while lines arrive. */
const HISTOGRAM_EVERY_MS = 2_000;

/** What a log view shows: one part, a machine's parts, a location's machines' parts, or a hand-picked set. */
export interface LogTarget {
  readonly title: string;
  /** The organization whose tree names the parts. */
  readonly orgId: string;
  readonly kind: 'part' | 'machine' | 'location' | 'parts';
  readonly partIds: readonly string[];
}

/** Whether a level is shown by a filter (an empty list shows all). */
export function levelShown(filter: LogFilter, level: LogLevel): boolean {
  return filter.levels.length === 0 || filter.levels.includes(level);
}

/** Toggle a level in a filter's list, keeping "all" as the empty list. */
export function toggleLevel(filter: LogFilter, level: LogLevel): LogLevel[] {
  const shown = LOG_LEVELS.filter((l) => levelShown(filter, l));
  const next = shown.includes(level) ? shown.filter((l) => l !== level) : [...shown, level];
  return next.length === LOG_LEVELS.length ? [] : LOG_LEVELS.filter((l) => next.includes(l));
}

/** The parts of a message around case-insensitive matches of `text`, for highlighting. */
export function highlight(message: string, text: string): { text: string; match: boolean }[] {
  if (text === '') return [{ text: message, match: false }];
  const lower = message.toLowerCase();
  const needle = text.toLowerCase();
  const out: { text: string; match: boolean }[] = [];
  let at = 0;
  for (let i = lower.indexOf(needle); i >= 0; i = lower.indexOf(needle, i + needle.length)) {
    if (i > at) out.push({ text: message.slice(at, i), match: false });
    out.push({ text: message.slice(i, i + needle.length), match: true });
    at = i + needle.length;
  }
  if (at < message.length) out.push({ text: message.slice(at), match: false });
  return out;
}

/** A line as text (copy, export-like). */
export function lineText(line: LogLine, partLabel?: string): string {
  // eslint-disable-next-line svelte/prefer-svelte-reactivity -- formatted at once, never state
  return `${new Date(line.timeMs).toISOString()} ${line.level.padEnd(5)}${partLabel ? ` ${partLabel}` : ''} ${line.source} ${line.message}`;
}

export class LogView {
  readonly target: LogTarget;
  readonly #bridge: FleetBridge;
  viewId: string | null = null;
  total = $state(0);
  sources = $state.raw<readonly string[]>([]);
  oldestMs = $state<number | null>(null);
  newestMs = $state<number | null>(null);
  filter = $state.raw<LogFilter>(EMPTY_FILTER);
  /**
   * The filter `total` counts lines of: `filter` is what was asked for, at once (the inputs show
   * it), and this follows once the worker has applied it, so the count never reads "3 lines" for
   * lines that were counted under another filter.
   */
  applied = $state.raw<LogFilter>(EMPTY_FILTER);
  /** Keep the newest line in view as lines arrive (scrolling up pauses). */
  follow = $state(true);
  /** Bumped when rows read so far changed (rows are not state: a million would be too many). */
  version = $state(0);
  histogram = $state.raw<LogHistogram | null>(null);
  error = $state.raw<BridgeError | null>(null);
  opening = $state(true);
  filtering = $state(false);
  /** How long the last filter took to apply (ms), shown beside the count. */
  filterMs = $state<number | null>(null);
  older = $state<'idle' | 'loading' | 'done'>('idle');
  /** A line to show and focus once the view is open (a search hit opened in context). */
  reveal: number | null = null;
  /** Lines that arrived while paused (shown on the "jump to live" button). */
  unseen = $state(0);
  readonly #rows = new Map<number, LogLine>(); // eslint-disable-line svelte/prefer-svelte-reactivity -- read through `version`
  readonly #chunks = new Map<number, number>(); // eslint-disable-line svelte/prefer-svelte-reactivity -- chunk → last use, never rendered
  /** Bumped whenever positions change meaning (a filter, a reset): answers for an older epoch are dropped. */
  #epoch = 0;
  #histogramAt = 0;
  #histogramTimer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  constructor(bridge: FleetBridge, target: LogTarget) {
    this.#bridge = bridge;
    this.target = target;
  }

  row(index: number): LogLine | undefined {
    void this.version;
    return this.#rows.get(index);
  }

  async open(filter: LogFilter = EMPTY_FILTER): Promise<void> {
    this.opening = true;
    this.filter = filter;
    const result = await this.#bridge.invoke('logs.open', { partIds: [...this.target.partIds], filter });
    this.opening = false;
    if (this.#closed) {
      if (result.ok) void this.#bridge.invoke('logs.close', { viewId: result.value.viewId });
      return;
    }
    if (!result.ok) {
      this.error = result.error;
      return;
    }
    this.error = null;
    this.viewId = result.value.viewId;
    this.applied = filter;
    this.#state(result.value);
    // A filter changed while opening applies now.
    if (this.filter !== filter) void this.setFilter({});
    else void this.loadHistogram();
  }

  /** Change the filter (merged with the current one). */
  async setFilter(change: Partial<LogFilter>): Promise<Result<unknown>> {
    const filter = { ...this.filter, ...change };
    this.filter = filter;
    if (!this.viewId) {
      // A view that failed to open (its filter too broad to compute, say) opens with the new one.
      if (this.error === null || this.opening || this.#closed) return { ok: true, value: null };
      await this.open(filter);
      return this.error === null ? { ok: true, value: null } : { ok: false, error: this.error };
    }
    this.filtering = true;
    const started = performance.now();
    const result = await this.#bridge.invoke('logs.filter', { viewId: this.viewId, filter });
    if (this.filter !== filter) return result; // a newer filter is on its way
    this.filtering = false;
    if (!result.ok) {
      this.error = result.error;
      return result;
    }
    this.error = null;
    this.#resetRows();
    this.applied = filter;
    this.#state(result.value);
    this.filterMs = Math.round(performance.now() - started);
    const rangeOnly = change.startMs !== undefined || change.endMs !== undefined;
    if (!rangeOnly) void this.loadHistogram();
    return result;
  }

  /** Make sure rows [from, to) are read (or being read). */
  ensure(from: number, to: number): void {
    if (!this.viewId) return;
    const first = Math.floor(Math.max(0, from) / CHUNK);
    const last = Math.floor(Math.max(0, Math.min(this.total, to) - 1) / CHUNK);
    const now = performance.now();
    for (let chunk = first; chunk <= last; chunk++) {
      if (this.#chunks.has(chunk)) {
        this.#chunks.set(chunk, now);
        continue;
      }
      this.#chunks.set(chunk, now);
      void this.#read(chunk);
    }
    this.#trim(first, last);
  }

  async #read(chunk: number): Promise<void> {
    const viewId = this.viewId;
    if (!viewId) return;
    const epoch = this.#epoch;
    const result = await this.#bridge.invoke('logs.rows', { viewId, from: chunk * CHUNK, count: CHUNK });
    if (epoch !== this.#epoch || this.#closed) return;
    if (!result.ok) {
      this.#chunks.delete(chunk);
      this.error = result.error;
      return;
    }
    result.value.lines.forEach((line, i) => this.#rows.set(result.value.from + i, line));
    this.total = result.value.total;
    this.version += 1;
  }

  /** Drop the least recently used chunks beyond the bound (never those on screen). */
  #trim(first: number, last: number): void {
    if (this.#chunks.size <= MAX_CHUNKS) return;
    const old = [...this.#chunks].filter(([c]) => c < first || c > last).sort((a, b) => a[1] - b[1]);
    for (const [chunk] of old.slice(0, this.#chunks.size - MAX_CHUNKS)) {
      this.#chunks.delete(chunk);
      for (let i = chunk * CHUNK; i < (chunk + 1) * CHUNK; i++) this.#rows.delete(i);
    }
  }

  /** An update from main (`logs.view`). */
  apply(update: LogViewUpdate): void {
    if (update.viewId !== this.viewId) return;
    if (update.reset || update.evicted > 0) this.#resetRows();
    else if (update.movedFrom !== null) this.#dropFrom(update.movedFrom);
    if (!this.follow) this.unseen += update.appended;
    const before = Math.min(this.total, update.movedFrom ?? Infinity);
    this.total = update.total;
    // Chunks with positions between what was read and what came with the update must be read again.
    if (before < update.linesFrom) for (let c = Math.floor(before / CHUNK); c * CHUNK < update.linesFrom; c++) this.#chunks.delete(c);
    // The newest lines come with the update: a following view draws them without asking.
    update.lines.forEach((line, i) => this.#rows.set(update.linesFrom + i, line));
    const now = performance.now();
    for (let c = Math.ceil(update.linesFrom / CHUNK); c * CHUNK < update.total; c++) this.#chunks.set(c, now);
    const newest = update.lines.at(-1);
    if (newest) this.newestMs = Math.max(this.newestMs ?? 0, newest.timeMs);
    this.version += 1;
    this.#histogramSoon();
  }

  /** The position of the next (1) or previous (-1) ERROR line from `from`, or null. */
  async seekError(from: number, dir: 1 | -1): Promise<number | null> {
    if (!this.viewId) return null;
    const result = await this.#bridge.invoke('logs.seek', { viewId: this.viewId, from, dir });
    if (!result.ok) {
      this.error = result.error;
      return null;
    }
    return result.value.position;
  }

  /** The position of a line (or the first after it) by its key. */
  async locate(key: number): Promise<number | null> {
    if (!this.viewId) return null;
    const result = await this.#bridge.invoke('logs.locate', { viewId: this.viewId, key });
    return result.ok ? result.value.position : null;
  }

  async loadHistogram(): Promise<void> {
    if (!this.viewId) return;
    this.#histogramAt = Date.now();
    const result = await this.#bridge.invoke('logs.histogram', { viewId: this.viewId, buckets: 120 });
    if (result.ok) this.histogram = result.value;
  }

  #histogramSoon(): void {
    if (this.#histogramTimer !== undefined) return;
    const wait = Math.max(0, this.#histogramAt + HISTOGRAM_EVERY_MS - Date.now());
    this.#histogramTimer = setTimeout(() => {
      this.#histogramTimer = undefined;
      if (!this.#closed) void this.loadHistogram();
    }, wait);
  }

  /** Fetch older history from the service (one page per part). */
  async loadOlder(): Promise<Result<unknown>> {
    if (!this.viewId) return { ok: true, value: null };
    this.older = 'loading';
    const result = await this.#bridge.invoke('logs.older', { viewId: this.viewId });
    if (!result.ok) {
      this.older = 'idle';
      return result;
    }
    this.older = result.value.exhausted ? 'done' : 'idle';
    this.#resetRows();
    this.#state(result.value);
    void this.loadHistogram();
    return result;
  }

  async exportAs(format: 'text' | 'jsonl'): Promise<Result<{ path: string | null; url: string | null; lines: number; bytes: number }>> {
    if (!this.viewId) return { ok: false, error: { kind: 'invalid', message: 'The view is not open yet.' } };
    return this.#bridge.invoke('logs.export', { viewId: this.viewId, format });
  }

  async detail(key: number) {
    return this.#bridge.invoke('logs.detail', { key });
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#histogramTimer);
    if (this.viewId) void this.#bridge.invoke('logs.close', { viewId: this.viewId });
  }

  #state(state: { total: number; sources: readonly string[]; oldestMs: number | null; newestMs: number | null }): void {
    this.total = state.total;
    this.sources = state.sources;
    this.oldestMs = state.oldestMs;
    this.newestMs = state.newestMs;
    this.version += 1;
  }

  /** Rows from `position` on moved: forget them (their chunks are read again when shown). */
  #dropFrom(position: number): void {
    for (const index of [...this.#rows.keys()]) if (index >= position) this.#rows.delete(index);
    for (const chunk of [...this.#chunks.keys()]) if ((chunk + 1) * CHUNK > position) this.#chunks.delete(chunk);
  }

  #resetRows(): void {
    this.#epoch += 1;
    this.#rows.clear();
    this.#chunks.clear();
    this.version += 1;
  }
}

/** The fleet-wide search of cached lines (works offline). */
export class LogSearch {
  readonly #bridge: FleetBridge;
  filter = $state.raw<LogFilter>(EMPTY_FILTER);
  hits = $state.raw<readonly LogSearchHit[]>([]);
  more = $state(false);
  searching = $state(false);
  searched = $state(false);
  error = $state.raw<BridgeError | null>(null);
  tookMs = $state<number | null>(null);
  readonly #latest = new Latest();

  constructor(bridge: FleetBridge) {
    this.#bridge = bridge;
  }

  async search(change: Partial<LogFilter> = {}): Promise<void> {
    this.filter = { ...this.filter, ...change };
    const read = this.#latest.read();
    this.searching = true;
    const result = await this.#bridge.invoke('logs.search', { filter: this.filter, limit: 100 });
    if (!read.current) return;
    this.searching = false;
    this.searched = true;
    if (!result.ok) {
      // The hits of the previous text would read as this one's.
      this.error = result.error;
      this.hits = [];
      this.more = false;
      this.tookMs = null;
      return;
    }
    this.error = null;
    this.hits = result.value.hits;
    this.more = result.value.more;
    this.tookMs = result.value.tookMs;
  }

  async loadMore(): Promise<void> {
    const last = this.hits.at(-1);
    if (!last || !this.more) return;
    const read = this.#latest.read();
    this.searching = true;
    const result = await this.#bridge.invoke('logs.search', { filter: this.filter, limit: 100, beforeKey: last.key });
    if (!read.current) return;
    this.searching = false;
    if (!result.ok) {
      this.error = result.error;
      return;
    }
    this.hits = [...this.hits, ...result.value.hits];
    this.more = result.value.more;
  }
}

/** What the app has open in logs, and how the tailed parts' streams are doing. */
export class LogsStore {
  readonly #bridge: FleetBridge;
  view = $state.raw<LogView | null>(null);
  search = $state.raw<LogSearch | null>(null);
  statuses = $state.raw<TailStatuses>({});

  constructor(bridge: FleetBridge) {
    this.#bridge = bridge;
  }

  follow(): () => void {
    const stops = [
      this.#bridge.on('logs.view', (update) => this.view?.apply(update)),
      this.#bridge.on('logs.tails', (statuses) => (this.statuses = statuses)),
    ];
    void this.#bridge.invoke('logs.status', {}).then((r) => {
      if (r.ok) this.statuses = r.value;
    });
    return () => {
      for (const stop of stops) stop();
      this.close();
    };
  }

  /** Open a view (closing the one open), optionally with a filter set and a line to show (by key). */
  open(target: LogTarget, filter: LogFilter = EMPTY_FILTER, reveal: number | null = null): LogView {
    // The search stays (its query and hits): Back from a hit's view returns to it.
    this.view?.close();
    const view = new LogView(this.#bridge, target);
    if (reveal !== null) {
      view.reveal = reveal;
      view.follow = false;
    }
    this.view = view;
    void view.open(filter);
    return view;
  }

  openSearch(): LogSearch {
    this.view?.close();
    this.view = null;
    this.search ??= new LogSearch(this.#bridge);
    return this.search;
  }

  /** Close the view only (the search stays for Back). */
  closeView(): void {
    this.view?.close();
    this.view = null;
  }

  close(): void {
    this.closeView();
    this.search = null;
  }
}
