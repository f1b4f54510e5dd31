/**
 * Bad input in the log channels (issue 16), through the real backend and bridge router, the real
 * embedded service (demo fleet logging 2,000 lines a second) and the real cache worker, its search
 * bound made small (a search may read 1 entry past its first step) so that a text too broad to
 * search is cheap to construct: any text is a literal (NULs, FTS5 syntax, lone surrogates), a view
 * that fails to open leaves no tail behind, a filter that fails leaves the previous one, and no
 * input to any logs channel is answered with an internal error (fast-check).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelName } from '../../common/channels';
import { LOG_LEVELS, type LogFilterInput } from '../../common/logs';
import { isLive } from '../../common/machines';
import type { Result } from '../../common/result';
import { forkService } from '../../main/local-service/supervisor';
import { cacheWorkerEntry, openTestBackend, tempDir, type TestBackend } from '../helpers/backend';

let dir: ReturnType<typeof tempDir>;
let app: TestBackend;
/** The parts of one live machine; ten live parts (logging fast enough to fill a view in a moment); parts for the fuzz. */
let machineParts: string[];
let manyParts: string[];
let liveParts: string[];
/** A view open throughout: whatever the fuzz does, it still answers. */
let anchor: { viewId: string; partIds: string[] };

beforeAll(async () => {
  dir = tempDir('fleet-desk-logs-input-');
  app = await openTestBackend(dir.path, {
    spawnService: (entry, args, options) => forkService(entry, [...args, '--log-rate', '2000'], options),
    timing: { retryMinMs: 100, retryMaxMs: 500, refreshMs: 60_000, deadlineMs: 5_000, tailRetryMinMs: 100, tailRetryMaxMs: 400 },
    cacheWorker: { entry: cacheWorkerEntry, settings: { searchBound: { maxVisited: 1 } } },
  });
  await app.backend.start();
  const acme = (await app.value('orgs.list', {})).orgs.find((o) => o.name === 'Acme Warehouse Robotics')!.id;
  const tree = await app.value('locations.tree', { orgId: acme });
  const now = Date.now();
  const live = tree.machines.filter((m) => m.parts.length > 1 && m.parts.every((p) => isLive(p.lastAccess, now)));
  machineParts = live[0]!.parts.map((p) => p.id);
  liveParts = tree.machines.flatMap((m) => m.parts.filter((p) => isLive(p.lastAccess, now)).map((p) => p.id)).slice(0, 20);
  const other = liveParts.filter((p) => !machineParts.includes(p)).at(-1)!;
  manyParts = liveParts.filter((p) => p !== other).slice(0, 10);
  anchor = { viewId: (await app.value('logs.open', { partIds: [other] })).viewId, partIds: [other] };
  // Enough lines in a view of them that a text searched line by line cannot finish in one step (256 lines).
  const first = await app.value('logs.open', { partIds: manyParts });
  await until(async () => (await app.value('logs.rows', { viewId: first.viewId, from: 0, count: 1 })).total > 600, 30_000, 'lines cached');
  await app.value('logs.close', { viewId: first.viewId });
}, 60_000);
afterAll(async () => {
  await app.close();
  dir.remove();
});

