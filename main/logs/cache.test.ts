import { describe, expect, it } from 'vitest';
import { logFilter, type LogLevel } from '../../common/logs';
import { openCache } from '../cache/cache';
import { cacheJobs } from '../cache/all-jobs';
import { TailRobotPartLogsResponse } from '../../proto/gen/fleet/app/v1/logs';
import { packMessages, unpackMessages } from './convert';
import { entryIdentity, evictLogs, indexPending, insertLogs, keyOfTime, logTotals, mergeIndexInSteps, mergeIndexStep, putLogParts, readDetail, SearchBudget, searchLogs, SearchTooBroad, setSearchBound, textKeys, timeOfKey, viewKeys, type IncomingEntry } from './cache';

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

describe('any text is a literal', () => {
  /** Messages holding what FTS5's query syntax, LIKE or SQLite's C strings would take for something else. */
  const odd = [
    'nul a\u0000b inside',
    'quote say "hi" now',
    'fts NEAR(motor stalled, 3) here',
    'caret ^start and star* ops',
    'bool motor AND stalled OR NOT x',
    'ctl tab\there\u0001\u001f\u007f end',
    'like 100%_done \\ back',
    'col column:value -minus +plus {a b}',
    'lone \ud800 half',
  ];
  const texts: [string, string][] = [
    ['a\u0000b', 'nul a\u0000b inside'],
    ['\u0000b ins', 'nul a\u0000b inside'],
    ['\u0000', 'nul a\u0000b inside'],
    ['"hi"', 'quote say "hi" now'],
    ['y "', 'quote say "hi" now'],
    ['NEAR(motor', 'fts NEAR(motor stalled, 3) here'],
    ['^start', 'caret ^start and star* ops'],
    ['star*', 'caret ^start and star* ops'],
    ['AND stalled OR NOT', 'bool motor AND stalled OR NOT x'],
    ['\there\u0001\u001f\u007f', 'ctl tab\there\u0001\u001f\u007f end'],
    ['100%_', 'like 100%_done \\ back'],
    ['\\', 'like 100%_done \\ back'],
    ['column:value -minus', 'col column:value -minus +plus {a b}'],
    ['{a b}', 'col column:value -minus +plus {a b}'],
    ['\ud800 h', 'lone \ud800 half'],
    ['\ud800', 'lone \ud800 half'],
    // Longer than a phrase, with a NUL: looked up by some of its trigrams, then checked whole.
    ['nul a\u0000b inside', 'nul a\u0000b inside'],
  ];

  it.each([
    ['indexed', true],
    ['pending', false],
  ])('finds the line holding the text, whatever it holds, by search and by views — lines %s', (_, index) => {
    const db = openCache(':memory:');
    cacheJobs.logsAppend(db, [{ partId: 'p1', entries: [...Array.from({ length: 50 }, (_, i) => entry(i)), ...odd.map((message, i) => entry(100 + i, { message }))] }], [], 1, { maxLines: 1e6, maxBytes: 1e9 });
    if (index) indexPending(db, 1000);
    cacheJobs.logsOpen(db, 'v', ['p1'], all);
    for (const [text, line] of texts) {
      // SQLite stores a lone surrogate as U+FFFD: that is the line's message now.
      const expected = [line.replace('\ud800', '\ufffd')];
      const label = JSON.stringify(text);
      expect(searchLogs(db, logFilter.parse({ text }), 10, null).hits.map((h) => h.message), label).toEqual(expected);
      expect(searchLogs(db, logFilter.parse({ text: text.toUpperCase() }), 10, null).hits.map((h) => h.message), label).toEqual(expected);
      expect(cacheJobs.logsFilter(db, 'v', logFilter.parse({ text })).total, label).toBe(1);
      expect(cacheJobs.logsRows(db, 'v', 0, 10).lines.map((l) => l.message), label).toEqual(expected);
      expect(cacheJobs.logsOpen(db, 'w', ['p1'], logFilter.parse({ text })).total, label).toBe(1);
      expect(viewKeys(db, ['p1'], logFilter.parse({ text })).keys, label).toHaveLength(1);
    }
    // A line taken while the filter is set is checked the same way.
    cacheJobs.logsFilter(db, 'v', logFilter.parse({ text: 'a\u0000b' }));
    const { updates } = cacheJobs.logsAppend(db, [{ partId: 'p1', entries: [entry(200, { message: 'new A\u0000B' }), entry(201)] }], [], 2, { maxLines: 1e6, maxBytes: 1e9 });
    expect(updates.find((u) => u.viewId === 'v')).toMatchObject({ total: 2, appended: 1, lines: [{ message: 'new A\u0000B' }] });
  });
});

