/**
 * The log cache's reads and writes (migration 0006_logs). Everything here runs in the cache worker
 * (main/cache/jobs.ts): a tail of 20,000 lines a second is written without the main thread noticing.
 */
import { createHash } from 'node:crypto';
import { LOG_LEVELS, type LogDetail, type LogFilter, type LogLevel, type LogLine, type LogRetention, type LogSearchHit } from '../../common/logs';
import type { JsonObject } from '../../common/schemas';
import type { CacheDb } from '../cache/cache';

/** Keys count from here (2020-01-01): ms × KEY_SLOTS stays an exact double until 2089. */
const KEY_EPOCH_MS = Date.UTC(2020, 0, 1);
/** Lines of one millisecond get consecutive keys; more spill into the next millisecond's keys. */
const KEY_SLOTS = 4096;

/** The first key of a time: lines at or after `timeMs` have keys ≥ this. */
export function keyOfTime(timeMs: number): number {
  return Math.max(0, Math.floor(timeMs) - KEY_EPOCH_MS) * KEY_SLOTS;
}

/** The time a key stands for (to the millisecond). */
export function timeOfKey(key: number): number {
  return Math.floor(key / KEY_SLOTS) + KEY_EPOCH_MS;
}

/** An entry as it came from the service, decoded. */
export interface IncomingEntry {
  /** LogEntry.id; empty from a service that does not number entries. */
  readonly entryId: string;
  readonly timeMs: number;
  readonly level: LogLevel;
  readonly source: string;
  readonly host: string;
  readonly message: string;
  readonly caller: JsonObject | null;
  readonly stack: string;
  readonly fields: readonly JsonObject[];
}

/** Where a part's lines come from, by name (kept for search results after the part leaves the fleet). */
export interface LogPartInfo {
  readonly partId: string;
  readonly orgId: string;
  readonly machineId: string;
  readonly machineName: string;
  readonly partName: string;
}

export const LEVEL_INDEX: Readonly<Record<LogLevel, number>> = { DEBUG: 0, INFO: 1, WARN: 2, ERROR: 3 };

/** An entry's identity: the service's id, or (from a service without ids) a hash of what it says. */
export function entryIdentity(e: IncomingEntry): string {
  if (e.entryId !== '') return e.entryId;
  return `h:${createHash('sha1').update(`${e.timeMs}\u0000${e.level}\u0000${e.source}\u0000${e.message}`).digest('base64url')}`;
}

interface LineRow {
  key: number;
  part_id: string;
  level: number;
  source: string;
  host: string;
  message: string;
  has_detail: number;
  cached_at: number;
}

const LINE_COLUMNS = 'key, part_id, level, source, host, message, detail IS NOT NULL AS has_detail, cached_at';

function toLine(r: LineRow): LogLine {
  return { key: r.key, partId: r.part_id, timeMs: timeOfKey(r.key), level: LOG_LEVELS[r.level] ?? 'INFO', source: r.source, host: r.host, message: r.message, hasDetail: r.has_detail === 1, cachedAtMs: r.cached_at };
}

const statements = new WeakMap<CacheDb, ReturnType<typeof prepare>>();

function prepare(db: CacheDb) {
  return {
    lastInSlot: db.prepare('SELECT max(key) FROM logs WHERE key >= ? AND key < ?').pluck(),
    partNewest: db.prepare('SELECT max(key) FROM logs WHERE part_id = ?').pluck(),
    /** Whether the part holds the entry, among its lines of that millisecond (and what spilled past it). */
    known: db.prepare('SELECT 1 FROM logs WHERE part_id = ? AND key >= ? AND key < ? AND entry_id = ?').pluck(),
    insert: db.prepare('INSERT INTO logs (key, part_id, entry_id, level, source, host, message, detail, bytes, cached_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)'),
    source: db.prepare('INSERT OR IGNORE INTO log_sources (part_id, source) VALUES (?, ?)'),
    totals: db.prepare('UPDATE log_totals SET lines = lines + ?, bytes = bytes + ? WHERE id = 1'),
    /** The last key used per millisecond slot, and each part's newest key: lookups saved per line. */
    slots: new Map<number, number>(),
    newest: new Map<string, number>(),
  };
}

