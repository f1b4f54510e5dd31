/**
 * Open log views, held in the cache worker: for each, the keys (and levels) of the lines it shows,
 * oldest first. The renderer reads rows by position, so a view of a million lines costs it a
 * screenful; positions are array indexes here, so reading any screen is one indexed query.
 *
 * A view holds every line of its parts (keys and levels), read once when it opens, and the lines
 * matching its text, levels and sources, filtered from those in memory: a level is a pass over the
 * levels, a text is the full-text index's matches for it (across the cache) intersected with the
 * view's, or the view's own lines read when those are fewer (viewMatches). A source filter reads the
 * view's lines. The time range is a slice of the filtered lines (keys are ordered by time), so
 * brushing the histogram costs two binary searches.
 *
 * A text filter is a search, bounded like one (SearchBound): a filter that cannot be computed in it
 * fails with SearchTooBroad and leaves the view as it was; a view that cannot open is not kept.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { LOG_LEVELS, type LogFilter, type LogHistogram, type LogLine, type LogViewState, type LogViewUpdate } from '../../common/logs';
import type { CacheDb } from '../cache/cache';
import { LineList } from './lines';
import { keyOfTime, lineMatches, partSources, partSpan, readDetail, readLines, SearchTooBroad, searchText, timeOfKey, viewKeys, viewMatches } from './cache';

/**
 * Lines sent with an update: the new ones, up to a screenful and more (a following view draws them
 * without asking); after a reset, that many of the newest.
 */
const SCREEN_LINES = 200;
/**
 * At most this many new lines ride one update (the rest the renderer reads by position if it
 * scrolls there). SCREEN_LINES; bench/log-tail raises it (FLEET_DESK_LOG_UPDATE_LINES) so that
 * every new line rides its update and gets an exact latency, at the cost of more bytes per update.
 */
const UPDATE_LINES = Math.max(SCREEN_LINES, Number(process.env.FLEET_DESK_LOG_UPDATE_LINES) || 0);
/** At most this many views stay open per profile; opening one more closes the least recently used. */
export const MAX_VIEWS = 24;

interface View {
  readonly id: string;
  readonly partIds: readonly string[];
  readonly parts: ReadonlySet<string>;
  filter: LogFilter;
  lowerText: string;
  /** Every cached line of the view's parts. */
  all: LineList;
  /** The lines matching the filter (its time range aside): `all` itself when nothing narrows. */
  shown: LineList;
  /** The time range's slice of keys: [lo, hi). */
  lo: number;
  hi: number;
  usedAt: number;
  /** Changes since the last update was taken. */
  appended: number;
  /** The oldest time among the lines appended since the last update. */
  appendedFromMs: number | null;
  /** The first position (absolute) whose line changed because lines landed before the end. */
  movedFrom: number | null;
  reset: boolean;
  evicted: number;
}

const keyAndLevel = (line: LogLine) => ({ key: line.key, level: LOG_LEVELS.indexOf(line.level) });

export class LogViews {
  readonly #db: CacheDb;
  readonly #views = new Map<string, View>();
  #clock = 0;

  constructor(db: CacheDb) {
    this.#db = db;
  }