const until = async (check: () => boolean | Promise<boolean>, timeoutMs = 15_000, what = 'condition') => {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

/** The parts tailed now, from the backend's own registry (through the bridge). */
const tailed = async (): Promise<string[]> => Object.keys(await app.value('logs.status', {})).sort();

describe('texts with NULs, FTS5 syntax, quotes and lone surrogates', () => {
  it('are literals to logs.search, logs.open and logs.filter: never an internal error, and a line holding the text is found', async () => {
    // Texts cut out of what the demo logs, around characters FTS5's syntax gives a meaning to.
    const found = await app.value('logs.search', { filter: {}, limit: 500 });
    const samples = ['(attempt', 'x=', 'ok: ', '%', ': deadline'].map((piece) => {
      const line = found.hits.find((h) => h.message.includes(piece));
      if (!line) return null;
      const at = line.message.indexOf(piece);
      return line.message.slice(Math.max(0, at - 3), at + piece.length + 2);
    });
    const odd = ['a\u0000b', 'motor\u0000stalled', '\u0000', '"', '""', '"motor', 'NEAR(motor stalled)', 'motor*', '^motor', 'motor AND stalled', '\ud800', 'x\udc00y', '\u0001\u001f', '%_\\'];
    const texts = [...odd, ...samples.filter((s): s is string => s !== null)];
    expect(texts.length).toBeGreaterThan(odd.length + 2);
    for (const text of texts) {
      const label = JSON.stringify(text);
      const search = await app.call('logs.search', { filter: { text } });
      // A search may stop at the small bound ("too broad": invalid), never fail inside.
      if (!search.ok) expect(search.error.kind, `${label}: ${search.error.message}`).toBe('invalid');
      else expect(search.value.hits.every((h) => h.message.toLowerCase().includes(text.toLowerCase())), label).toBe(true);
      if (samples.includes(text)) {
        expect(search.ok && search.value.hits.length > 0, label).toBe(true);
      }
      const opened = await app.call('logs.open', { partIds: machineParts, filter: { text } });
      if (!opened.ok) expect(opened.error.kind, `${label}: ${opened.error.message}`).toBe('invalid');
      else {
        const rows = await app.value('logs.rows', { viewId: opened.value.viewId, from: 0, count: 50 });
        expect(rows.lines.every((l) => l.message.toLowerCase().includes(text.toLowerCase())), label).toBe(true);
        const filtered = await app.call('logs.filter', { viewId: opened.value.viewId, filter: { text: `${text}${text}` } });
        if (!filtered.ok) expect(filtered.error.kind, `${label}: ${filtered.error.message}`).toBe('invalid');
        await app.value('logs.close', { viewId: opened.value.viewId });
      }
    }
    expect(await tailed()).toEqual([...anchor.partIds].sort());
  }, 60_000);
});

describe('a view that fails', () => {
  it('to open (its filter too broad to compute) starts no tail and keeps none', async () => {
    const before = await tailed();
    // Under 3 characters: read line by line, and the view has more lines than the bound lets it read.
    const opened = await app.call('logs.open', { partIds: manyParts, filter: { text: 'q\u0000' } });
    expect(opened.ok).toBe(false);
    expect(!opened.ok && opened.error).toMatchObject({ kind: 'invalid', message: expect.stringMatching(/Filtering this view by "q\\u0000" would take too long.*Type at least 3 characters/) as unknown });
    expect(await tailed()).toEqual(before);
    expect(before.some((p) => manyParts.includes(p))).toBe(false);
  });

  it('to filter keeps its previous filter, and reads and older history still work', async () => {
    const view = await app.value('logs.open', { partIds: manyParts, filter: { levels: ['ERROR', 'WARN'] } });
    // A NUL in a text the index looks up (its trigrams around the NUL): a literal.
    const nul = await app.call('logs.filter', { viewId: view.viewId, filter: { levels: ['ERROR', 'WARN'], text: 'stalled\u0000' } });
    expect(nul.ok && nul.value.total).toBe(0);
    const kept = await app.value('logs.filter', { viewId: view.viewId, filter: { levels: ['ERROR', 'WARN'] } });
    const broad = await app.call('logs.filter', { viewId: view.viewId, filter: { levels: ['ERROR'], text: 'q\u0000' } });
    expect(!broad.ok && broad.error.kind).toBe('invalid');
    const rows = await app.value('logs.rows', { viewId: view.viewId, from: 0, count: 1000 });
    expect(rows.total).toBeGreaterThanOrEqual(kept.total);
    expect(rows.lines.length).toBeGreaterThan(0);
    expect(rows.lines.every((l) => l.level === 'ERROR' || l.level === 'WARN')).toBe(true);
    const older = await app.call('logs.older', { viewId: view.viewId });
    expect(older.ok, older.ok ? '' : older.error.message).toBe(true);
    const after = await app.value('logs.rows', { viewId: view.viewId, from: 0, count: 1000 });
    expect(after.lines.every((l) => l.level === 'ERROR' || l.level === 'WARN')).toBe(true);
    await app.value('logs.close', { viewId: view.viewId });
    expect(await tailed()).toEqual([...anchor.partIds].sort());
  });
});

describe('any input to the logs channels', () => {
  /** Texts of every kind: any code point, lone surrogates, FTS5 and LIKE syntax, runs, too long. */
  const text = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 30 }),
    fc.array(fc.constantFrom('\u0000', '"', '*', 'NEAR(', '^', ')', ':', '-', '\ud800', '\udc00', ' AND ', ' OR ', 'NOT', '%', '_', '\\', 'motor', 'stalled', 'ms', ' ', 'q', '\u0001'), { maxLength: 12 }).map((parts) => parts.join('')),
    fc.constantFrom('-'.repeat(500), '0'.repeat(500), 'a'.repeat(501), ''),
    fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 20 }),
  );
  const filter: fc.Arbitrary<LogFilterInput> = fc.record(
    {
      text,
      levels: fc.subarray([...LOG_LEVELS]),
      sources: fc.array(fc.oneof(fc.constantFrom('rdk', 'module', 'rdk.robot_server'), fc.string({ maxLength: 12 })), { maxLength: 3 }),
      startMs: fc.option(fc.integer({ min: 0, max: Date.now() + 86_400_000 }), { nil: null }),
      endMs: fc.option(fc.integer({ min: 0, max: Date.now() + 86_400_000 }), { nil: null }),
    },
    { requiredKeys: [] },
  );
  /** A view id: one opened in this run (by its index), the anchor, or any text. */
  const viewRef = fc.oneof(fc.nat({ max: 3 }), fc.constant('anchor'), fc.string({ maxLength: 8 }), fc.constant('v999999'));
  const key = fc.oneof(fc.nat(), fc.constant(Number.MAX_SAFE_INTEGER), fc.integer({ min: -5, max: 5 }));
  const partIds = fc.oneof(fc.subarray(['p', 'q', 'r'], { minLength: 1 }).map((ids) => ids.map((i) => `no-such-${i}`)), fc.nat({ max: 5 }).map((n) => [liveParts[n % liveParts.length]!]), fc.constant([]));
  type Command = { channel: ChannelName; payload: unknown; view?: unknown };
  const command: fc.Arbitrary<Command> = fc.oneof(
    { weight: 4, arbitrary: fc.record({ channel: fc.constant<ChannelName>('logs.search'), payload: fc.record({ filter, limit: fc.integer({ min: 0, max: 600 }), beforeKey: fc.option(key, { nil: null }) }, { requiredKeys: ['filter'] }) }) },
    { weight: 2, arbitrary: fc.record({ channel: fc.constant<ChannelName>('logs.open'), payload: fc.record({ partIds, filter }, { requiredKeys: ['partIds'] }) }) },
    { weight: 4, arbitrary: fc.record({ channel: fc.constant<ChannelName>('logs.filter'), view: viewRef, payload: fc.record({ filter }) }) },
    { weight: 2, arbitrary: fc.record({ channel: fc.constant<ChannelName>('logs.rows'), view: viewRef, payload: fc.record({ from: key, count: fc.integer({ min: -1, max: 1200 }) }) }) },
    { weight: 1, arbitrary: fc.record({ channel: fc.constant<ChannelName>('logs.seek'), view: viewRef, payload: fc.record({ from: key, dir: fc.constantFrom(1, -1, 0) }) }) },
    { weight: 1, arbitrary: fc.record({ channel: fc.constant<ChannelName>('logs.locate'), view: viewRef, payload: fc.record({ key }) }) },
    { weight: 1, arbitrary: fc.record({ channel: fc.constant<ChannelName>('logs.histogram'), view: viewRef, payload: fc.record({ buckets: fc.integer({ min: 0, max: 600 }) }) }) },
    { weight: 1, arbitrary: fc.record({ channel: fc.constant<ChannelName>('logs.older'), view: viewRef, payload: fc.constant({}) }) },
    { weight: 1, arbitrary: fc.record({ channel: fc.constant<ChannelName>('logs.close'), view: viewRef, payload: fc.constant({}) }) },
    { weight: 1, arbitrary: fc.record({ channel: fc.constant<ChannelName>('logs.detail'), payload: fc.record({ key }) }) },
    { weight: 1, arbitrary: fc.record({ channel: fc.constantFrom<ChannelName>('logs.status', 'logs.retention'), payload: fc.constant({}) }) },
    { weight: 1, arbitrary: fc.record({ channel: fc.constant<ChannelName>('logs.export'), view: viewRef, payload: fc.record({ format: fc.constantFrom('text', 'jsonl', 'csv') }) }) },
    // Payloads of any shape on any logs channel.
    { weight: 2, arbitrary: fc.record({ channel: fc.constantFrom<ChannelName>('logs.search', 'logs.open', 'logs.filter', 'logs.rows', 'logs.older', 'logs.close', 'logs.setRetention'), payload: fc.anything() }) },
  );

  it('answers every channel without an internal error; views closed leave no tail; the views left still answer', async () => {
    const opened: string[] = [];
    const viewIdOf = (ref: unknown): string => (ref === 'anchor' ? anchor.viewId : typeof ref === 'number' ? (opened[ref] ?? anchor.viewId) : String(ref));
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 8 }), async (commands) => {
        opened.length = 0;
        const open = new Set<string>();
        try {
          for (const c of commands) {
            const payload = c.view === undefined ? c.payload : { ...(c.payload as object), viewId: viewIdOf(c.view) };
            const result = (await app.host.dispatch({ transport: 'ipc', url: 'app://fleet-desk/index.html', id: 1 }, c.channel, payload)) as Result<{ viewId?: string }>;
            if (!result.ok) expect(result.error.kind, `${c.channel} ${JSON.stringify(payload)}: ${result.error.message}`).not.toBe('internal');
            if (result.ok && c.channel === 'logs.open' && result.value.viewId) {
              opened.push(result.value.viewId);
              open.add(result.value.viewId);
            }
            if (c.channel === 'logs.close' && result.ok) {
              open.delete(viewIdOf(c.view));
              if (viewIdOf(c.view) === anchor.viewId) anchor = { ...anchor, viewId: (await app.value('logs.open', { partIds: anchor.partIds })).viewId };
            }
          }
          // Every view still open answers a plain read, whatever filter failed on it.
          for (const viewId of [anchor.viewId, ...open]) {
            const rows = await app.call('logs.rows', { viewId, from: 0, count: 10 });
            expect(rows.ok, `${viewId}: ${rows.ok ? '' : rows.error.message}`).toBe(true);
          }
        } finally {
          for (const viewId of opened) await app.call('logs.close', { viewId });
          await app.call('logs.setRetention', { maxLines: 2_000_000, maxBytes: 1024 * 1024 * 1024 });
        }
        expect(await tailed()).toEqual([...anchor.partIds].sort());
      }),
      { numRuns: 150 },
    );
  }, 300_000);
});