function stmts(db: CacheDb) {
  let s = statements.get(db);
  if (!s) statements.set(db, (s = prepare(db)));
  return s;
}

/** Lines evicted: the remembered slots and newest keys may point below what is left. */
function forgetKeys(db: CacheDb): void {
  const s = statements.get(db);
  s?.slots.clear();
  s?.newest.clear();
}

/** A free key for a line at `timeMs`: after the lines of its millisecond, spilling into the next ones when full. */
function allocateKey(s: ReturnType<typeof prepare>, timeMs: number): number {
  let slot = Math.floor(keyOfTime(timeMs) / KEY_SLOTS);
  let key = slot * KEY_SLOTS;
  for (;;) {
    let last = s.slots.get(slot);
    if (last === undefined) {
      last = (s.lastInSlot.get(slot * KEY_SLOTS, (slot + 1) * KEY_SLOTS) as number | null) ?? -1;
      if (s.slots.size > 100_000) s.slots.clear();
    }
    key = Math.max(key, last + 1);
    if (key < (slot + 1) * KEY_SLOTS) break;
    slot += 1;
  }
  s.slots.set(Math.floor(key / KEY_SLOTS), key);
  return key;
}

/**
 * Cache entries of several parts in one transaction. An entry already cached (same part and
 * identity) is skipped: an entry newer than everything the part holds cannot be cached yet (the tail,
 * nearly always); an older one (a gap fill, history) is looked up among the part's lines of its
 * millisecond. Answers the lines that were new, in the order given.
 */
export function insertLogBatches(db: CacheDb, batches: readonly { readonly partId: string; readonly entries: readonly IncomingEntry[] }[], cachedAtMs: number): LogLine[] {
  const s = stmts(db);
  const added: LogLine[] = [];
  db.transaction(() => {
    let bytes = 0;
    for (const { partId, entries } of batches) {
      let newest = s.newest.get(partId);
      if (newest === undefined) newest = (s.partNewest.get(partId) as number | null) ?? -1;
      const sources = new Set<string>();
      for (const e of entries) {
        const identity = entryIdentity(e);
        const base = keyOfTime(e.timeMs);
        if (base <= newest && s.known.get(partId, base, base + 16 * KEY_SLOTS, identity) !== undefined) continue;
        const key = allocateKey(s, e.timeMs);
        const detail = e.caller !== null || e.stack !== '' || e.fields.length > 0 ? JSON.stringify({ caller: e.caller, stack: e.stack, fields: e.fields }) : null;
        const size = e.message.length + e.source.length + e.host.length + identity.length + (detail?.length ?? 0) + 48;
        s.insert.run(key, partId, identity, LEVEL_INDEX[e.level], e.source, e.host, e.message, detail, size, cachedAtMs);
        if (key > newest) newest = key;
        bytes += size;
        sources.add(e.source);
        added.push({ key, partId, timeMs: timeOfKey(key), level: e.level, source: e.source, host: e.host, message: e.message, hasDetail: detail !== null, cachedAtMs });
      }
      s.newest.set(partId, newest);
      for (const source of sources) s.source.run(partId, source);
    }
    if (added.length > 0) s.totals.run(added.length, bytes);
  })();
  return added;
}

/** Cache one part's entries (see insertLogBatches). */
export function insertLogs(db: CacheDb, partId: string, entries: readonly IncomingEntry[], cachedAtMs: number): LogLine[] {
  return insertLogBatches(db, [{ partId, entries }], cachedAtMs);
}

/**
 * Index up to `limit` pending lines for full-text search (migration 0007): the cache worker calls
 * this in slices while it is idle. Answers how many it indexed (0: none are pending) — not how many
 * are left: counting a queue of a million keys after every slice cost as much as the slice.
 */
export function indexPending(db: CacheDb, limit: number): number {
  return db.transaction(() => {
    const keys = db.prepare('SELECT key FROM log_fts_pending ORDER BY key LIMIT ?').pluck().all(limit) as number[];
    if (keys.length === 0) return 0;
    const list = JSON.stringify(keys);
    db.prepare('INSERT INTO logs_fts (rowid, message) SELECT key, message FROM logs WHERE key IN (SELECT value FROM json_each(?))').run(list);
    db.prepare('DELETE FROM log_fts_pending WHERE key IN (SELECT value FROM json_each(?))').run(list);
    return keys.length;
  })();
}