  /** Open a view (or open it again); one that fails to open (its filter is too broad) is not kept, and evicts none. */
  open(id: string, partIds: readonly string[], filter: LogFilter): LogViewState {
    const view: View = { id, partIds: [...partIds], parts: new Set(partIds), filter, lowerText: '', all: new LineList(), shown: new LineList(), lo: 0, hi: 0, usedAt: 0, appended: 0, appendedFromMs: null, movedFrom: null, reset: false, evicted: 0 };
    view.all = this.#every(view);
    this.#apply(view, filter);
    if (!this.#views.has(id) && this.#views.size >= MAX_VIEWS) {
      const oldest = [...this.#views.values()].sort((a, b) => a.usedAt - b.usedAt)[0];
      if (oldest) this.#views.delete(oldest.id);
    }
    this.#views.set(id, view);
    return this.state(id);
  }

  /** Apply a new filter; a change of the time range alone is a new slice. A filter that fails leaves the previous one. */
  filter(id: string, filter: LogFilter): LogViewState {
    const view = this.#get(id);
    const same = view.filter.text === filter.text && view.filter.levels.join() === filter.levels.join() && view.filter.sources.join() === filter.sources.join();
    if (same) {
      view.filter = filter;
      this.#slice(view);
    } else this.#apply(view, filter);
    return this.state(id);
  }

  /** Reload every view of these parts (history or a gap fill landed before their ends). */
  reload(partIds: readonly string[]): void {
    for (const view of this.#views.values()) {
      if (partIds.some((p) => view.parts.has(p))) {
        view.all = this.#every(view);
        try {
          this.#apply(view, view.filter);
        } catch (e) {
          // The text filter grew too broad with the cache: the lines it holds stay, with the new ones
          // add() took as they were cached (the reload finds no line that add() did not see).
          if (!(e instanceof SearchTooBroad)) throw e;
        }
        view.reset = true;
      }
    }
  }

  has(id: string): boolean {
    return this.#views.has(id);
  }

  close(id: string): void {
    this.#views.delete(id);
  }

  state(id: string): LogViewState {
    const view = this.#get(id);
    return { viewId: id, total: view.hi - view.lo, sources: partSources(this.#db, view.partIds), ...partSpan(this.#db, view.partIds) };
  }

  rows(id: string, from: number, count: number): { from: number; total: number; lines: LogLine[] } {
    const view = this.#get(id);
    const start = view.lo + Math.min(from, view.hi - view.lo);
    const end = Math.min(view.hi, start + count);
    return { from: start - view.lo, total: view.hi - view.lo, lines: readLines(this.#db, view.shown.keysIn(start, end)) };
  }

  /** The position of the next (dir 1, after `from`) or previous (dir -1, before `from`) ERROR line. */
  seekError(id: string, from: number, dir: 1 | -1): number | null {
    const view = this.#get(id);
    const error = LOG_LEVELS.indexOf('ERROR');
    for (let i = view.lo + from + dir; i >= view.lo && i < view.hi; i += dir) {
      if (view.shown.level(i) === error) return i - view.lo;
    }
    return null;
  }

  /** The position of the line with `key`, or of the first line after it (null when none is). */
  locate(id: string, key: number): number | null {
    const view = this.#get(id);
    const at = view.shown.lowerBound(key);
    return at < view.lo || at >= view.hi ? null : at - view.lo;
  }

  histogram(id: string, buckets: number): LogHistogram {
    const view = this.#get(id);
    const counts = LOG_LEVELS.map(() => new Array<number>(buckets).fill(0));
    const { shown } = view;
    const n = shown.length;
    if (n === 0) return { startMs: Date.now(), stepMs: 1000, counts };
    const startMs = timeOfKey(shown.key(0));
    const endMs = timeOfKey(shown.key(n - 1)) + 1;
    const stepMs = Math.max(1, Math.ceil((endMs - startMs) / buckets));
    for (let i = 0; i < n; i++) {
      const b = Math.min(buckets - 1, Math.floor((timeOfKey(shown.key(i)) - startMs) / stepMs));
      (counts[shown.level(i)] as number[])[b] += 1;
    }
    return { startMs, stepMs, counts };
  }

  /** Lines just cached: each view of their part takes them, and shows those its filter matches. */
  add(lines: readonly LogLine[]): void {
    if (lines.length === 0) return;
    for (const view of this.#views.values()) {
      const mine = lines.filter((line) => view.parts.has(line.partId)).sort((a, b) => a.key - b.key);
      if (mine.length === 0) continue;
      const shared = view.shown === view.all;
      const movedAll = view.all.merge(mine.map(keyAndLevel));
      const taken = shared ? mine : mine.filter((line) => lineMatches(line, view.filter, view.lowerText));
      if (taken.length === 0) continue;
      const moved = shared ? movedAll : view.shown.merge(taken.map(keyAndLevel));
      if (moved !== null && moved < view.hi) view.movedFrom = Math.min(view.movedFrom ?? Infinity, moved);
      view.appended += taken.length;
      for (const line of taken) if (view.appendedFromMs === null || line.timeMs < view.appendedFromMs) view.appendedFromMs = line.timeMs;
      this.#slice(view);
    }
  }

  /** Lines below `cutoff` were evicted: drop them from every view. */
  evict(cutoff: number): void {
    for (const view of this.#views.values()) {
      const shared = view.shown === view.all;
      const gone = view.all.lowerBound(cutoff);
      view.all.dropFirst(gone);
      const n = shared ? gone : view.shown.lowerBound(cutoff);
      if (n === 0) continue;
      const visibleBefore = view.lo;
      if (!shared) view.shown.dropFirst(n);
      this.#slice(view);
      view.evicted += Math.max(0, n - visibleBefore);
      view.reset = true;
    }
  }

  /** What changed in each view since the last call: one update per changed view. */
  takeUpdates(): LogViewUpdate[] {
    const updates: LogViewUpdate[] = [];
    for (const view of this.#views.values()) {
      if (view.appended === 0 && !view.reset && view.evicted === 0) continue;
      const total = view.hi - view.lo;
      const movedFrom = view.reset || view.movedFrom === null ? null : Math.max(0, view.movedFrom - view.lo);
      // The lines that changed (appended or moved), up to UPDATE_LINES of the newest; at least a
      // screenful of the newest after a reset or an eviction (positions shifted under the renderer's rows).
      const changed = Math.max(view.reset || view.evicted > 0 ? SCREEN_LINES : 0, view.appended, movedFrom === null ? 0 : total - movedFrom);
      const linesFrom = Math.max(0, total - Math.min(UPDATE_LINES, changed));
      updates.push({
        viewId: view.id,
        total,
        appended: view.appended,
        appendedFromMs: view.appendedFromMs,
        lines: readLines(this.#db, view.shown.keysIn(view.lo + linesFrom, view.hi)),
        linesFrom,
        movedFrom,
        reset: view.reset,
        evicted: view.evicted,
      });
      view.appended = 0;
      view.appendedFromMs = null;
      view.movedFrom = null;
      view.reset = false;
      view.evicted = 0;
    }
    return updates;
  }

  /**
   * Write what a view shows to `path`, a block of lines at a time (never the whole view in memory):
   * plain text as the viewer shows it, or one JSON object per line with every field.
   */
  export(id: string, path: string, format: 'text' | 'jsonl', names: Readonly<Record<string, string>>): { lines: number; bytes: number } {
    const view = this.#get(id);
    const fd = openSync(path, 'w', 0o600);
    let bytes = 0;
    let lines = 0;
    try {
      for (let i = view.lo; i < view.hi; i += 2000) {
        const block = readLines(this.#db, view.shown.keysIn(i, Math.min(view.hi, i + 2000)));
        let text = '';
        for (const line of block) {
          const part = names[line.partId] ?? line.partId;
          if (format === 'text') {
            text += `${new Date(line.timeMs).toISOString()} ${line.level.padEnd(5)} ${part} ${line.source} ${line.message}\n`;
          } else {
            const detail = line.hasDetail ? readDetail(this.#db, line.key) : null;
            text += `${JSON.stringify({ time: new Date(line.timeMs).toISOString(), level: line.level, part: line.partId, partName: part, host: line.host, source: line.source, message: line.message, caller: detail?.caller ?? null, stack: detail?.stack ?? '', fields: detail?.fields ?? [] })}\n`;
          }
        }
        const buffer = Buffer.from(text, 'utf8');
        writeSync(fd, buffer);
        bytes += buffer.length;
        lines += block.length;
      }
    } finally {
      closeSync(fd);
    }
    return { lines, bytes };
  }

  #get(id: string): View {
    const view = this.#views.get(id);
    if (!view) throw new Error(`log view ${id} is not open`);
    view.usedAt = ++this.#clock;
    return view;
  }

  /** Every cached line of the view's parts. */
  #every(view: View): LineList {
    const { keys, levels } = viewKeys(this.#db, view.partIds, { ...view.filter, text: '', levels: [], sources: [] });
    return LineList.from(keys, levels);
  }

  /** Filter the view's lines (see the file's comment); the view changes only once the filter is computed. */
  #apply(view: View, filter: LogFilter): void {
    const text = searchText(filter.text);
    const allLevels = filter.levels.length === 0 || filter.levels.length === LOG_LEVELS.length;
    let base = view.all;
    if (filter.sources.length > 0) {
      const { keys, levels } = viewKeys(this.#db, view.partIds, { ...filter, text: '', levels: [] });
      base = LineList.from(keys, levels);
    }
    const matching = text === '' ? null : viewMatches(this.#db, base, text);
    view.shown =
      matching === null && allLevels
        ? base
        : base.filter(
            LOG_LEVELS.map((level) => allLevels || filter.levels.includes(level)),
            matching,
          );
    view.filter = filter;
    view.lowerText = text.toLowerCase();
    this.#slice(view);
  }

  #slice(view: View): void {
    view.lo = view.filter.startMs === null ? 0 : view.shown.lowerBound(keyOfTime(view.filter.startMs));
    view.hi = view.filter.endMs === null ? view.shown.length : view.shown.lowerBound(keyOfTime(view.filter.endMs + 1));
  }
}
