/**
 * What the cache worker does for the main thread. Every write to a profile's cache goes through here,
 * on the worker's one connection, one job after another: the fleet's big replacements (tens of
 * thousands of rows at 10,000 machines) and reads of whole trees take too long for the main thread,
 * and a small write on the main thread would otherwise wait — blocking — for the worker's transaction
 * to finish. Small reads stay on the main thread's connection: WAL readers never wait for a writer.
 */
import type { FleetTree, Location } from '../../common/locations';
import type { Organization } from '../../common/orgs';
import type { IsoTime, JsonObject } from '../../common/schemas';
import type { Part } from '../../common/machines';
import { markSynced, type CacheDb } from './cache';
import {
  addFleetPage,
  dropFleetsExcept,
  endFleet,
  fleetDigest,
  putLocation,
  putMachine,
  putMetadata,
  putPartDetails,
  readTree,
  removeLocation,
  removeMachine,
  removeOrgFleet,
  replaceFleet,
  setUiState,
  startFleet,
  updateLiveness,
  type CachedMachine,
  type FleetSnapshot,
  type FleetStream,
  type LivenessRow,
  type MetadataResource,
} from './fleet';
import { replaceOrgs, upsertOrg } from '../orgs/cache';
import type { LogFilter, LogRetention, LogViewUpdate } from '../../common/logs';
import { EVICT_STEP, evictLogs, historyMark, insertLogBatches, logTotals, partSpan, putLogParts, readDetail, searchLogs, setHistoryMark, type IncomingEntry, type LogPartInfo } from '../logs/cache';
import { LogViews } from '../logs/views';
import { unpackMessages } from '../logs/convert';
import { dropTrainingExcept, putTrainingJobs, removeTrainingJobs, replaceTrainingJobs, setWatched, type TrainingWrite } from '../training/cache';
import type { CachedJob } from '../training/convert';

/** The fleet replacement under way on a connection, if any (see the stream jobs below). */
const streams = new WeakMap<CacheDb, FleetStream>();

/** The log views open on a connection (they live where the lines are read). */
const logViews = new WeakMap<CacheDb, LogViews>();
function viewsOf(db: CacheDb): LogViews {
  let views = logViews.get(db);
  if (!views) logViews.set(db, (views = new LogViews(db)));
  return views;
}

/** Whether a replacement streamed page by page is under way on `db` (the worker defers other writes meanwhile). */
export function streaming(db: CacheDb): boolean {
  return streams.has(db);
}

/** Jobs that make up a streamed replacement, and the reads that never wait for one. */
export const STREAM_JOBS: ReadonlySet<string> = new Set(['beginFleet', 'fleetPage', 'commitFleet', 'abortFleet']);

/**
 * Jobs that only read (log views live in the worker's memory): they run even while a fleet
 * replacement holds the write transaction open, so scrolling a log never waits for a sync.
 */
export const READ_JOBS: ReadonlySet<string> = new Set([
  'readTree',
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
]);