/**
 * FTS5 merges the index's segments itself: a little after every write (automerge) and, when a level
 * has filled up, all at once (crisismerge). Each index slice commits a small segment, so at 20,000
 * lines a second those all-at-once merges came every few seconds and held the worker 25–350 ms,
 * and every tailed line behind them waited as long. The worker turns both off (crisismerge only
 * far out, as a safety net) and merges in steps of its own between jobs (mergeIndexStep): the same
 * work in total, none of it longer than ~15 ms. The settings live in the index's config table, so
 * this is idempotent.
 */
export function mergeIndexInSteps(db: CacheDb): void {
  db.prepare(`INSERT INTO logs_fts (logs_fts, rank) VALUES ('automerge', 0)`).run();
  db.prepare(`INSERT INTO logs_fts (logs_fts, rank) VALUES ('crisismerge', 64)`).run();
}

/** Pages of merging per step: with 150-line slices this keeps up with indexing at ~15 ms a step at worst. */
export const MERGE_PAGES = 200;

/**
 * One step of merging the full-text index's segments (about `pages` pages of work, only where a level
 * has enough segments to merge). Answers whether it found work: FTS5 says so through
 * total_changes(), which its 'merge' command raises by more than one only when it merged something.
 */
export function mergeIndexStep(db: CacheDb, pages = MERGE_PAGES): boolean {
  const changes = db.prepare('SELECT total_changes()').pluck();
  const before = changes.get() as number;
  db.prepare(`INSERT INTO logs_fts (logs_fts, rank) VALUES ('merge', ?)`).run(pages);
  return (changes.get() as number) - before > 1;
}

export function logTotals(db: CacheDb): { lines: number; bytes: number } {
  return db.prepare('SELECT lines, bytes FROM log_totals WHERE id = 1').get() as { lines: number; bytes: number };
}

/**
 * Lines one tail write evicts at most. Evicting costs about as much per line as caching (indexes,
 * the full-text index for indexed lines); in one go, 5 % of a full 2,000,000-line cache stalled the
 * worker for a second every few seconds at 20,000 lines/s. A tail write caches ~1,000 lines, so
 * this keeps up with a flood while no write waits long on it.
 */
export const EVICT_STEP = 2_500;

/**
 * Evict the oldest lines while either bound is exceeded, down to 99 % of it (so eviction runs now
 * and then, not on every batch), at most `limit` lines in this call (the cache may stay over its
 * bound for a few writes). Answers the first key kept (lines below it are gone), or null when
 * nothing was evicted.
 */
export function evictLogs(db: CacheDb, retention: LogRetention, limit = Infinity): number | null {
  const totals = logTotals(db);
  if (totals.lines <= retention.maxLines && totals.bytes <= retention.maxBytes) return null;
  const keepLines = Math.floor(retention.maxLines * 0.99);
  const keepBytes = Math.floor(retention.maxBytes * 0.99);
  let lines = totals.lines;
  let bytes = totals.bytes;
  let cutoff: number | null = null;
  let evicted = 0;
  // Walk the oldest lines in blocks until what is left fits.
  const block = db.prepare('SELECT key, bytes FROM logs WHERE key > ? ORDER BY key LIMIT 5000');
  let after = -1;
  while ((lines > keepLines || bytes > keepBytes) && evicted < limit) {
    const rows = block.all(after) as { key: number; bytes: number }[];
    if (rows.length === 0) break;
    for (const r of rows) {
      if ((lines <= keepLines && bytes <= keepBytes) || evicted >= limit) break;
      evicted += 1;
      lines -= 1;
      bytes -= r.bytes;
      cutoff = r.key + 1;
      after = r.key;
    }
  }
  if (cutoff === null) return null;
  forgetKeys(db);
  db.transaction(() => {
    db.prepare('DELETE FROM logs WHERE key < ?').run(cutoff);
    db.prepare('UPDATE log_totals SET lines = ?, bytes = ? WHERE id = 1').run(lines, bytes);
  })();
  return cutoff;
}