describe('a search is bounded', () => {
  const retention = { maxLines: 1e6, maxBytes: 1e9 };
  /** 3,000 lines with runs of dashes (what makes a trigram index work hardest), then 20 ordinary ones. */
  function dashes(index: boolean) {
    const db = openCache(':memory:');
    const lines = [...Array.from({ length: 3000 }, (_, i) => entry(i, { message: `${'-'.repeat(20 + (i % 40))} section ${i}` })), ...Array.from({ length: 20 }, (_, i) => entry(3000 + i))];
    cacheJobs.logsAppend(db, [{ partId: 'p1', entries: lines }], [], 1, retention);
    if (index) indexPending(db, 10_000);
    return db;
  }
  /** A budget of entries read, with no deadline (the figure a test can assert on whatever the machine). */
  const entries = (maxVisited: number) => new SearchBudget({ deadlineMs: 3_600_000, maxVisited });

  it.each([
    ['indexed', true],
    ['pending', false],
  ])('stops a text too broad to finish at its budget, with what it found or "too broad"; a common text still answers its newest page — lines %s', (_, index) => {
    const db = dashes(index);
    // Every line with dashes holds the text's only trigram, none the text: all 3,000 would be read.
    const budget = entries(1000);
    let error: unknown;
    try {
      searchLogs(db, logFilter.parse({ text: '-'.repeat(500) }), 100, null, budget);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SearchTooBroad);
    expect(error).toMatchObject({ kind: 'invalid', message: expect.stringMatching(/too common.*Make it longer or more specific/) as unknown });
    expect(budget.visited).toBeGreaterThanOrEqual(1000);
    expect(budget.visited).toBeLessThan(2000);
    // Matches among the lines read (every 40th line has 59 dashes): the newest of them, said to have more.
    const partial = searchLogs(db, logFilter.parse({ text: `${'-'.repeat(59)} section` }), 100, null, entries(1000));
    expect(partial.more).toBe(true);
    expect(partial.hits.length).toBeGreaterThan(0);
    expect(partial.hits.length).toBeLessThan(75);
    expect(partial.hits[0]!.message).toBe(`${'-'.repeat(59)} section 2999`);
    expect(partial.hits.every((h) => h.message.startsWith(`${'-'.repeat(59)} section`))).toBe(true);
    // Within the whole budget, the walk reaches the end: nothing more.
    expect(searchLogs(db, logFilter.parse({ text: '-'.repeat(500) }), 100, null, entries(1e6))).toEqual({ hits: [], more: false });
    // A common text: its newest page at once (the first step of each walk holds it).
    const common = entries(1000);
    const page = searchLogs(db, logFilter.parse({ text: '------' }), 100, null, common);
    expect(page.hits).toHaveLength(100);
    expect(page.more).toBe(true);
    expect(page.hits[0]!.message).toContain('section 2999');
    expect(common.steps).toBeLessThanOrEqual(2);
    expect(common.visited).toBeLessThanOrEqual(1024);
  });

  it('bounds texts the index cannot look up, and filters of levels and sources alone', () => {
    const db = dashes(true);
    for (const filter of [{ text: 'q\u0000' }, { text: 'Ω' }, { sources: ['no.such'] }, { text: 'section', levels: ['ERROR'], sources: ['no.such'] }]) {
      const budget = entries(1000);
      expect(() => searchLogs(db, logFilter.parse(filter), 100, null, budget), JSON.stringify(filter)).toThrow(SearchTooBroad);
      expect(budget.visited, JSON.stringify(filter)).toBeLessThan(2000);
    }
    expect(searchLogs(db, logFilter.parse({ text: 'Ω' }), 100, null, entries(1e6))).toEqual({ hits: [], more: false });
  });

  it('bounds a view\'s text filter: one too broad fails and leaves the view as it was (a reload too); a view that cannot open is not kept', () => {
    const db = dashes(true);
    cacheJobs.logsAppend(db, [{ partId: 'p2', entries: Array.from({ length: 50 }, (_, i) => entry(i, { entryId: `b${i}` })) }], [], 2, retention);
    setSearchBound(db, { deadlineMs: 3_600_000, maxVisited: 1000 });
    expect(() => textKeys(db, '-'.repeat(500))).toThrow(SearchTooBroad);
    expect(textKeys(db, '-'.repeat(500), entries(1e6))).toEqual([]);
    cacheJobs.logsOpen(db, 'v', ['p1'], all);
    const errors = cacheJobs.logsFilter(db, 'v', logFilter.parse({ levels: ['ERROR'] }));
    const shown = cacheJobs.logsRows(db, 'v', 0, 1000).lines;
    expect(shown.every((l) => l.level === 'ERROR')).toBe(true);
    for (const text of ['-'.repeat(500), 'q\u0000']) {
      expect(() => cacheJobs.logsFilter(db, 'v', logFilter.parse({ text })), JSON.stringify(text)).toThrow(/Filtering this view by .* would take too long/);
      expect(cacheJobs.logsState(db, 'v')).toEqual(errors);
      expect(cacheJobs.logsRows(db, 'v', 0, 1000).lines).toEqual(shown);
    }
    // What logs.older does after fetching history: reload the views of the part.
    expect(() => cacheJobs.logsReload(db, ['p1'])).not.toThrow();
    expect(cacheJobs.logsRows(db, 'v', 0, 1000).lines).toEqual(shown);
    // A view of a few lines reads them rather than the index's 3,000 matches.
    cacheJobs.logsOpen(db, 'small', ['p2'], all);
    expect(cacheJobs.logsFilter(db, 'small', logFilter.parse({ text: '-'.repeat(500) })).total).toBe(0);
    expect(cacheJobs.logsFilter(db, 'small', logFilter.parse({ text: 'line 4' })).total).toBe(11);
    // A filter set before the cache grew past the budget: reloading keeps its lines.
    setSearchBound(db, { deadlineMs: 3_600_000, maxVisited: 1e6 });
    cacheJobs.logsFilter(db, 'v', logFilter.parse({ text: 'section 1' }));
    const before = cacheJobs.logsRows(db, 'v', 0, 2000).lines;
    cacheJobs.logsAppend(db, [{ partId: 'p1', entries: Array.from({ length: 3000 }, (_, i) => entry(5000 + i, { message: `section 1${i} later` })) }], [], 3, retention);
    indexPending(db, 10_000);
    setSearchBound(db, { deadlineMs: 3_600_000, maxVisited: 10 });
    const grown = cacheJobs.logsReload(db, ['p1']);
    expect(grown.map((u) => u.viewId)).toContain('v');
    expect(cacheJobs.logsState(db, 'v').total).toBe(before.length + 3000);
    // Opening with a filter too broad: no view is kept, and no other is evicted for it.
    const opened = ['v', 'small'];
    expect(() => cacheJobs.logsOpen(db, 'broad', ['p1'], logFilter.parse({ text: '-'.repeat(500) }))).toThrow(SearchTooBroad);
    expect(cacheJobs.logsHasView(db, 'broad')).toBe(false);
    for (const id of opened) expect(cacheJobs.logsHasView(db, id)).toBe(true);
  });
});