export const cacheJobs = {
  /**
   * Replace an organization's fleet page by page, as the pages arrive from the service, in one
   * transaction: beginFleet, fleetPage…, then commitFleet (or abortFleet). A sync thus writes while it
   * fetches, and a failure or a crash midway leaves the previous snapshot whole.
   */
  beginFleet: (db: CacheDb, orgId: string): void => {
    if (streams.has(db)) throw new Error('a fleet replacement is already under way');
    db.exec('BEGIN IMMEDIATE');
    try {
      streams.set(db, startFleet(db, orgId));
    } catch (e) {
      db.exec('ROLLBACK');
      throw e;
    }
  },
  fleetPage: (db: CacheDb, orgId: string, page: Partial<FleetSnapshot>, at: IsoTime): void => {
    const stream = streams.get(db);
    if (stream?.orgId !== orgId) throw new Error(`no fleet replacement of ${orgId} is under way`);
    addFleetPage(db, stream, page, at);
  },
  /** Answers whether the tree draws differently from the one it replaced (liveness aside). */
  commitFleet: (db: CacheDb, orgId: string, at: IsoTime): boolean => {
    const stream = streams.get(db);
    if (stream?.orgId !== orgId) throw new Error(`no fleet replacement of ${orgId} is under way`);
    endFleet(db, orgId, at);
    const changed = fleetDigest(db, orgId) !== stream.before;
    db.exec('COMMIT');
    streams.delete(db);
    return changed;
  },
  abortFleet: (db: CacheDb): void => {
    streams.delete(db);
    if (db.inTransaction) db.exec('ROLLBACK');
  },
  replaceFleet: (db: CacheDb, orgId: string, snapshot: FleetSnapshot, at: IsoTime): void => replaceFleet(db, orgId, snapshot, at),
  readTree: (db: CacheDb, orgId: string): FleetTree => readTree(db, orgId),
  dropFleetsExcept: (db: CacheDb, orgIds: readonly string[]): void => dropFleetsExcept(db, orgIds),
  removeOrgFleet: (db: CacheDb, orgId: string): void => removeOrgFleet(db, orgId),
  replaceOrgs: (db: CacheDb, orgs: readonly Organization[], at: IsoTime): void => replaceOrgs(db, orgs, at),
  upsertOrg: (db: CacheDb, org: Organization): void => upsertOrg(db, org),
  markSynced: (db: CacheDb, resource: string, at: IsoTime): void => markSynced(db, resource, at),
  putLocation: (db: CacheDb, orgId: string | null, location: Location, at: IsoTime): string[] => putLocation(db, orgId, location, at),
  removeLocation: (db: CacheDb, id: string): string[] => removeLocation(db, id),
  putMachine: (db: CacheDb, machine: CachedMachine, details: readonly Part[], at: IsoTime): string[] => {
    const trees = putMachine(db, machine, at);
    for (const part of details) putPartDetails(db, part, at);
    return trees;
  },
  removeMachine: (db: CacheDb, id: string): string[] => removeMachine(db, id),
  putPartDetails: (db: CacheDb, parts: readonly Part[], at: IsoTime): void => {
    for (const part of parts) putPartDetails(db, part, at);
  },
  putMetadata: (db: CacheDb, type: MetadataResource, id: string, metadata: JsonObject, at: IsoTime): void => putMetadata(db, type, id, metadata, at),
  setUiState: (db: CacheDb, key: string, value: unknown): void => setUiState(db, key, value),
  /** Training jobs read one by one; answers what changed and the watched jobs that ended. */
  trainingPut: (db: CacheDb, jobs: readonly CachedJob[], at: IsoTime): TrainingWrite => putTrainingJobs(db, jobs, at),
  /** An organization's whole list of jobs replaces its cached ones. */
  trainingReplace: (db: CacheDb, orgId: string, jobs: readonly CachedJob[], at: IsoTime): TrainingWrite => replaceTrainingJobs(db, orgId, jobs, at),
  trainingRemove: (db: CacheDb, ids: readonly string[]): void => removeTrainingJobs(db, ids),
  trainingDropExcept: (db: CacheDb, orgIds: readonly string[]): void => dropTrainingExcept(db, orgIds),
  trainingWatch: (db: CacheDb, jobId: string, watch: boolean, at: IsoTime): void => setWatched(db, jobId, watch, at),
  updateLiveness: (db: CacheDb, fresh: Readonly<Record<string, LivenessRow>>): Record<string, LivenessRow> => updateLiveness(db, fresh),

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

export type CacheJobs = typeof cacheJobs;
export type CacheJobName = keyof CacheJobs;
/** A job's arguments, without the connection the worker supplies. */
export type JobArgs<J extends CacheJobName> = Parameters<CacheJobs[J]> extends [CacheDb, ...infer Rest] ? Rest : never;
export type JobResult<J extends CacheJobName> = ReturnType<CacheJobs[J]>;
