/**
 * The log cache's reads and writes (migration 0006_logs). Everything here runs in the cache worker
 * (jobs.ts): a tail of 20,000 lines a second is written without the main thread noticing.
 */
import { createHash } from 'node:crypto';
import { LOG_LEVELS, type LogDetail, type LogFilter, type LogLevel, type LogLine, type LogRetention, type LogSearchHit } from '../../common/logs';
import type { JsonObject } from '../../common/schemas';
import type { Statement } from 'better-sqlite3';
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
 * work in total, none of it longer than ~15 ms. The settings live in the index's config table:
 * written once, and not again while they are in place — every commit moves the file's
 * `data_version`, and the tree reader drops what it kept (a launch's read-ahead) on any move.
 */
export function mergeIndexInSteps(db: CacheDb): void {
  const set = new Map(db.prepare(`SELECT k, v FROM logs_fts_config WHERE k IN ('automerge', 'crisismerge')`).raw().all() as [string, unknown][]);
  if (set.get('automerge') === 0 && set.get('crisismerge') === 64) return;
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

/**
 * A filter's text as it is searched for: any text is a literal (FTS5's syntax means nothing in it),
 * and a lone UTF-16 surrogate, which SQLite stores as U+FFFD, is U+FFFD here too, so the cache's
 * answer and a view's in-memory check of new lines (lineMatches) agree.
 */
export function searchText(text: string): string {
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/**
 * How long a search (a `logs.search` page, a view's text filter) may hold the cache worker. A search
 * walks newest first in steps, each of bounded cost (MAX_STEP, MAX_INDEX_ONLY_STEP; see TextPlan and
 * walkIndex), and starts no step once either bound is spent: it then answers what it found (a search
 * page with `more`), or SearchTooBroad when it found nothing (a view's filter, which needs every
 * match, always does). So the worker is held for at most `deadlineMs` plus one step (~10–20 ms),
 * whatever the text and however large the cache.
 */
export interface SearchBound {
  /** Worker time after which no further step starts. */
  readonly deadlineMs: number;
  /** Index entries and lines read at most: the same bound whatever the machine's speed. */
  readonly maxVisited: number;
}

export const SEARCH_BOUND: SearchBound = { deadlineMs: 100, maxVisited: 1_000_000 };

/** The first step's size (index entries or lines); each next step doubles, up to MAX_STEP (or MAX_INDEX_ONLY_STEP). */
const FIRST_STEP = 256;
/**
 * The first step of a search's index walk: entries of its trigram, up to ~2 µs each (the line read
 * and checked), fewer once a page of matches is found. A search for a common word ends in it; with
 * smaller steps, most of its time went to setting up FTS5 queries (~50 µs each).
 */
const FIRST_INDEX_STEP = 1024;
/** The largest step: 4,096 entries at ~4 µs each at worst (a candidate read and checked in JS) is ~16 ms. */
const MAX_STEP = 4096;
/** The largest step of a walk that reads index entries only (~0.3 µs each): ~10 ms. */
const MAX_INDEX_ONLY_STEP = 32_768;

const bounds = new WeakMap<CacheDb, SearchBound>();

/** Bound the searches on this connection (the cache worker's, from its options); SEARCH_BOUND otherwise. */
export function setSearchBound(db: CacheDb, bound: Partial<SearchBound>): void {
  bounds.set(db, { ...SEARCH_BOUND, ...bound });
}

/** What one search may still spend, and what it spent (steps and entries or lines read). */
export class SearchBudget {
  visited = 0;
  steps = 0;
  readonly #maxVisited: number;
  readonly #until: number;

  constructor(bound: SearchBound = SEARCH_BOUND, until = performance.now() + bound.deadlineMs) {
    this.#maxVisited = bound.maxVisited;
    this.#until = until;
  }

  /** The budget of `db`'s searches (see setSearchBound). */
  static of(db: CacheDb): SearchBudget {
    return new SearchBudget(bounds.get(db) ?? SEARCH_BOUND);
  }

  /** Whether a further step must not start. */
  get spent(): boolean {
    return this.visited >= this.#maxVisited || performance.now() >= this.#until;
  }

  /** A part of this budget, at most `maxVisited` of what is left, until the same deadline; `settle` adds what it spent. */
  part(maxVisited: number): SearchBudget {
    return new SearchBudget({ deadlineMs: 0, maxVisited: Math.min(maxVisited, this.#maxVisited - this.visited) }, this.#until);
  }

  settle(part: SearchBudget): void {
    this.visited += part.visited;
    this.steps += part.steps;
  }

  take(visited: number): void {
    this.visited += visited;
    this.steps += 1;
  }
}

/** A search that could not finish within its SearchBound: the message says what to do (kind crosses the worker: main/cache/worker-messages.ts). */
export class SearchTooBroad extends Error {
  readonly kind = 'invalid';

  constructor(message: string) {
    super(message);
    this.name = 'SearchTooBroad';
  }
}

/** A text as a message quotes it: short, control characters escaped. */
function quoted(text: string): string {
  const chars = [...text];
  return JSON.stringify(chars.length > 40 ? `${chars.slice(0, 40).join('')}…` : text);
}

function tooBroadSearch(text: string): SearchTooBroad {
  return new SearchTooBroad(
    text === ''
      ? 'The search stopped before finding a line: too few cached lines match these levels and sources to find them in time. Narrow it by time range, or widen the levels or sources.'
      : `The search for ${quoted(text)} stopped before finding a line: the text is too common in the cache to look through in time. Make it longer or more specific, or narrow the search by level, source or time range.`,
  );
}

function tooBroadFilter(text: string): SearchTooBroad {
  return new SearchTooBroad(
    [...text].length < 3
      ? `Filtering this view by ${quoted(text)} would take too long: a text under 3 characters is looked for line by line, and the view has too many lines. Type at least 3 characters.`
      : `Filtering this view by ${quoted(text)} would take too long: too many cached lines contain parts of it. Make the text longer or more specific.`,
  );
}

/** At most this many of a text's trigrams are considered to walk along (see walkIndex). */
const MAX_DRIVERS = 8;

/**
 * How the index answers a text: by walking one of its trigrams' entries (the `driver`, see
 * walkIndex) and checking each line against the whole text (containsSql). Never by a phrase or an
 * AND of trigrams: FTS5 seeks through every segment of every other trigram for each entry of the
 * rarest one (~10 µs per entry per common trigram over 18 segments, newest first), and it checks a
 * phrase's positions per row (500 dashes: 498 trigrams × every dash of every line with dashes) — both
 * grow with the text and the index. One trigram's entries cost ~0.1 µs each, a line read and checked
 * ~2 µs, whatever the text.
 */
interface TextPlan {
  /** The text lowercased: what a line's lowercased message must contain (containsSql, lineMatches). */
  readonly lower: string;
  /** FTS5 expressions of single trigrams of the text (at most MAX_DRIVERS, spread over it); none when it has none (under 3 characters, NULs). */
  readonly drivers: readonly string[];
  /** Whether a driver's lines must be checked against the text (all but a text that is one trigram). */
  readonly verify: boolean;
}

/** An FTS5 string: a literal whatever it holds (but a NUL, which the callers leave out). */
function ftsString(text: string): string {
  return `"${text.replace(/"/g, '""')}"`;
}

/** At most `n` of `items`, spread evenly from first to last. */
function spread<T>(items: readonly T[], n: number): T[] {
  if (items.length <= n) return [...items];
  return Array.from({ length: n }, (_, i) => items[Math.round((i * (items.length - 1)) / (n - 1))] as T);
}

function planText(text: string): TextPlan {
  const chars = [...text];
  const grams: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i + 3 <= chars.length; i++) {
    const gram = chars.slice(i, i + 3).join('');
    const folded = gram.toLowerCase();
    if (gram.includes('\u0000') || seen.has(folded)) continue;
    seen.add(folded);
    grams.push(gram);
  }
  return { lower: text.toLowerCase(), drivers: spread(grams, MAX_DRIVERS).map(ftsString), verify: !(chars.length === 3 && grams.length === 1) };
}

/**
 * SQL: whether `column` contains the parameter (given twice: a text lowercased as JS does), as
 * lineMatches checks it, literally whatever the text holds (a NUL too, which LIKE's pattern cannot).
 * For a message of ASCII only (`length` stops at a NUL: one holding NULs is not) SQLite's lower() and
 * instr() say the same as JS and cost ~0.1 µs; others call log_contains, in JS (~2 µs).
 */
function containsSql(column: string): string {
  return `(CASE WHEN octet_length(${column}) = length(${column}) THEN instr(lower(${column}), ?) > 0 ELSE log_contains(${column}, ?) END)`;
}

const withFunctions = new WeakSet<CacheDb>();

/**
 * Searches' statements, prepared once per connection and SQL text (a search runs a few: preparing
 * them each time cost about as much as running them). The SQL varies only with the number of levels
 * and sources filtered on, so this stays small; it is emptied past 200 all the same.
 */
const searchStatements = new WeakMap<CacheDb, Map<string, Statement<unknown[]>>>();
function statement(db: CacheDb, sql: string): Statement<unknown[]> {
  let cache = searchStatements.get(db);
  if (!cache) searchStatements.set(db, (cache = new Map()));
  let prepared = cache.get(sql);
  if (!prepared) {
    if (cache.size >= 200) cache.clear();
    cache.set(sql, (prepared = db.prepare<unknown[]>(sql)));
  }
  return prepared;
}

/** log_contains(message, lower) on this connection: what lineMatches checks. */
function ensureFunctions(db: CacheDb): void {
  if (withFunctions.has(db)) return;
  db.function('log_contains', { deterministic: true }, (message: unknown, lower: unknown) => (typeof message === 'string' && message.toLowerCase().includes(String(lower)) ? 1 : 0));
  withFunctions.add(db);
}

/** A condition on `logs` rows with its parameters (null: every row). */
interface Condition {
  readonly sql: string | null;
  readonly params: readonly unknown[];
}

function condition(filter: Pick<LogFilter, 'levels' | 'sources'> | null, lower: string | null): Condition {
  const params: unknown[] = [];
  const where = filter === null ? [] : levelAndSourceSql(filter, params);
  if (lower !== null) {
    where.push(containsSql('logs.message'));
    params.push(lower, lower);
  }
  return { sql: where.length === 0 ? null : where.join(' AND '), params };
}

/** A walk newest first: the matching keys found (descending); every match at or above `floor` is among them. */
interface Walk {
  readonly keys: number[];
  readonly floor: number;
  /** Whether it walked down to the range's lower end (false: it stopped at `want` keys or at its budget). */
  readonly complete: boolean;
}

/**
 * One step below `hi`: the matching keys of the next `size` entries (newest first, at most `want`),
 * every match in [floor, hi) among them; `done` when nothing is left below (the range's end reached).
 */
type Step = (hi: number, size: number, want: number) => { keys: number[]; floor: number; done: boolean; read: number };

/** Walk [lower, upper) newest first in growing steps (from `firstStep` up to `maxStep`) until `want` keys, the range's end or the budget's. */
function walkNewest(upper: number, lower: number, want: number, budget: SearchBudget, step: Step, maxStep = MAX_STEP, firstStep = FIRST_STEP): Walk {
  const keys: number[] = [];
  let hi = upper;
  let size = firstStep;
  for (;;) {
    const found = step(hi, size, want - keys.length);
    budget.take(found.read);
    for (const key of found.keys) keys.push(key);
    if (found.done) return { keys, floor: lower, complete: true };
    hi = found.floor;
    if (keys.length >= want || budget.spent) return { keys, floor: hi, complete: false };
    size = Math.min(size * 2, maxStep);
  }
}

interface StepRow {
  keys: string | null;
  lowest: number | null;
  read: number;
}

/**
 * Keys from a JSON array as SQLite built it, newest first. They come in the order the query walked
 * them (either way); an ORDER BY inside the aggregate would sort them again, at ~0.6 µs a key.
 */
function newestFirst(json: string | null): number[] {
  const keys = json === null ? [] : (JSON.parse(json) as number[]);
  let ascending = true;
  let descending = true;
  for (let i = 1; i < keys.length && (ascending || descending); i++) {
    if ((keys[i] as number) < (keys[i - 1] as number)) ascending = false;
    else descending = false;
  }
  if (descending) return keys;
  return ascending ? keys.reverse() : keys.sort((a, b) => b - a);
}

/** A step that read `size` entries (or fewer: then the range's end) and kept the matching ones. */
function stepResult(row: StepRow, hi: number, size: number): { keys: number[]; floor: number; done: boolean; read: number } {
  return { keys: newestFirst(row.keys), floor: row.lowest ?? hi, done: row.read < size, read: row.read };
}

/**
 * Lines of a table walked by key (`logs` itself, or the lines still waiting for the index), newest
 * first, that satisfy `where`: each step reads `size` lines, whatever matches.
 */
function walkLines(db: CacheDb, from: 'logs' | 'pending', where: Condition, upper: number, lower: number, want: number, budget: SearchBudget): Walk {
  const rows =
    from === 'logs'
      ? 'SELECT key, level, source, message FROM logs WHERE key < ? AND key >= ? ORDER BY key DESC LIMIT ?'
      : 'SELECT logs.key, logs.level, logs.source, logs.message FROM log_fts_pending AS pending CROSS JOIN logs ON logs.key = pending.key WHERE pending.key < ? AND pending.key >= ? ORDER BY pending.key DESC LIMIT ?';
  const filter = where.sql === null ? '' : ` FILTER (WHERE ${where.sql})`;
  const step = statement(db, `SELECT json_group_array(logs.key)${filter} AS keys, min(logs.key) AS lowest, count(*) AS read FROM (${rows}) AS logs`);
  return walkNewest(upper, lower, want, budget, (hi, size) => stepResult(step.get(...where.params, hi, lower, size) as StepRow, hi, size));
}

/** Entries read to compare trigrams: enough to tell a rare one from a common one (FTS5's setup, ~50 µs, is most of a probe). */
const PROBE = 16;
/** How long a trigram's measured sparsity is used before it is measured again. */
const PROBE_TTL_MS = 30_000;
/**
 * Per connection: how many keys each trigram's newest PROBE entries span (Infinity: it has fewer),
 * and when that was measured. Searches typed a character at a time, paged and run again share
 * trigrams; this spares them the probes. Only which trigram is walked depends on it, never an answer.
 */
const sparsities = new WeakMap<CacheDb, Map<string, { readonly span: number; readonly atMs: number }>>();

/**
 * Indexed lines satisfying `where` (the text's check among them), newest first, walking one trigram
 * of the text (see TextPlan): a step reads the driver's next `size` entries and the lines they point
 * to. The driver is the sparsest of the text's trigrams (the one whose newest entries reach back
 * furthest): the fewer lines it points to that do not match, the fewer a step reads.
 */
function walkIndex(db: CacheDb, plan: TextPlan, where: Condition, upper: number, lower: number, want: number, budget: SearchBudget): Walk {
  // Rowid bounds cast: better-sqlite3 binds a number as a REAL, and FTS5 takes only INTEGER bounds
  // as a range to seek (a REAL one it checks on every row it walks).
  const driverRows = 'SELECT rowid FROM logs_fts WHERE logs_fts MATCH ? AND rowid < CAST(? AS INTEGER) AND rowid >= CAST(? AS INTEGER) ORDER BY rowid DESC LIMIT ?';
  const joined = `(${driverRows}) AS d CROSS JOIN logs ON logs.key = d.rowid`;
  const filter = where.sql === null ? '' : ` FILTER (WHERE ${where.sql})`;
  // Every match among the step's entries (a view's filter needs them all): one pass, one FTS5 query.
  const all = statement(db, `SELECT json_group_array(d.rowid)${filter} AS keys, min(d.rowid) AS lowest, count(*) AS read FROM ${where.sql === null ? `(${driverRows}) AS d` : joined}`);
  // The newest `wanted` (a search's page): SQLite walks the entries newest first and stops there.
  const newest = statement(db, `SELECT json_group_array(key) FROM (SELECT d.rowid AS key FROM ${joined}${where.sql === null ? '' : ` WHERE ${where.sql}`} ORDER BY d.rowid DESC LIMIT ?)`).pluck();
  const span = statement(db, `SELECT min(rowid) AS lowest, count(*) AS read FROM (${driverRows})`);
  const driver = sparsest(db, plan.drivers, upper, lower, budget);
  return walkNewest(
    upper,
    lower,
    want,
    budget,
    (hi, size, wanted) => {
      if (!Number.isFinite(wanted)) return stepResult(all.get(...where.params, driver, hi, lower, size) as StepRow, hi, size);
      const keys = newestFirst(newest.get(driver, hi, lower, size, ...where.params, wanted) as string);
      // At `wanted` keys the step may have stopped early: it covered the range down to the last one.
      if (keys.length >= wanted) return { keys, floor: keys.at(-1) as number, done: false, read: size };
      const range = span.get(driver, hi, lower, size) as { lowest: number | null; read: number };
      return { keys, floor: range.lowest ?? hi, done: range.read < size, read: range.read };
    },
    where.sql === null ? MAX_INDEX_ONLY_STEP : MAX_STEP,
    Number.isFinite(want) ? FIRST_INDEX_STEP : FIRST_STEP,
  );
}

/** Of `drivers`, the one whose newest PROBE entries below `upper` span the most keys (or that has fewer). */
function sparsest(db: CacheDb, drivers: readonly string[], upper: number, lower: number, budget: SearchBudget): string {
  if (drivers.length === 1) return drivers[0] as string;
  let known = sparsities.get(db);
  if (!known) sparsities.set(db, (known = new Map()));
  if (known.size > 10_000) known.clear();
  const probe = statement(db, 'SELECT max(rowid) - min(rowid) AS span, count(*) AS read FROM (SELECT rowid FROM logs_fts WHERE logs_fts MATCH ? AND rowid < CAST(? AS INTEGER) AND rowid >= CAST(? AS INTEGER) ORDER BY rowid DESC LIMIT ?)');
  const nowMs = Date.now();
  let best = drivers[0] as string;
  let widest = -1;
  for (const driver of drivers) {
    let measured = known.get(driver);
    if (measured === undefined || nowMs - measured.atMs > PROBE_TTL_MS) {
      const found = probe.get(driver, upper, lower, PROBE) as { span: number | null; read: number };
      budget.visited += found.read;
      measured = { span: found.read < PROBE ? Infinity : (found.span ?? 0), atMs: nowMs };
      known.set(driver, measured);
    }
    if (measured.span > widest) {
      best = driver;
      widest = measured.span;
    }
    if (measured.span === Infinity) break;
  }
  return best;
}

/** The matching keys of both walks that lie above both floors (all matches there), newest first. */
function mergeWalks(walks: readonly Walk[]): { keys: number[]; complete: boolean } {
  const floor = Math.max(...walks.map((w) => w.floor));
  let keys: number[] = [];
  for (const walk of walks) keys = mergeSorted(keys, walk.keys.filter((k) => k >= floor), (k) => k, true);
  return { keys, complete: walks.every((w) => w.complete) };
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
 * slices that itself), oldest first, read line by line (no bound: a view reads its parts' lines
 * with this when it opens, and filters by source with it). Views filter by text in memory
 * (LogViews, textKeys, linesContaining); with a text this is what they must agree with.
 */
export function viewKeys(db: CacheDb, partIds: readonly string[], filter: LogFilter): { keys: number[]; levels: number[] } {
  ensureFunctions(db);
  const params: unknown[] = [];
  const where: string[] = [`logs.part_id IN (${partIds.map(() => '?').join(', ')})`];
  params.push(...partIds);
  where.push(...levelAndSourceSql(filter, params));
  const text = searchText(filter.text);
  if (text !== '') {
    where.push(containsSql('logs.message'));
    params.push(text.toLowerCase(), text.toLowerCase());
  }
  return keysAndLevels(db, 'logs', where, params);
}

/**
 * The keys of every cached line (all parts) whose message contains `text`, any case, ascending; null
 * when no trigram of the text can be looked up in the index (under 3 characters, or NULs between
 * every 3). A view intersects them with its parts' lines: the index answers a text in milliseconds
 * across the cache, where asking it for one part's matches walks the part's lines. Throws
 * SearchTooBroad past the budget.
 */
export function textKeys(db: CacheDb, text: string, budget: SearchBudget = SearchBudget.of(db)): number[] | null {
  ensureFunctions(db);
  const literal = searchText(text);
  const plan = planText(literal);
  if (plan.drivers.length === 0) return null;
  const verify = condition(null, plan.verify ? plan.lower : null);
  const all = Number.MAX_SAFE_INTEGER;
  const indexed = walkIndex(db, plan, verify, all, 0, Infinity, budget);
  const pending = indexed.complete ? walkLines(db, 'pending', condition(null, plan.lower), all, 0, Infinity, budget) : indexed;
  if (!indexed.complete || !pending.complete) throw tooBroadFilter(literal);
  return mergeSorted(indexed.keys.reverse(), pending.keys.reverse(), (k) => k);
}

/**
 * Of a view's lines (`lines`, keys ascending), the keys of those whose message contains `text`, any
 * case, ascending: the index's matches across the cache (textKeys) while walking them costs less than
 * reading the view's own lines (linesContaining), else those lines. Both within one SearchBound:
 * throws SearchTooBroad past it.
 */
export function viewMatches(db: CacheDb, lines: { readonly length: number; keysIn(from: number, to: number): number[] }, text: string, budget: SearchBudget = SearchBudget.of(db)): number[] {
  if (lines.length === 0) return [];
  const plan = planText(searchText(text));
  if (plan.drivers.length > 0) {
    // An index entry whose line must be read and checked costs about what a view's line does (~2 µs); one that is the match itself, ~0.3 µs.
    const part = budget.part(Math.max(1, lines.length * (plan.verify ? 1 : 6)));
    try {
      return textKeys(db, text, part) ?? [];
    } catch (e) {
      if (!(e instanceof SearchTooBroad)) throw e;
    } finally {
      budget.settle(part);
    }
  }
  return linesContaining(db, lines, text, budget);
}

/**
 * Of `keys` (ascending), those whose message contains `text`, any case (ascending): a view's own
 * lines read in steps, for a text the index cannot answer or answers with more than the view holds.
 * Throws SearchTooBroad past the budget.
 */
export function linesContaining(db: CacheDb, keys: { readonly length: number; keysIn(from: number, to: number): number[] }, text: string, budget: SearchBudget = SearchBudget.of(db)): number[] {
  ensureFunctions(db);
  const literal = searchText(text);
  const lower = literal.toLowerCase();
  const matching = statement(db, `SELECT json_group_array(key) FROM logs WHERE key IN (SELECT value FROM json_each(?)) AND ${containsSql('message')}`).pluck();
  const out: number[] = [];
  let size = FIRST_STEP;
  for (let from = 0; from < keys.length; from += size, size = Math.min(size * 2, MAX_STEP)) {
    if (from > 0 && budget.spent) throw tooBroadFilter(literal);
    const chunk = keys.keysIn(from, from + size);
    budget.take(chunk.length);
    for (const key of newestFirst(matching.get(JSON.stringify(chunk), lower, lower) as string).reverse()) out.push(key);
  }
  return out;
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
 * search, offline or not. `beforeKey` continues a previous page. Bounded by `budget` (SearchBound):
 * past it, the newest matches found so far with `more` (fewer than a page), or SearchTooBroad when
 * none was found.
 */
export function searchLogs(db: CacheDb, filter: LogFilter, limit: number, beforeKey: number | null, budget: SearchBudget = SearchBudget.of(db)): { hits: LogSearchHit[]; more: boolean } {
  ensureFunctions(db);
  const upper = Math.min(beforeKey ?? Number.MAX_SAFE_INTEGER, filter.endMs === null ? Number.MAX_SAFE_INTEGER : keyOfTime(filter.endMs + 1));
  const lower = filter.startMs === null ? 0 : keyOfTime(filter.startMs);
  const text = searchText(filter.text);
  const plan = text === '' ? null : planText(text);
  const want = limit + 1;
  let found: { keys: number[]; complete: boolean };
  if (upper <= lower) found = { keys: [], complete: true };
  else if (plan === null || plan.drivers.length === 0) {
    // No text, or none the index can look up: the lines themselves, newest first (keys are times).
    found = mergeWalks([walkLines(db, 'logs', condition(filter, plan?.lower ?? null), upper, lower, want, budget)]);
  } else {
    // The index walks its rowids newest first without sorting; lines not indexed yet are few and read.
    const indexed = walkIndex(db, plan, condition(filter, plan.verify ? plan.lower : null), upper, lower, want, budget);
    const pending = walkLines(db, 'pending', condition(filter, plan.lower), upper, lower, want, budget);
    found = mergeWalks([indexed, pending]);
  }
  if (found.keys.length === 0 && !found.complete) throw tooBroadSearch(text);
  const keys = found.keys.slice(0, want);
  const more = keys.length > limit || !found.complete;
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
