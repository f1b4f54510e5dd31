import type Database from 'better-sqlite3';
import type { LogEntry } from '../../proto/gen/fleet/app/v1/logs';

/** The levels a log entry has, in order of severity. */
export const LOG_LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * How much log the service keeps: per part, the newest RETAIN_PER_PART entries, none older than
 * RETAIN_DAYS. {@link LogStore.prune} applies it to the parts that logged since it last ran (the
 * simulation calls it after each append), {@link LogStore.sweep} the age bound to every part (at start).
 */
export const RETAIN_PER_PART = 20_000;
export const RETAIN_DAYS = 7;

/** An entry to store. */
export interface NewLogEntry {
  readonly partId: string;
  readonly timeUs: number;
  readonly level: LogLevel;
  readonly message: string;
  readonly source?: string;
  readonly host?: string;
  readonly caller?: Record<string, unknown> | null;
  readonly stack?: string;
  readonly fields?: readonly Record<string, unknown>[];
}

/** What GetRobotPartLogs asks for, validated. */
export interface LogQuery {
  readonly partId: string;
  /** Substring of the message (case-sensitive), '' = any. */
  readonly filter: string;
  /** Empty = every level. */
  readonly levels: readonly LogLevel[];
  readonly source: string;
  /** Inclusive bounds, epoch µs. */
  readonly startUs: number | null;
  readonly endUs: number | null;
  /** Resume after this (time_us, id), newest first. */
  readonly after: readonly [number, number] | null;
  readonly limit: number;
}

interface Row {
  id: number;
  time_us: number;
  level: string;
  source: string;
  host: string;
  message: string;
  caller: string | null;
  stack: string;
  fields: string;
}

/** A stored entry with its identity (for paging). */
export interface StoredLogEntry {
  readonly id: number;
  readonly timeUs: number;
  readonly entry: LogEntry;
}

