/**
 * The logs domain of the bridge: log views (one part or several merged, read from the profile's
 * cache while main tails the parts live), fleet-wide search of the cache, export, and the cache's
 * retention. The renderer never holds a view's lines: it asks for the rows on screen by position, so
 * a view of a million lines costs it a screenful.
 */
import { z } from 'zod';
import { LOG_LEVELS, MAX_VIEW_PARTS, type LogLevel } from './log-levels';
import { id, type JsonObject } from './schemas';

// The levels and the merged view's bound are apart, without zod: the page's log state loads on the
// window's boot path (common/log-levels.ts).
export { LOG_LEVELS, MAX_VIEW_PARTS, type LogLevel } from './log-levels';
/** At most this many rows per `logs.rows` call (a few screens). */
export const MAX_ROWS = 1000;

/**
 * What a view shows. Every field narrows; the defaults show everything. `text` is a
 * case-insensitive substring of the message (the service's `filter` is case-sensitive; people
 * searching a log expect "error" to find "Error").
 */
export const logFilter = z
  .object({
    text: z.string().max(500, 'is too long (at most 500 characters)').default(''),
    /** Empty = every level. */
    levels: z.array(z.enum(LOG_LEVELS)).max(4).default([]),
    /** Sources kept: a source matches when equal or when it starts with one of these and a dot. Empty = all. */
    sources: z.array(z.string().min(1).max(200)).max(50).default([]),
    /** Inclusive bounds, epoch ms; null = open. */
    startMs: z.number().int().nonnegative().nullable().default(null),
    endMs: z.number().int().nonnegative().nullable().default(null),
  })
  .strict()
  .refine((f) => f.startMs === null || f.endMs === null || f.startMs <= f.endMs, { message: 'the start of the time range must not be after its end', path: ['startMs'] });
export type LogFilter = z.output<typeof logFilter>;
export type LogFilterInput = z.input<typeof logFilter>;

/** One cached entry, as a row of a view or a search hit. */
export interface LogLine {
  /** The cache's key of the line: unique, and ordered as the lines' times are. */
  readonly key: number;
  readonly partId: string;
  /** The entry's time, epoch ms. */
  readonly timeMs: number;
  readonly level: LogLevel;
  readonly source: string;
  readonly host: string;
  readonly message: string;
  /** Whether the entry has a caller, a stack or fields (`logs.detail` reads them). */
  readonly hasDetail: boolean;
  /** When this app cached the entry, epoch ms. */
  readonly cachedAtMs: number;
}

/** What an entry carries besides its line. */
export interface LogDetail {
  readonly caller: JsonObject | null;
  readonly stack: string;
  readonly fields: readonly JsonObject[];
  /** The service's identity of the entry (or the cache's, from its content, where the service gives none). */
  readonly entryId: string;
}

/** A view as main holds it. Positions run 0…total-1, oldest first. */
export interface LogViewState {
  readonly viewId: string;
  /** Lines matching the filter, time range included. */
  readonly total: number;
  /** Sources seen in the view's parts (for the source filter). */
  readonly sources: readonly string[];
  /** Time of the oldest and newest lines of the parts, whatever the filter (null when none is cached). */
  readonly oldestMs: number | null;
  readonly newestMs: number | null;
}

/** Counts of a view's lines per level in equal time buckets (the volume histogram). */
export interface LogHistogram {
  readonly startMs: number;
  readonly stepMs: number;
  /** counts[level index][bucket] */
  readonly counts: readonly (readonly number[])[];
}

/** How a tailed part's stream is doing. */
export interface TailStatus {
  /** live: streaming; connecting: (re)opening; disconnected: broken, retrying at `retryAt`. */
  readonly state: 'live' | 'connecting' | 'disconnected';
  /** Since when it is in this state, epoch ms. */
  readonly sinceMs: number;
  readonly retryAt: number | null;
  /** Why it broke, in words. */
  readonly error: string | null;
  /** The last breaks, newest last: when, how long, and how many lines the gap fill brought. */
  readonly outages: readonly { readonly fromMs: number; readonly toMs: number; readonly filled: number }[];
}

/** A search hit: the line, where it comes from, by name as cached. */
export interface LogSearchHit extends LogLine {
  readonly orgId: string;
  readonly machineId: string;
  readonly machineName: string;
  readonly partName: string;
}

export interface LogRetention {
  /** Oldest lines are evicted beyond either bound. */
  readonly maxLines: number;
  readonly maxBytes: number;
}

export const DEFAULT_RETENTION: LogRetention = { maxLines: 2_000_000, maxBytes: 1024 * 1024 * 1024 };

const viewId = z.string().regex(/^v\d{1,9}$/, 'is not a view id');