/** SQL for the filter's levels and sources (the text and the time are matched by the caller). */
function levelAndSourceSql(filter: Pick<LogFilter, 'levels' | 'sources'>, params: unknown[]): string[] {
  const where: string[] = [];
  if (filter.levels.length > 0 && filter.levels.length < LOG_LEVELS.length) {
    where.push(`logs.level IN (${filter.levels.map(() => '?').join(', ')})`);
    params.push(...filter.levels.map((l) => LEVEL_INDEX[l]));
  }
  if (filter.sources.length > 0) {
    where.push(`(${filter.sources.map(() => 'logs.source = ? OR substr(logs.source, 1, ?) = ?').join(' OR ')})`);
    for (const s of filter.sources) params.push(s, s.length + 1, `${s}.`);
  }
  return where;
}

/** An FTS5 phrase for a substring (the trigram tokenizer needs 3 characters or more). */
function phrase(text: string): string | null {
  return [...text].length >= 3 ? `"${text.replace(/"/g, '""')}"` : null;
}

/** `text` as a LIKE pattern (case-insensitive for ASCII, as the trigram index is), for texts too short for it. */
function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * Keys and levels of the lines a query selects, oldest first, read as one row of two strings that
 * SQLite builds (a JSON array of keys, a digit per level): reading a million rows one by one costs
 * ~0.7 µs each in better-sqlite3, this ~0.3 µs.
 */
function keysAndLevels(db: CacheDb, from: string, where: readonly string[], params: readonly unknown[]): { keys: number[]; levels: number[] } {
  const row = db
    .prepare(`SELECT json_group_array(logs.key ORDER BY logs.key) AS keys, group_concat(logs.level, '' ORDER BY logs.key) AS levels FROM ${from} WHERE ${where.join(' AND ')}`)
    .get(...params) as { keys: string; levels: string | null };
  const keys = JSON.parse(row.keys) as number[];
  const text = row.levels ?? '';
  const levels = new Array<number>(text.length);
  for (let i = 0; i < text.length; i++) levels[i] = text.charCodeAt(i) - 48;
  return { keys, levels };
}

/**
 * The keys and levels of a part set's lines matching the filter (its time range aside: a view
 * slices that itself), oldest first. Views filter their parts' lines in memory (see LogViews);
 * this reads them, and answers the filters that need the lines' sources or a text too short for
 * the index.
 */
export function viewKeys(db: CacheDb, partIds: readonly string[], filter: LogFilter): { keys: number[]; levels: number[] } {
  const run = (from: string, textSql: string | null, textParam: string | null): { keys: number[]; levels: number[] } => {
    const params: unknown[] = [];
    const where: string[] = [];
    if (textSql !== null) {
      where.push(textSql);
      params.push(textParam);
    }
    where.push(`logs.part_id IN (${partIds.map(() => '?').join(', ')})`);
    params.push(...partIds);
    where.push(...levelAndSourceSql(filter, params));
    return keysAndLevels(db, from, where, params);
  };
  const match = filter.text === '' ? null : phrase(filter.text);
  if (match === null) return run('logs', filter.text === '' ? null : "logs.message LIKE ? ESCAPE '\\'", filter.text === '' ? null : likePattern(filter.text));
  // Indexed lines through the index, lines not indexed yet by scan.
  const indexed = run('logs_fts CROSS JOIN logs ON logs.key = logs_fts.rowid', 'logs_fts MATCH ?', match);
  const pending = run('log_fts_pending AS pending CROSS JOIN logs ON logs.key = pending.key', "logs.message LIKE ? ESCAPE '\\'", likePattern(filter.text));
  if (pending.keys.length === 0) return indexed;
  const merged = mergeSorted(
    indexed.keys.map((key, i) => [key, indexed.levels[i] as number] as const),
    pending.keys.map((key, i) => [key, pending.levels[i] as number] as const),
    (r) => r[0],
  );
  return { keys: merged.map((r) => r[0]), levels: merged.map((r) => r[1]) };
}

/**
 * The keys of every cached line (all parts) whose message contains `text`, any case, ascending; null
 * when the text is too short for the trigram index (fewer than 3 characters). A view intersects
 * them with its parts' lines: the index answers a text in milliseconds across the cache, where
 * asking it for one part's matches walks the part's lines.
 */
