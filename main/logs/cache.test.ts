import { describe, expect, it } from 'vitest';
import { logFilter, type LogLevel } from '../../common/logs';
import { openCache } from '../cache/cache';
import { cacheJobs } from '../cache/jobs';
import { TailRobotPartLogsResponse } from '../../proto/gen/fleet/app/v1/logs';
import { packMessages, unpackMessages } from './convert';
import { entryIdentity, evictLogs, indexPending, insertLogs, keyOfTime, logTotals, mergeIndexInSteps, mergeIndexStep, putLogParts, readDetail, searchLogs, timeOfKey, viewKeys, type IncomingEntry } from './cache';

const T0 = Date.parse('2026-11-24T10:00:00.000Z');
const LEVELS: LogLevel[] = ['DEBUG', 'INFO', 'WARN', 'ERROR'];
const all = logFilter.parse({});

function entry(i: number, over: Partial<IncomingEntry> = {}): IncomingEntry {
  return { entryId: String(i), timeMs: T0 + i * 10, level: LEVELS[i % 4] ?? 'INFO', source: i % 2 ? 'module.camera' : 'rdk.robot_server', host: 'h', message: `line ${i}${i % 10 === 0 ? ' Motor stalled' : ''}`, caller: null, stack: '', fields: [], ...over };
}

