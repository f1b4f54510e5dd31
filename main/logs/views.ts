/**
 * Open log views, held in the cache worker: for each, the keys (and levels) of the lines it shows,
 * oldest first. The renderer reads rows by position, so a view of a million lines costs it a
 * screenful; positions are array indexes here, so reading any screen is one indexed query.
 *
 * A view's arrays hold the lines matching its parts, text, levels and sources; its time range is a
 * slice of them (keys are ordered by time), so brushing the histogram costs two binary searches.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { LOG_LEVELS, type LogFilter, type LogHistogram, type LogLine, type LogViewState, type LogViewUpdate } from '../../common/logs';
import type { CacheDb } from '../cache/cache';
import { keyOfTime, lineMatches, partSources, partSpan, readDetail, readLines, timeOfKey, viewKeys } from './cache';

/**
 * Lines sent with an update: the new ones, up to a screenful and more (a following view draws them
 * without asking); after a reset, that many of the newest.
 */
const UPDATE_LINES = 200;
/** At most this many views stay open per profile; opening one more closes the least recently used. */
export const MAX_VIEWS = 24;

interface View {
  readonly id: string;
  readonly partIds: readonly string[];
  readonly parts: ReadonlySet<string>;
  filter: LogFilter;
  lowerText: string;
  keys: number[];
  levels: number[];
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

/** The first index whose key is ≥ `key`. */
function lowerBound(keys: readonly number[], key: number): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((keys[mid] as number) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class LogViews {
  readonly #db: CacheDb;
  readonly #views = new Map<string, View>();
  #clock = 0;

  constructor(db: CacheDb) {
    this.#db = db;
  }

  open(id: string, partIds: readonly string[], filter: LogFilter): LogViewState {
    if (!this.#views.has(id) && this.#views.size >= MAX_VIEWS) {
      const oldest = [...this.#views.values()].sort((a, b) => a.usedAt - b.usedAt)[0];
      if (oldest) this.#views.delete(oldest.id);
    }
    const view: View = { id, partIds: [...partIds], parts: new Set(partIds), filter, lowerText: '', keys: [], levels: [], lo: 0, hi: 0, usedAt: 0, appended: 0, appendedFromMs: null, movedFrom: null, reset: false, evicted: 0 };
    this.#views.set(id, view);
    this.#load(view, filter);
    return this.state(id);
  }

  /** Apply a new filter; only a change of text, levels or sources reads the cache again. */
  filter(id: string, filter: LogFilter): LogViewState {
    const view = this.#get(id);
    const same = view.filter.text === filter.text && view.filter.levels.join() === filter.levels.join() && view.filter.sources.join() === filter.sources.join();
    if (same) {
      view.filter = filter;
      this.#slice(view);
    } else this.#load(view, filter);
    return this.state(id);
  }

  /** Reload every view of these parts (history or a gap fill landed before their ends). */
  reload(partIds: readonly string[]): void {
    for (const view of this.#views.values()) {
      if (partIds.some((p) => view.parts.has(p))) {
        this.#load(view, view.filter);
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
    return { from: start - view.lo, total: view.hi - view.lo, lines: readLines(this.#db, view.keys.slice(start, end)) };
  }

  /** The position of the next (dir 1, after `from`) or previous (dir -1, before `from`) ERROR line. */
  seekError(id: string, from: number, dir: 1 | -1): number | null {
    const view = this.#get(id);
    const error = LOG_LEVELS.indexOf('ERROR');
    for (let i = view.lo + from + dir; i >= view.lo && i < view.hi; i += dir) {
      if (view.levels[i] === error) return i - view.lo;
    }
    return null;
  }

  /** The position of the line with `key`, or of the first line after it (null when none is). */
  locate(id: string, key: number): number | null {
    const view = this.#get(id);
    const at = lowerBound(view.keys, key);
    return at < view.lo || at >= view.hi ? null : at - view.lo;
  }

  histogram(id: string, buckets: number): LogHistogram {
    const view = this.#get(id);
    const counts = LOG_LEVELS.map(() => new Array<number>(buckets).fill(0));
    const n = view.keys.length;
    if (n === 0) return { startMs: Date.now(), stepMs: 1000, counts };
    const startMs = timeOfKey(view.keys[0] as number);
    const endMs = timeOfKey(view.keys[n - 1] as number) + 1;
    const stepMs = Math.max(1, Math.ceil((endMs - startMs) / buckets));
    for (let i = 0; i < n; i++) {
      const b = Math.min(buckets - 1, Math.floor((timeOfKey(view.keys[i] as number) - startMs) / stepMs));
      (counts[view.levels[i] as number] as number[])[b] += 1;
    }
    return { startMs, stepMs, counts };
  }

  /** Lines just cached: each view of their part that they match takes them. */
  add(lines: readonly LogLine[]): void {
    if (lines.length === 0) return;
    for (const view of this.#views.values()) {
      const taken = lines.filter((line) => view.parts.has(line.partId) && lineMatches(line, view.filter, view.lowerText)).sort((a, b) => a.key - b.key);
      const first = taken[0];
      if (first === undefined) continue;
      const last = view.keys.at(-1);
      if (last === undefined || first.key > last) {
        for (const line of taken) {
          view.keys.push(line.key);
          view.levels.push(LOG_LEVELS.indexOf(line.level));
        }
      } else {
        // Merged parts' batches interleave, and a filled gap lands before the end: merge the new
        // lines with the part of the view they fall into (usually its last moments), not all of it.
        const at = lowerBound(view.keys, first.key);
        if (at < view.hi) view.movedFrom = Math.min(view.movedFrom ?? Infinity, at);
        const keys = view.keys.splice(at);
        const levels = view.levels.splice(at);
        let i = 0;
        let j = 0;
        while (i < keys.length || j < taken.length) {
          const line = taken[j];
          if (line !== undefined && (i >= keys.length || line.key < (keys[i] as number))) {
            view.keys.push(line.key);
            view.levels.push(LOG_LEVELS.indexOf(line.level));
            j += 1;
          } else {
            view.keys.push(keys[i] as number);
            view.levels.push(levels[i] as number);
            i += 1;
          }
        }
      }
      view.appended += taken.length;
      for (const line of taken) if (view.appendedFromMs === null || line.timeMs < view.appendedFromMs) view.appendedFromMs = line.timeMs;
      this.#slice(view);
    }
  }

  /** Lines below `cutoff` were evicted: drop them from every view. */
  evict(cutoff: number): void {
    for (const view of this.#views.values()) {
      const n = lowerBound(view.keys, cutoff);
      if (n === 0) continue;
      const visibleBefore = view.lo;
      view.keys.splice(0, n);
      view.levels.splice(0, n);
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
      // The lines that changed (appended or moved), up to UPDATE_LINES of the newest; all of the newest after a reset.
      const changed = view.reset || view.evicted > 0 ? UPDATE_LINES : Math.max(view.appended, movedFrom === null ? 0 : total - movedFrom);
      const linesFrom = Math.max(0, total - Math.min(UPDATE_LINES, changed));
      updates.push({
        viewId: view.id,
        total,
        appended: view.appended,
        appendedFromMs: view.appendedFromMs,
        lines: readLines(this.#db, view.keys.slice(view.lo + linesFrom, view.hi)),
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
        const block = readLines(this.#db, view.keys.slice(i, Math.min(view.hi, i + 2000)));
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

  #load(view: View, filter: LogFilter): void {
    const { keys, levels } = viewKeys(this.#db, view.partIds, filter);
    view.filter = filter;
    view.lowerText = filter.text.toLowerCase();
    view.keys = keys;
    view.levels = levels;
    this.#slice(view);
  }

  #slice(view: View): void {
    view.lo = view.filter.startMs === null ? 0 : lowerBound(view.keys, keyOfTime(view.filter.startMs));
    view.hi = view.filter.endMs === null ? view.keys.length : lowerBound(view.keys, keyOfTime(view.filter.endMs + 1));
  }
}
