/**
 * A log cache filled for the benchmarks: lines made by the service's own log simulator (its
 * templates, levels, sources, error details), cached through the app's cache code, every line
 * indexed. The same lines every run (a seeded generator).
 */
import { performance } from 'node:perf_hooks';
import type { JsonObject } from '../common/schemas';
import type { CacheDb } from '../main/cache/cache';
import { indexPending, insertLogBatches, putLogParts, type IncomingEntry, type LogPartInfo } from '../main/logs/cache';
import { simulatedLevel, simulatedLine } from '../service/logs/simulated';

/** mulberry32: a small seeded generator. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface SeededLogs {
  /** The six-hex-digit ids the lines mention, with how many lines mention each. */
  readonly ids: ReadonlyMap<string, number>;
  /** Seconds spent caching and indexing. */
  readonly cacheSeconds: number;
  readonly indexSeconds: number;
}

/**
 * Cache `lines` lines spread evenly over `parts` and over [endMs - spanMs, endMs], written in
 * interleaved batches as tails write them; then index every line.
 */
export function seedLogs(db: CacheDb, parts: readonly LogPartInfo[], lines: number, spanMs: number, endMs: number): SeededLogs {
  const started = performance.now();
  const random = seeded(7);
  putLogParts(db, parts);
  const start = endMs - spanMs;
  const perPart = Math.ceil(lines / parts.length);
  const ids = new Map<string, number>();
  const BATCH_PARTS = 20;
  const STEP = 500;
  for (let from = 0; from < perPart; from += STEP) {
    for (let group = 0; group < parts.length; group += BATCH_PARTS) {
      const batches = parts.slice(group, group + BATCH_PARTS).map((part, p) => {
        const entries: IncomingEntry[] = [];
        for (let i = from; i < Math.min(perPart, from + STEP); i++) {
          const timeMs = start + Math.floor(((i + random()) / perPart) * spanMs);
          const line = simulatedLine({ partId: part.partId, name: `${part.machineName}-${part.partName}` }, simulatedLevel(random), timeMs * 1000, random);
          for (const id of line.message.match(/\b[0-9a-f]{6}\b/g) ?? []) ids.set(id, (ids.get(id) ?? 0) + 1);
          entries.push({
            entryId: `bench-${group + p}-${i}`,
            timeMs,
            level: line.level,
            source: line.source ?? '',
            host: line.host ?? '',
            message: line.message,
            caller: (line.caller ?? null) as JsonObject | null,
            stack: line.stack ?? '',
            fields: (line.fields ?? []) as JsonObject[],
          });
        }
        return { partId: part.partId, entries };
      });
      insertLogBatches(db, batches, Date.now());
    }
  }
  const cached = performance.now();
  while (indexPending(db, 50_000) > 0);
  db.pragma('wal_checkpoint(TRUNCATE)');
  return { ids, cacheSeconds: (cached - started) / 1000, indexSeconds: (performance.now() - cached) / 1000 };
}