describe('log cache', () => {
  it('keys lines by time, keeps their order within a millisecond, and skips an entry it already holds', () => {
    const db = openCache(':memory:');
    const first = insertLogs(db, 'p1', [entry(1), entry(2), { ...entry(3), timeMs: T0 + 20 }], 5);
    expect(first.map((l) => l.message)).toEqual(['line 1', 'line 2', 'line 3']);
    expect(first[1]!.key).toBe(keyOfTime(T0 + 20));
    expect(first[2]!.key).toBe(keyOfTime(T0 + 20) + 1);
    expect(timeOfKey(first[2]!.key)).toBe(T0 + 20);
    // The same entries again (a gap filled twice), and one new: only the new one is cached.
    const again = insertLogs(db, 'p1', [entry(1), entry(2), entry(4)], 6);
    expect(again.map((l) => l.message)).toEqual(['line 4']);
    // Another part may use the same entry ids.
    expect(insertLogs(db, 'p2', [entry(1)], 7)).toHaveLength(1);
    expect(logTotals(db).lines).toBe(5);
  });

  it('merges the index in steps of its own (none inside writes), and searches stay right', () => {
    const build = (stepwise: boolean) => {
      const db = openCache(':memory:');
      if (stepwise) mergeIndexInSteps(db);
      for (let slice = 0; slice < 40; slice++) {
        insertLogs(db, 'p1', Array.from({ length: 20 }, (_, i) => entry(slice * 20 + i)), 1);
        indexPending(db, 20);
      }
      return db;
    };
    const steps = (db: ReturnType<typeof build>) => {
      let n = 0;
      while (mergeIndexStep(db, 1)) n += 1;
      return n;
    };
    // Merging in steps, the writes leave the merging to the steps (FTS5 left to itself does much of it inside the writes).
    const db = build(true);
    expect(db.prepare(`SELECT k, v FROM logs_fts_config WHERE k IN ('automerge', 'crisismerge') ORDER BY k`).all()).toEqual([
      { k: 'automerge', v: 0 },
      { k: 'crisismerge', v: 64 },
    ]);
    expect(steps(db)).toBeGreaterThan(steps(build(false)));
    // Then a step says there is nothing more to do.
    expect(mergeIndexStep(db, 50)).toBe(false);
    expect(searchLogs(db, { ...all, text: 'Motor stalled' }, 1000, null).hits).toHaveLength(80);
    expect(() => db.prepare(`INSERT INTO logs_fts (logs_fts) VALUES ('integrity-check')`).run()).not.toThrow();
  });

  it('identifies an entry by its content when the service gives no id', () => {
    const a = entry(1, { entryId: '' });
    expect(entryIdentity(a)).toBe(entryIdentity({ ...a }));
    expect(entryIdentity(a)).not.toBe(entryIdentity({ ...a, message: 'other' }));
    const db = openCache(':memory:');
    expect(insertLogs(db, 'p1', [a, a, { ...a, message: 'other' }], 1)).toHaveLength(2);
  });

  it.each([
    ['indexed', 100],
    ['partly indexed', 37],
    ['not indexed yet', 0],
  ])('finds substrings (3 characters and more through the trigram index, shorter ones by scan), any case, newest first, with levels, sources and time range — lines %s', (_, indexed) => {
    const db = openCache(':memory:');
    insertLogs(db, 'p1', Array.from({ length: 100 }, (_, i) => entry(i)), 1);
    expect(indexPending(db, indexed)).toBe(indexed);
    expect(db.prepare('SELECT count(*) FROM log_fts_pending').pluck().get()).toBe(100 - indexed);
    putLogParts(db, [{ partId: 'p1', orgId: 'o1', machineId: 'm1', machineName: 'rover', partName: 'main' }]);
    const search = (f: object, limit = 50, before: number | null = null) => searchLogs(db, logFilter.parse(f), limit, before);
    const motor = search({ text: 'motor STALLED' });
    expect(motor.hits.map((h) => h.message)).toEqual([90, 80, 70, 60, 50, 40, 30, 20, 10, 0].map((i) => `line ${i} Motor stalled`));
    expect(motor.hits[0]).toMatchObject({ machineName: 'rover', partName: 'main', orgId: 'o1', cachedAtMs: 1 });
    expect(search({ text: '99' }).hits.map((h) => h.message)).toEqual(['line 99']);
    expect(search({ text: 'line 1', levels: ['WARN'] }).hits.map((h) => h.message)).toEqual(['line 18', 'line 14', 'line 10 Motor stalled']);
    expect(search({ text: 'stalled', sources: ['rdk'] }).hits).toHaveLength(10);
    expect(search({ text: 'stalled', sources: ['rdk.robot'] }).hits).toHaveLength(0);
    expect(search({ text: 'stalled', startMs: T0 + 200, endMs: T0 + 500 }).hits.map((h) => h.message)).toEqual(['line 50 Motor stalled', 'line 40 Motor stalled', 'line 30 Motor stalled', 'line 20 Motor stalled']);
    // Paging: the next page continues below the last key.
    const page1 = search({}, 30);
    const page2 = search({}, 30, page1.hits.at(-1)!.key);
    expect(page1.more).toBe(true);
    expect(page2.hits[0]!.message).toBe('line 69');
    expect(search({ text: '100%_"x' }).hits).toEqual([]);
  });

  it('evicts the oldest lines beyond the count or byte bound, down to 99 %, at most a step at a time, keeping the totals and the index right', () => {
    const db = openCache(':memory:');
    insertLogs(db, 'p1', Array.from({ length: 1000 }, (_, i) => entry(i)), 1);
    expect(evictLogs(db, { maxLines: 2000, maxBytes: 10_000_000 })).toBeNull();
    // A step of 300: the cache stays over its bound until the next call.
    expect(evictLogs(db, { maxLines: 500, maxBytes: 10_000_000 }, 300)).toBe(keyOfTime(T0 + 299 * 10) + 1);
    expect(logTotals(db).lines).toBe(700);
    const cutoff = evictLogs(db, { maxLines: 500, maxBytes: 10_000_000 }, 300);
    expect(cutoff).not.toBeNull();
    expect(logTotals(db).lines).toBe(495);
    expect(evictLogs(db, { maxLines: 500, maxBytes: 10_000_000 }, 300)).toBeNull();
    expect(db.prepare('SELECT count(*) FROM logs').pluck().get()).toBe(495);
    expect(viewKeys(db, ['p1'], all).keys[0]).toBe(keyOfTime(T0 + 505 * 10));
    expect(searchLogs(db, logFilter.parse({ text: 'line 5 ' }), 10, null).hits).toEqual([]);
    indexPending(db, 300);
    expect(searchLogs(db, logFilter.parse({ text: 'line 999' }), 10, null).hits.map((h) => h.message)).toEqual(['line 999']);
    expect(viewKeys(db, ['p1'], logFilter.parse({ text: 'Motor' })).keys).toHaveLength(49);
    // Evicting indexed and pending lines alike leaves the index whole.
    indexPending(db, 100);
    evictLogs(db, { maxLines: 200, maxBytes: 10_000_000 });
    db.prepare("INSERT INTO logs_fts (logs_fts) VALUES ('integrity-check')").run();
    expect(searchLogs(db, logFilter.parse({ text: 'Motor' }), 100, null).hits).toHaveLength(19);
    const { bytes } = logTotals(db);
    evictLogs(db, { maxLines: 100_000, maxBytes: Math.floor(bytes / 2) });
    expect(logTotals(db).bytes).toBeLessThanOrEqual(Math.floor(bytes / 2));
    expect(logTotals(db).bytes).toBe(db.prepare('SELECT sum(bytes) FROM logs').pluck().get());
  });

  it('keeps caller, stack and fields for the detail of a line', () => {
    const db = openCache(':memory:');
    const [line] = insertLogs(db, 'p1', [entry(3, { caller: { file: 'a.go', line: 3 }, stack: 'goroutine 1', fields: [{ attempt: 2 }] })], 1);
    expect(line!.hasDetail).toBe(true);
    expect(readDetail(db, line!.key)).toEqual({ caller: { file: 'a.go', line: 3 }, stack: 'goroutine 1', fields: [{ attempt: 2 }], entryId: '3' });
  });
});

