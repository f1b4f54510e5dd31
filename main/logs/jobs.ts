/** The logs' cache jobs: lines (cache.ts) and the views open on them (views.ts), which live in the worker. */
import type { LogFilter, LogRetention, LogViewUpdate } from '../../common/logs';
import type { CacheDb } from '../cache/cache';
import { EVICT_STEP, evictLogs, historyMark, insertLogBatches, logTotals, partSpan, putLogParts, readDetail, searchLogs, setHistoryMark, type IncomingEntry, type LogPartInfo } from './cache';
import { unpackMessages } from './convert';
import { LogViews } from './views';

/** The log views open on a connection (they live where the lines are read). */
const logViews = new WeakMap<CacheDb, LogViews>();
function viewsOf(db: CacheDb): LogViews {
  let views = logViews.get(db);
  if (!views) logViews.set(db, (views = new LogViews(db)));
  return views;
}

/**
 * Jobs that only read (log views live in the worker's memory): they run even while a fleet
 * replacement holds the write transaction open, so scrolling a log never waits for a sync.
 */
export const LOGS_READ_JOBS: readonly string[] = [
  'logsOpen',
  'logsHasView',
  'logsFilter',
  'logsState',
  'logsRows',
  'logsSeekError',
  'logsHistogram',
  'logsLocate',
  'logsClose',
  'logsDetail',
  'logsSearch',
  'logsExport',
  'logsHistoryMark',
  'logsTotals',
  'logsNewest',
];

export const logsJobs = {
  /**
   * Cache entries of several parts — decoded ones (`batches`), and tailed messages and fetched pages
   * still in their protobuf bytes (`packed` by convert.ts: decoding here spares the main thread) — evict
   * beyond the retention bounds, and answer what changed in each open view (one update per view per
   * call: main calls this once per batch), the lines added per part, each part's newest and oldest
   * time given, and the entries the service said it dropped.
   */
  logsAppend: (
    db: CacheDb,
    batches: readonly { readonly partId: string; readonly entries: readonly IncomingEntry[] }[],
    packed: readonly { readonly partId: string; readonly kind: 'tail' | 'page'; readonly packed: Uint8Array }[],
    cachedAtMs: number,
    retention: LogRetention,
  ): { updates: LogViewUpdate[]; added: Record<string, number>; newestMs: Record<string, number>; oldestMs: Record<string, number>; dropped: Record<string, number> } => {
    const views = viewsOf(db);
    const all = [...batches];
    const dropped: Record<string, number> = {};
    for (const { partId, kind, packed: bytes } of packed) {
      const unpacked = unpackMessages(bytes, kind);
      all.push({ partId, entries: unpacked.entries });
      if (unpacked.dropped > 0) dropped[partId] = (dropped[partId] ?? 0) + unpacked.dropped;
    }
    const newestMs: Record<string, number> = {};
    const oldestMs: Record<string, number> = {};
    for (const { partId, entries } of all) {
      for (const e of entries) {
        if (e.timeMs > (newestMs[partId] ?? -Infinity)) newestMs[partId] = e.timeMs;
        if (e.timeMs < (oldestMs[partId] ?? Infinity)) oldestMs[partId] = e.timeMs;
      }
    }
    const added: Record<string, number> = {};
    const lines = insertLogBatches(db, all, cachedAtMs);
    for (const line of lines) added[line.partId] = (added[line.partId] ?? 0) + 1;
    views.add(lines);
    const cutoff = evictLogs(db, retention, EVICT_STEP);
    if (cutoff !== null) views.evict(cutoff);
    return { updates: views.takeUpdates(), added, newestMs, oldestMs, dropped };
  },
  logsOpen: (db: CacheDb, viewId: string, partIds: readonly string[], filter: LogFilter) => viewsOf(db).open(viewId, partIds, filter),
  logsHasView: (db: CacheDb, viewId: string): boolean => viewsOf(db).has(viewId),
  logsFilter: (db: CacheDb, viewId: string, filter: LogFilter) => viewsOf(db).filter(viewId, filter),
  logsState: (db: CacheDb, viewId: string) => viewsOf(db).state(viewId),
  logsRows: (db: CacheDb, viewId: string, from: number, count: number) => viewsOf(db).rows(viewId, from, count),
  logsSeekError: (db: CacheDb, viewId: string, from: number, dir: 1 | -1) => viewsOf(db).seekError(viewId, from, dir),
  logsHistogram: (db: CacheDb, viewId: string, buckets: number) => viewsOf(db).histogram(viewId, buckets),
  logsLocate: (db: CacheDb, viewId: string, key: number) => viewsOf(db).locate(viewId, key),
  logsClose: (db: CacheDb, viewId: string): void => viewsOf(db).close(viewId),
  /** History or a filled gap landed inside these parts' views: reload them and answer their updates. */
  logsReload: (db: CacheDb, partIds: readonly string[]): LogViewUpdate[] => {
    const views = viewsOf(db);
    views.reload(partIds);
    return views.takeUpdates();
  },
  logsDetail: (db: CacheDb, key: number) => readDetail(db, key),
  logsSearch: (db: CacheDb, filter: LogFilter, limit: number, beforeKey: number | null) => searchLogs(db, filter, limit, beforeKey),
  logsExport: (db: CacheDb, viewId: string, path: string, format: 'text' | 'jsonl', names: Readonly<Record<string, string>>) => viewsOf(db).export(viewId, path, format, names),
  logsParts: (db: CacheDb, parts: readonly LogPartInfo[]): void => putLogParts(db, parts),
  logsHistoryMark: (db: CacheDb, partId: string) => historyMark(db, partId),
  logsSetHistoryMark: (db: CacheDb, partId: string, fromMs: number | null, done: boolean): void => setHistoryMark(db, partId, fromMs, done),
  logsTotals: (db: CacheDb) => logTotals(db),
  /** The time of a part's newest cached line (where a gap fill starts). */
  logsNewest: (db: CacheDb, partId: string): number | null => partSpan(db, [partId]).newestMs,
  logsEvict: (db: CacheDb, retention: LogRetention): LogViewUpdate[] => {
    const views = viewsOf(db);
    const cutoff = evictLogs(db, retention);
    if (cutoff !== null) views.evict(cutoff);
    return views.takeUpdates();
  },
};