export const logsRequests = {
  /** Open a view of one part or several merged; main starts tailing them (online) and fetches recent history. */
  'logs.open': z.object({ partIds: z.array(id).min(1, 'name at least one part').max(MAX_VIEW_PARTS), filter: logFilter.default({ text: '', levels: [], sources: [], startMs: null, endMs: null }) }).strict(),
  /** Change what an open view shows. */
  'logs.filter': z.object({ viewId, filter: logFilter }).strict(),
  /** Rows `from` … `from + count - 1` of a view. */
  'logs.rows': z.object({ viewId, from: z.number().int().nonnegative(), count: z.number().int().min(1).max(MAX_ROWS) }).strict(),
  /** The position of the first line at or after a time (jump to), or of the next/previous error from a position. */
  'logs.seek': z
    .object({
      viewId,
      /** From this position, the next (`dir` 1) or previous (-1) ERROR line. */
      from: z.number().int().nonnegative(),
      dir: z.union([z.literal(1), z.literal(-1)]),
    })
    .strict(),
  /** The position of a line in a view (a search hit opened in context), or of the first line after it. */
  'logs.locate': z.object({ viewId, key: z.number().int().nonnegative() }).strict(),
  'logs.detail': z.object({ key: z.number().int().nonnegative() }).strict(),
  /** Volume per level over the view's time span (the filter applies, the time range does not). */
  'logs.histogram': z.object({ viewId, buckets: z.number().int().min(1).max(500) }).strict(),
  /** Fetch older history of the view's parts from the service (one page each). */
  'logs.older': z.object({ viewId }).strict(),
  'logs.close': z.object({ viewId }).strict(),
  /** How every tailed part's stream is doing (then follow `logs.tails`). */
  'logs.status': z.object({}).strict(),
  /** Search every cached line of the profile (works offline). */
  'logs.search': z.object({ filter: logFilter, limit: z.number().int().min(1).max(500).default(100), beforeKey: z.number().int().nonnegative().nullable().default(null) }).strict(),
  /** Write what a view shows to a file (main streams it; Electron asks where with the save dialog). */
  'logs.export': z.object({ viewId, format: z.enum(['text', 'jsonl']) }).strict(),
  'logs.retention': z.object({}).strict(),
  'logs.setRetention': z
    .object({
      maxLines: z.number().int().min(1000, 'keep at least 1,000 lines').max(100_000_000),
      maxBytes: z
        .number()
        .int()
        .min(1024 * 1024, 'keep at least 1 MiB')
        .max(64 * 1024 ** 3),
    })
    .strict(),
} as const;

export interface LogsResponses {
  'logs.open': LogViewState;
  'logs.filter': LogViewState;
  'logs.rows': { readonly from: number; readonly total: number; readonly lines: readonly LogLine[] };
  'logs.seek': { readonly position: number | null };
  'logs.locate': { readonly position: number | null };
  'logs.detail': LogDetail;
  'logs.histogram': LogHistogram;
  'logs.older': LogViewState & { readonly added: number; readonly exhausted: boolean };
  'logs.close': Record<string, never>;
  'logs.status': TailStatuses;
  'logs.search': { readonly hits: readonly LogSearchHit[]; readonly more: boolean; readonly tookMs: number };
  /** `path` where it was written (Electron), or `url` to download it from (browser mode); both null when the user cancelled. */
  'logs.export': { readonly path: string | null; readonly url: string | null; readonly lines: number; readonly bytes: number };
  'logs.retention': LogRetention & { readonly lines: number; readonly bytes: number };
  'logs.setRetention': LogRetention & { readonly lines: number; readonly bytes: number };
}

/**
 * A view grew or changed (`logs.view` event), at most one per view per frame: main batches the
 * lines that arrive meanwhile.
 */
export interface LogViewUpdate {
  readonly viewId: string;
  readonly total: number;
  readonly appended: number;
  /** The time of the oldest line appended since the previous update (null when none was): how late the batch is. */
  readonly appendedFromMs: number | null;
  /** The view's last lines (up to 200) after the change, from position `linesFrom`: what a following view draws. */
  readonly lines: readonly LogLine[];
  readonly linesFrom: number;
  /**
   * Lines landed before the end (merged parts' batches interleave by a few milliseconds): rows from
   * this position on may have moved. Null when only appended.
   */
  readonly movedFrom: number | null;
  /** Rows anywhere may have moved (history fetched, a gap filled far back): read them again. */
  readonly reset: boolean;
  /** Lines evicted from the start of the view (retention). */
  readonly evicted: number;
}

/** The status of every tailed part (`logs.tails` event), whole each time. */
export type TailStatuses = Readonly<Record<string, TailStatus>>;