describe('tailed messages', () => {
  it('are decoded in the worker from their packed protobuf bytes, deduplicated with fetched entries, with the service\'s dropped count', () => {
    const db = openCache(':memory:');
    const wire = (i: number) => ({ time: new Date(T0 + i * 10), level: 'WARN', message: `tailed ${i}`, source: 'module.camera', host: 'h', caller: { file: 'a.go' }, stack: '', fields: [{ n: i }], id: String(i) });
    const messages = [TailRobotPartLogsResponse.encode({ logs: [wire(1), wire(2)], dropped: 0 }).finish(), TailRobotPartLogsResponse.encode({ logs: [wire(3)], dropped: 7 }).finish()];
    const packed = packMessages(messages);
    expect(unpackMessages(packed).entries.map((e) => e.message)).toEqual(['tailed 1', 'tailed 2', 'tailed 3']);
    const result = cacheJobs.logsAppend(db, [{ partId: 'p1', entries: [entry(2)] }], [{ partId: 'p1', kind: 'tail', packed }], 5, { maxLines: 1e6, maxBytes: 1e9 });
    // Entry 2 came both fetched and tailed: cached once.
    expect(result.added).toEqual({ p1: 3 });
    expect(result.dropped).toEqual({ p1: 7 });
    expect(result.newestMs).toEqual({ p1: T0 + 30 });
    const lines = viewKeys(db, ['p1'], all).keys;
    expect(lines).toHaveLength(3);
    expect(readDetail(db, lines[0]!)).toMatchObject({ caller: { file: 'a.go' }, fields: [{ n: 1 }], entryId: '1' });
  });
});