export function textKeys(db: CacheDb, text: string): number[] | null {
  const match = phrase(text);
  if (match === null) return null;
  const indexed = JSON.parse(db.prepare('SELECT json_group_array(rowid ORDER BY rowid) FROM logs_fts WHERE logs_fts MATCH ?').pluck().get(match) as string) as number[];
  const pending = JSON.parse(
    db.prepare("SELECT json_group_array(pending.key ORDER BY pending.key) FROM log_fts_pending AS pending CROSS JOIN logs ON logs.key = pending.key WHERE logs.message LIKE ? ESCAPE '\\'").pluck().get(likePattern(text)) as string,
  ) as number[];
  return mergeSorted(indexed, pending, (k) => k);
}

/** Two lists sorted by `by` (ascending, or descending with `desc`) as one. */
function mergeSorted<T>(a: readonly T[], b: readonly T[], by: (item: T) => number, desc = false): T[] {
  if (b.length === 0) return [...a];
  if (a.length === 0) return [...b];
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = a[i];
    const y = b[j];
    if (y === undefined || (x !== undefined && (desc ? by(x) >= by(y) : by(x) <= by(y)))) {
      out.push(x as T);
      i += 1;
    } else {
      out.push(y);
      j += 1;
    }
  }
  return out;
}

/** Lines by key, in the order of `keys` (a key evicted meanwhile is left out). */
export function readLines(db: CacheDb, keys: readonly number[]): LogLine[] {
  if (keys.length === 0) return [];
  const rows = db.prepare(`SELECT ${LINE_COLUMNS} FROM logs WHERE key IN (SELECT value FROM json_each(?)) ORDER BY key`).all(JSON.stringify(keys)) as LineRow[];
  return rows.map(toLine);
}

export function readDetail(db: CacheDb, key: number): LogDetail | null {
  const row = db.prepare('SELECT entry_id, detail FROM logs WHERE key = ?').get(key) as { entry_id: string; detail: string | null } | undefined;
  if (!row) return null;
  const detail = row.detail === null ? null : (JSON.parse(row.detail) as { caller: JsonObject | null; stack: string; fields: JsonObject[] });
  return { caller: detail?.caller ?? null, stack: detail?.stack ?? '', fields: detail?.fields ?? [], entryId: row.entry_id };
}

/** The sources the parts logged from, sorted. */
export function partSources(db: CacheDb, partIds: readonly string[]): string[] {
  return db.prepare(`SELECT DISTINCT source FROM log_sources WHERE part_id IN (${partIds.map(() => '?').join(', ')}) ORDER BY source`).pluck().all(...partIds) as string[];
}

/** The time span of the parts' cached lines. */
export function partSpan(db: CacheDb, partIds: readonly string[]): { oldestMs: number | null; newestMs: number | null } {
  // Two subqueries, each one step along the part's index: min() and max() in one query scan the part's lines.
  const first = db.prepare('SELECT (SELECT key FROM logs WHERE part_id = ? ORDER BY key LIMIT 1) AS lo, (SELECT key FROM logs WHERE part_id = ? ORDER BY key DESC LIMIT 1) AS hi');
  let lo: number | null = null;
  let hi: number | null = null;
  for (const id of partIds) {
    const r = first.get(id, id) as { lo: number | null; hi: number | null };
    if (r.lo !== null && (lo === null || r.lo < lo)) lo = r.lo;
    if (r.hi !== null && (hi === null || r.hi > hi)) hi = r.hi;
  }
  return { oldestMs: lo === null ? null : timeOfKey(lo), newestMs: hi === null ? null : timeOfKey(hi) };
}

/** Record where a part's lines come from (names shown by search) without touching its history marks. */
export function putLogParts(db: CacheDb, parts: readonly LogPartInfo[]): void {
  const put = db.prepare(
    `INSERT INTO log_parts (part_id, org_id, machine_id, machine_name, part_name) VALUES (@partId, @orgId, @machineId, @machineName, @partName)
     ON CONFLICT (part_id) DO UPDATE SET org_id = excluded.org_id, machine_id = excluded.machine_id, machine_name = excluded.machine_name, part_name = excluded.part_name`,
  );
  db.transaction(() => {
    for (const p of parts) put.run(p);
  })();
}