export class LogStore {
  readonly #insert: Database.Statement;
  /** Parts this store appended to since the last prune. */
  readonly #touched = new Set<string>();
  readonly #countOf: Database.Statement;
  readonly #old: Database.Statement;
  readonly #oldest: Database.Statement;
  constructor(private readonly db: Database.Database) {
    this.#countOf = db.prepare('SELECT n FROM part_log_counts WHERE part_id = ?').pluck();
    this.#old = db.prepare('DELETE FROM part_logs WHERE part_id = ? AND time_us < ?');
    this.#oldest = db.prepare('DELETE FROM part_logs WHERE id IN (SELECT id FROM part_logs WHERE part_id = ? ORDER BY time_us, id LIMIT ?)');
    this.#insert = db.prepare(
      'INSERT INTO part_logs (part_id, time_us, level, source, host, message, caller, stack, fields) VALUES (@partId, @timeUs, @level, @source, @host, @message, @caller, @stack, @fields)',
    );
  }

  /** Stores entries in one transaction. */
  append(entries: readonly NewLogEntry[]): void {
    this.db.transaction(() => {
      for (const e of entries) {
        this.#touched.add(e.partId);
        this.#insert.run(row(e));
      }
    })();
  }

  /**
   * Stores many entries at once (a new demo data dir's day of logs), in one transaction. Per row,
   * the trigger that counts each part's entries (migration 8) cost more than the row itself; here it
   * is set aside for the load and put back as it was (its own SQL, from the schema), and the counts
   * of the parts loaded are taken from their rows in one statement. Rows go LOAD_ROWS to a statement,
   * with positional parameters: half the time of a statement per row with named ones. Other
   * connections see the schema and the counts before or after, never in between.
   */
  load(entries: readonly NewLogEntry[]): void {
    const columns = 'INSERT INTO part_logs (part_id, time_us, level, source, host, message, caller, stack, fields) VALUES ';
    const statement = (rows: number) => this.db.prepare(columns + Array.from({ length: rows }, () => '(?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', '));
    this.db.transaction(() => {
      const trigger = this.db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND name = 'part_logs_counted'").pluck().get() as string | undefined;
      if (trigger !== undefined) this.db.exec('DROP TRIGGER part_logs_counted');
      const full = statement(LOAD_ROWS);
      const parts = new Set<string>();
      for (let at = 0; at < entries.length; at += LOAD_ROWS) {
        const chunk = entries.slice(at, at + LOAD_ROWS);
        const values = chunk.flatMap((e) => {
          parts.add(e.partId);
          const r = row(e);
          return [r.partId, r.timeUs, r.level, r.source, r.host, r.message, r.caller, r.stack, r.fields];
        });
        (chunk.length === LOAD_ROWS ? full : statement(chunk.length)).run(values);
      }
      if (trigger !== undefined) this.db.exec(trigger);
      this.db
        .prepare(
          `INSERT INTO part_log_counts (part_id, n) SELECT part_id, count(*) FROM part_logs WHERE part_id IN (SELECT value FROM json_each(?)) GROUP BY part_id
             ON CONFLICT (part_id) DO UPDATE SET n = excluded.n`,
        )
        .run(JSON.stringify([...parts]));
      for (const part of parts) this.#touched.add(part);
    })();
  }

  /** A part's entries matching `q`, newest first (time, then insertion order), at most `q.limit`. */
  query(q: LogQuery): StoredLogEntry[] {
    const where = ['part_id = @partId'];
    const params: Record<string, unknown> = { partId: q.partId, limit: q.limit };
    if (q.filter !== '') {
      where.push('instr(message, @filter) > 0');
      params.filter = q.filter;
    }
    if (q.levels.length > 0) {
      where.push('level IN (SELECT value FROM json_each(@levels))');
      params.levels = JSON.stringify(q.levels);
    }
    if (q.source !== '') {
      where.push('source = @source');
      params.source = q.source;
    }
    if (q.startUs !== null) {
      where.push('time_us >= @startUs');
      params.startUs = q.startUs;
    }
    if (q.endUs !== null) {
      where.push('time_us <= @endUs');
      params.endUs = q.endUs;
    }
    if (q.after) {
      where.push('(time_us, id) < (@afterTime, @afterId)');
      params.afterTime = q.after[0];
      params.afterId = q.after[1];
    }
    const rows = this.db.prepare(`SELECT id, time_us, level, source, host, message, caller, stack, fields FROM part_logs WHERE ${where.join(' AND ')} ORDER BY time_us DESC, id DESC LIMIT @limit`).all(params) as Row[];
    return rows.map((r) => ({ id: r.id, timeUs: r.time_us, entry: toEntry(r) }));
  }

  /** Whether the part still exists (a tail of a deleted part ends). */
  partExists(id: string): boolean {
    return this.db.prepare('SELECT 1 FROM robot_parts WHERE id = ?').pluck().get(id) !== undefined;
  }

  /** The id of the newest entry stored (0 when none): a feed starts after it. */
  latestId(): number {
    return (this.db.prepare('SELECT max(id) FROM part_logs').pluck().get() as number | null) ?? 0;
  }

  /** Entries stored after entry `id`, of every part, in the order they were stored. */
  after(id: number, limit: number): (StoredLogEntry & { readonly partId: string })[] {
    const rows = this.db.prepare('SELECT id, part_id, time_us, level, source, host, message, caller, stack, fields FROM part_logs WHERE id > ? ORDER BY id LIMIT ?').all(id, limit) as (Row & { part_id: string })[];
    return rows.map((r) => ({ id: r.id, partId: r.part_id, timeUs: r.time_us, entry: toEntry(r) }));
  }

  /**
   * Applies the retention bound to the parts appended to since the last prune; answers how many
   * entries went. The cost follows what is deleted, not what is kept: the age bound is a range at
   * the old end of the part's index, and the count bound deletes the part's oldest excess entries,
   * known from the count triggers keep per part (migration 8). Walking past the 20,000
   * kept entries of every part instead cost seconds a minute at 20,000 lines a second, and stalled
   * every call and stream of the service meanwhile; pruning after each append keeps each prune small.
   */
  prune(nowUs: number): number {
    const parts = [...this.#touched];
    this.#touched.clear();
    const cutoff = nowUs - RETAIN_DAYS * 86_400_000_000;
    return this.db.transaction(() =>
      parts.reduce((n, part) => {
        const aged = this.#old.run(part, cutoff).changes;
        const excess = ((this.#countOf.get(part) as number | undefined) ?? 0) - RETAIN_PER_PART;
        return n + aged + (excess > 0 ? this.#oldest.run(part, excess).changes : 0);
      }, 0),
    )();
  }

  /** The age bound over every part, those that stopped logging too: one pass over the whole log, run when the service starts. */
  sweep(nowUs: number): number {
    return this.db.prepare('DELETE FROM part_logs WHERE time_us < ?').run(nowUs - RETAIN_DAYS * 86_400_000_000).changes;
  }
}

/** Rows per statement of {@link LogStore.load}: 50 × 9 parameters, under SQLite's oldest limit of 999. */
const LOAD_ROWS = 50;

/** An entry as the insert statement's parameters. */
function row(e: NewLogEntry): { partId: string; timeUs: number; level: LogLevel; source: string; host: string; message: string; caller: string | null; stack: string; fields: string } {
  return {
    partId: e.partId,
    timeUs: e.timeUs,
    level: e.level,
    source: e.source ?? '',
    host: e.host ?? '',
    message: e.message,
    caller: e.caller ? JSON.stringify(e.caller) : null,
    stack: e.stack ?? '',
    fields: JSON.stringify(e.fields ?? []),
  };
}

function toEntry(r: Row): LogEntry {
  return {
    time: new Date(Math.floor(r.time_us / 1000)),
    level: r.level,
    message: r.message,
    source: r.source,
    host: r.host,
    caller: r.caller === null ? undefined : (JSON.parse(r.caller) as Record<string, unknown>),
    stack: r.stack,
    fields: JSON.parse(r.fields) as Record<string, unknown>[],
    id: String(r.id),
  };
}
