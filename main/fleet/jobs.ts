/**
 * The fleet tree's cache jobs (the kernel's: see tree.ts). A sync replaces an organization's tree in
 * one transaction that stays open across jobs while its pages arrive; the worker defers other writes
 * meanwhile (STREAM_JOBS, streaming) and reads trees on a connection of its own (READER_JOBS), which
 * sees the last committed tree, never half of one.
 */
import type { FleetColumns, FleetPartColumns, FleetTree, Location } from '../../common/locations';
import type { Part } from '../../common/machines';
import type { IsoTime } from '../../common/schemas';
import type { CacheDb } from '../cache/cache';
import {
  addFleetPage,
  cachedOrgIds,
  dropFleetsExcept,
  endFleet,
  fleetDigest,
  putLocation,
  putMachine,
  putPartDetails,
  readTree,
  readTreeColumns,
  readTreeParts,
  removeLocation,
  removeMachine,
  removeOrgFleet,
  replaceFleet,
  startFleet,
  type CachedMachine,
  type FleetSnapshot,
  type FleetStream,
} from './tree';

/** The fleet replacement under way on a connection, if any (see the stream jobs below). */
const streams = new WeakMap<CacheDb, FleetStream>();

/** Whether a replacement streamed page by page is under way on `db` (the worker defers other writes meanwhile). */
export function streaming(db: CacheDb): boolean {
  return streams.has(db);
}

/** Jobs that make up a streamed replacement. */
export const STREAM_JOBS: ReadonlySet<string> = new Set(['beginFleet', 'fleetPage', 'commitFleet', 'abortFleet']);

/** Jobs that only read, on the worker's read-only connection. */
export const READER_JOBS: ReadonlySet<string> = new Set(['readTree', 'readTreeColumns', 'readTreeParts']);

/** The tree reader's own request, beside READER_JOBS: what it did so far (worker-client.ts ReaderStats). */
export const READER_STATS = 'readerStats';

/**
 * The reads a page opening on this cache makes first, exactly as it makes them (job and arguments:
 * the reader keeps answers by both): every organization's head (`locations.treeColumns` with
 * `parts: false`, its first screenful, 20–60 ms at 10,000 machines), then every organization's
 * parts (`locations.treeParts`, what search needs; 0.1 s at 10,000 machines read alone, 0.3 s
 * beside a booting window). A reader started with the app reads them ahead while the window boots:
 * a launch reaches the service only after the first view is drawn (Backend `firstViewGraceMs`), so
 * no sync writes meanwhile, and what is kept stays good until a commit moves the file (the writer
 * thread's start commits nothing once its settings are in place). One read cannot be interrupted: a
 * head asked during the parts' read-ahead waits for that read (its answer is kept already); asked
 * requests go before any read-ahead not yet started.
 */
export function readAheadJobs(db: CacheDb): { readonly job: string; readonly args: readonly unknown[] }[] {
  const orgIds = cachedOrgIds(db);
  return [...orgIds.map((orgId) => ({ job: 'readTreeColumns', args: [orgId, false] })), ...orgIds.map((orgId) => ({ job: 'readTreeParts', args: [orgId] }))];
}

/** Whether a tree read is a head (what the first screenful waits for): the reader answers those first among the requests waiting. */
export function isTreeHead(job: string, args: readonly unknown[]): boolean {
  return job === 'readTreeColumns' && args[1] === false;
}

export const fleetJobs = {
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
  readTreeColumns: (db: CacheDb, orgId: string, parts = true): FleetColumns => readTreeColumns(db, orgId, parts),
  readTreeParts: (db: CacheDb, orgId: string): FleetPartColumns => readTreeParts(db, orgId),
  dropFleetsExcept: (db: CacheDb, orgIds: readonly string[]): void => dropFleetsExcept(db, orgIds),
  removeOrgFleet: (db: CacheDb, orgId: string): void => removeOrgFleet(db, orgId),
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
};