/** How far back a part's history was fetched. */
export function historyMark(db: CacheDb, partId: string): { fromMs: number | null; done: boolean } {
  const r = db.prepare('SELECT history_from, history_done FROM log_parts WHERE part_id = ?').get(partId) as { history_from: number | null; history_done: number } | undefined;
  return { fromMs: r?.history_from ?? null, done: r?.history_done === 1 };
}

export function setHistoryMark(db: CacheDb, partId: string, fromMs: number | null, done: boolean): void {
  db.prepare('UPDATE log_parts SET history_from = ?, history_done = ? WHERE part_id = ?').run(fromMs, done ? 1 : 0, partId);
}

/**
 * Every cached line matching the filter, newest first, with where it comes from: the fleet-wide
 * search, offline or not. `beforeKey` continues a previous page.
 */
export function searchLogs(db: CacheDb, filter: LogFilter, limit: number, beforeKey: number | null): { hits: LogSearchHit[]; more: boolean } {
  const upper = Math.min(beforeKey ?? Number.MAX_SAFE_INTEGER, filter.endMs === null ? Number.MAX_SAFE_INTEGER : keyOfTime(filter.endMs + 1));
  const lower = filter.startMs === null ? 0 : keyOfTime(filter.startMs);
  /** Keys of matching lines, newest first, at most limit + 1. Keys are times: the time range and the page are key ranges. */
  const keysOf = (from: string, keyColumn: string, textSql: string | null, textParam: string | null): number[] => {
    const params: unknown[] = [];
    const where: string[] = [];
    if (textSql !== null) {
      where.push(textSql);
      params.push(textParam);
    }
    where.push(`${keyColumn} < ?`, `${keyColumn} >= ?`);
    params.push(upper, lower);
    where.push(...levelAndSourceSql(filter, params));
    params.push(limit + 1);
    return db.prepare(`SELECT logs.key FROM ${from} WHERE ${where.join(' AND ')} ORDER BY ${keyColumn} DESC LIMIT ?`).pluck().all(...params) as number[];
  };
  const match = filter.text === '' ? null : phrase(filter.text);
  let keys: number[];
  if (match === null) {
    keys = keysOf('logs', 'logs.key', filter.text === '' ? null : "logs.message LIKE ? ESCAPE '\\'", filter.text === '' ? null : likePattern(filter.text));
  } else {
    // The index walks its rowids newest first without sorting; lines not indexed yet are few and scanned.
    const indexed = keysOf('logs_fts JOIN logs ON logs.key = logs_fts.rowid', 'logs_fts.rowid', 'logs_fts MATCH ?', match);
    const pending = keysOf('log_fts_pending AS pending CROSS JOIN logs ON logs.key = pending.key', 'pending.key', "logs.message LIKE ? ESCAPE '\\'", likePattern(filter.text));
    keys = mergeSorted(indexed, pending, (k) => k, true).slice(0, limit + 1);
  }
  const more = keys.length > limit;
  const rows = db
    .prepare(
      `SELECT logs.key, logs.part_id, logs.level, logs.source, logs.host, logs.message, logs.detail IS NOT NULL AS has_detail, logs.cached_at,
              coalesce(p.org_id, '') AS org_id, coalesce(p.machine_id, '') AS machine_id, coalesce(p.machine_name, '') AS machine_name, coalesce(p.part_name, '') AS part_name
       FROM logs LEFT JOIN log_parts p ON p.part_id = logs.part_id
       WHERE logs.key IN (SELECT value FROM json_each(?)) ORDER BY logs.key DESC`,
    )
    .all(JSON.stringify(keys.slice(0, limit))) as (LineRow & { org_id: string; machine_id: string; machine_name: string; part_name: string })[];
  return {
    hits: rows.map((r) => ({ ...toLine(r), orgId: r.org_id, machineId: r.machine_id, machineName: r.machine_name, partName: r.part_name })),
    more,
  };
}

/** Whether a line matches the filter, time range included (what the views check appended lines with). */
export function lineMatches(line: LogLine, filter: LogFilter, lowerText: string): boolean {
  if (filter.levels.length > 0 && !filter.levels.includes(line.level)) return false;
  if (filter.sources.length > 0 && !filter.sources.some((s) => line.source === s || line.source.startsWith(`${s}.`))) return false;
  if (lowerText !== '' && !line.message.toLowerCase().includes(lowerText)) return false;
  return true;
}