describe('log views', () => {
  it('show a part set by position, slice the time range, find errors, count per level, and take new lines with one update per call', () => {
    const db = openCache(':memory:');
    cacheJobs.logsAppend(db, [{ partId: 'p1', entries: Array.from({ length: 100 }, (_, i) => entry(i)) }], [], 1, { maxLines: 1e6, maxBytes: 1e9 });
    const state = cacheJobs.logsOpen(db, 'v1', ['p1'], all);
    expect(state).toMatchObject({ viewId: 'v1', total: 100, sources: ['module.camera', 'rdk.robot_server'], oldestMs: T0, newestMs: T0 + 990 });
    expect(cacheJobs.logsRows(db, 'v1', 98, 10).lines.map((l) => l.message)).toEqual(['line 98', 'line 99']);
    expect(cacheJobs.logsSeekError(db, 'v1', 0, 1)).toBe(3);
    expect(cacheJobs.logsSeekError(db, 'v1', 3, -1)).toBeNull();
    expect(cacheJobs.logsLocate(db, 'v1', keyOfTime(T0 + 500))).toBe(50);
    expect(cacheJobs.logsLocate(db, 'v1', keyOfTime(T0 + 505))).toBe(51);
    expect(cacheJobs.logsLocate(db, 'v1', keyOfTime(T0 + 5000))).toBeNull();
    const errors = cacheJobs.logsFilter(db, 'v1', logFilter.parse({ levels: ['ERROR'], startMs: T0 + 100, endMs: T0 + 200 }));
    expect(errors.total).toBe(3);
    expect(cacheJobs.logsRows(db, 'v1', 0, 10).lines.map((l) => l.message)).toEqual(['line 11', 'line 15', 'line 19']);
    cacheJobs.logsFilter(db, 'v1', all);
    const h = cacheJobs.logsHistogram(db, 'v1', 10);
    expect(h.counts.map((c) => c.reduce((a, b) => a + b, 0))).toEqual([25, 25, 25, 25]);
    expect(h.counts[3]![0]).toBe(2);
    cacheJobs.logsOpen(db, 'v2', ['p1', 'p2'], logFilter.parse({ text: 'motor' }));
    const { updates, added } = cacheJobs.logsAppend(
      db,
      [
        { partId: 'p1', entries: [entry(100), entry(101), entry(99)] },
        { partId: 'p2', entries: [entry(110)] },
        { partId: 'p3', entries: [entry(120)] },
      ],
      [],
      2,
      { maxLines: 1e6, maxBytes: 1e9 },
    );
    expect(added).toEqual({ p1: 2, p2: 1, p3: 1 });
    expect(updates.map((u) => [u.viewId, u.total, u.appended, u.movedFrom !== null || u.reset])).toEqual([
      ['v1', 102, 2, false],
      ['v2', 12, 2, false],
    ]);
    expect(updates[1]!.lines.map((l) => l.message)).toContain('line 110 Motor stalled');
    // A line older than the view's end (a filled gap) lands in place and says the rows moved.
    const late = cacheJobs.logsAppend(db, [{ partId: 'p1', entries: [entry(50, { entryId: 'late', message: 'late' })] }], [], 3, { maxLines: 1e6, maxBytes: 1e9 });
    expect(late.updates.map((u) => [u.viewId, u.total, u.movedFrom, u.reset])).toEqual([['v1', 103, 51, false]]);
    // The update carries every line from where they moved.
    expect(late.updates[0]!.linesFrom).toBe(51);
    expect(cacheJobs.logsRows(db, 'v1', 50, 2).lines.map((l) => l.message)).toEqual(['line 50 Motor stalled', 'late']);
  });

  it('filter in memory exactly as the cache would select: levels, texts indexed and pending, sources; lines taken while filtered show once the filter is cleared; eviction', () => {
    const db = openCache(':memory:');
    const retention = { maxLines: 1e6, maxBytes: 1e9 };
    cacheJobs.logsAppend(db, [{ partId: 'p1', entries: Array.from({ length: 300 }, (_, i) => entry(i)) }, { partId: 'p2', entries: Array.from({ length: 50 }, (_, i) => entry(i, { entryId: `b${i}` })) }], [], 1, retention);
    // Half the lines indexed, half still pending: the text filter takes both.
    indexPending(db, 200);
    cacheJobs.logsOpen(db, 'v', ['p1'], all);
    const filters = [
      { levels: ['ERROR'] },
      { levels: ['DEBUG', 'WARN'] },
      { text: 'motor' },
      { text: 'MOTOR STALLED', levels: ['INFO', 'WARN'] },
      { text: 'ne 2' },
      { text: '7' },
      { sources: ['module'] },
      { sources: ['rdk.robot_server'], text: 'stall' },
      { levels: ['DEBUG', 'INFO', 'WARN', 'ERROR'] },
    ] as const;
    for (const change of filters) {
      const filter = logFilter.parse(change);
      const state = cacheJobs.logsFilter(db, 'v', filter);
      const expected = viewKeys(db, ['p1'], filter).keys;
      expect(expected.length, JSON.stringify(change)).toBeGreaterThan(0);
      expect(state.total, JSON.stringify(change)).toBe(expected.length);
      const shown = cacheJobs.logsRows(db, 'v', 0, 1000).lines.map((l) => l.key);
      expect(shown, JSON.stringify(change)).toEqual(expected);
    }
    // Lines arriving while errors only are shown: the errors show now, the rest once the filter is cleared.
    cacheJobs.logsFilter(db, 'v', logFilter.parse({ levels: ['ERROR'] }));
    const errorsBefore = cacheJobs.logsFilter(db, 'v', logFilter.parse({ levels: ['ERROR'] })).total;
    const more = cacheJobs.logsAppend(db, [{ partId: 'p1', entries: [entry(300), entry(301), entry(302), entry(303), entry(150, { entryId: 'gap', level: 'ERROR' })] }], [], 2, retention);
    expect(more.updates.map((u) => [u.total, u.appended, u.movedFrom])).toEqual([[errorsBefore + 2, 2, 37]]);
    expect(cacheJobs.logsFilter(db, 'v', all).total).toBe(305);
    expect(cacheJobs.logsRows(db, 'v', 0, 1000).lines.map((l) => l.key)).toEqual(viewKeys(db, ['p1'], all).keys);
    // Evicting the oldest lines drops them from both.
    cacheJobs.logsFilter(db, 'v', logFilter.parse({ levels: ['ERROR'] }));
    cacheJobs.logsEvict(db, { maxLines: 200, maxBytes: 1e9 });
    const left = viewKeys(db, ['p1'], all).keys;
    expect(cacheJobs.logsFilter(db, 'v', logFilter.parse({ levels: ['ERROR'] })).total).toBe(viewKeys(db, ['p1'], logFilter.parse({ levels: ['ERROR'] })).keys.length);
    expect(cacheJobs.logsFilter(db, 'v', all).total).toBe(left.length);
    expect(cacheJobs.logsRows(db, 'v', 0, 1000).lines.map((l) => l.key)).toEqual(left);
  });
});
