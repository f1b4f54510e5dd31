/**
 * Issue #16: the worst log searches at the full default retention (2,000,000 lines) hold the cache
 * worker no longer than the search bound (SEARCH_BOUND: its deadline plus one step) — answering
 * "too broad" or a partial page instead — while an ordinary search stays as fast as before.
 *
 * - The cache: a profile's cache file with the default retention's 2,000,000 lines: 1,900,000
 *   simulated lines of 200 parts over two days (bench/log-seed.ts) and 100,000 lines of the kind
 *   that makes a trigram index work hardest, spread over the same days: banners of dashes and equal
 *   signs, hex dumps of zeros, runs of one letter (a search for a long run of one character reads
 *   every such line; the issue's 500 dashes took 0.26–0.74 s over 200,000 lines).
 * - Measured through main's bridge router and the cache worker (as log-search.ts): `logs.search`
 *   for the first page (100 hits) of each query, and `logs.filter` on an open view of all 200 parts
 *   (2,000,000 lines) and on one of a single part; each RUNS times, the slowest kept. The lines not
 *   indexed yet are searched by scan: that case is measured on the file itself before the worker
 *   indexes them (searchLogs in this process, 100,000 of the lines pending).
 * - Judged: the worst latency ≤ the bound's deadline + 50 ms (one step of the walk and the round
 *   trip). Baseline: an ordinary rare-word search in the same run; each figure is printed as a
 *   ratio to it.
 *
 *   npm run bench -- log-search-worst
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Backend } from '../main/backend/backend';
import { createRouter } from '../main/backend/router';
import { openCache } from '../main/cache/cache';
import { MemoryKeychain } from '../main/keychain/keychain';
import { indexPending, insertLogBatches, mergeIndexStep, SEARCH_BOUND, searchLogs, type IncomingEntry } from '../main/logs/cache';
import { DEFAULT_RETENTION, logFilter, type LogFilterInput } from '../common/logs';
import { machine, ms, report, repoRoot } from './lib';
import { seedLogs } from './log-seed';

const LINES = DEFAULT_RETENTION.maxLines;
const HARD_LINES = 100_000;
const PARTS = 200;
const SPAN_MS = 2 * 24 * 3_600_000;
const RUNS = 5;
/** What the bound allows: no step starts after the deadline; one step and the bridge's round trip may follow it. */
const LIMIT_MS = SEARCH_BOUND.deadlineMs + 50;

const parts = Array.from({ length: PARTS }, (_, i) => ({
  partId: `bench-part-${i}`,
  orgId: 'bench-org',
  machineId: `bench-machine-${Math.floor(i / 4)}`,
  machineName: `robot-${String(Math.floor(i / 4)).padStart(3, '0')}`,
  partName: ['main', 'arm', 'base', 'camera'][i % 4] ?? 'main',
}));

/** The hard lines: what a real cache holds now and then (banners, dumps, repeated characters). */
function hardLine(i: number): string {
  switch (i % 4) {
    case 0:
      return `${'-'.repeat(20 + (i % 60))} section ${i} ${'-'.repeat(20 + (i % 40))}`;
    case 1:
      return `dump ${i.toString(16)}: ${Array.from({ length: 8 + (i % 8) }, () => '0000').join(' ')}`;
    case 2:
      return `${'='.repeat(30 + (i % 50))} config ${i} ${'='.repeat(30)}`;
    default:
      return `sensor ${i} raw ${'a'.repeat(40 + (i % 80))}`;
  }
}

/** Fills the cache: simulated lines indexed, the hard ones cached after them and left pending. Answers a rare id. */
function seed(path: string, endMs: number): { rareId: string } {
  const db = openCache(path);
  const seeded = seedLogs(db, parts, LINES - HARD_LINES, SPAN_MS, endMs);
  const start = endMs - SPAN_MS;
  for (let from = 0; from < HARD_LINES; from += 5000) {
    const entries: IncomingEntry[] = [];
    for (let i = from; i < from + 5000; i++) {
      entries.push({ entryId: `hard-${i}`, timeMs: start + Math.floor((i / HARD_LINES) * SPAN_MS), level: 'INFO', source: 'module.dump', host: 'h', message: hardLine(i), caller: null, stack: '', fields: [] });
    }
    insertLogBatches(db, [{ partId: parts[7]!.partId, entries }], Date.now());
  }
  db.close();
  const rareId = [...seeded.ids].find(([, count]) => count >= 3 && count <= 10)?.[0];
  if (rareId === undefined) throw new Error('no rare id in the simulated lines');
  return { rareId };
}

async function openBackend(userDataDir: string): Promise<Backend> {
  return Backend.open({
    userDataDir,
    serviceEntry: join(repoRoot, 'service', 'main.ts'),
    cacheWorker: { entry: join(repoRoot, 'main', 'cache', 'worker.ts'), execArgv: ['--import', 'tsx'] },
    keychain: { store: new MemoryKeychain(), status: { available: false, reason: 'benchmark' } },
    timing: { refreshMs: 3_600_000, deadlineMs: 30_000 },
    log: () => undefined,
  });
}

interface Timed {
  readonly name: string;
  readonly worstMs: number;
  readonly answer: string;
}

async function main(): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-bench-worst-'));
  const userDataDir = join(dir, 'user-data');
  let backend = await openBackend(userDataDir);
  await backend.start();
  try {
    const dispatch = (channel: string, payload: unknown) => createRouter(backend.handlers, { isTrustedSender: () => true }).dispatch({ transport: 'ipc', url: 'bench', id: 1 }, channel, payload);
    const listed = await dispatch('profiles.list', {});
    if (!listed.ok) throw new Error(listed.error.message);
    const cachePath = join(userDataDir, 'profiles', (listed.value as { activeId: string }).activeId, 'cache.sqlite');
    await backend.close();
    const seeding = performance.now();
    const { rareId } = seed(cachePath, Date.now());
    console.log(`log-search-worst on ${machine()}`);
    console.log(`  cache: ${LINES.toLocaleString('en')} lines (${HARD_LINES.toLocaleString('en')} hard ones) of ${PARTS} parts over 2 days, seeded in ${((performance.now() - seeding) / 1000).toFixed(0)} s; bound: ${SEARCH_BOUND.deadlineMs} ms deadline, ${SEARCH_BOUND.maxVisited.toLocaleString('en')} entries`);

    const timings: Timed[] = [];
    const answerOf = (r: { ok: boolean; value?: unknown; error?: { kind: string; message: string } }) =>
      r.ok ? `${(r.value as { hits?: unknown[]; total?: number }).hits?.length ?? (r.value as { total: number }).total}${(r.value as { more?: boolean }).more ? '+' : ''} lines` : `${r.error?.kind}: ${r.error?.message.slice(0, 60)}…`;

    // The hard lines still pending: searched by scan, on the file itself (the worker would index them meanwhile).
    {
      const db = openCache(cachePath);
      const pending = db.prepare('SELECT count(*) FROM log_fts_pending').pluck().get() as number;
      for (const text of ['-'.repeat(500), 'q\u0000']) {
        let worst = 0;
        let answer = '';
        for (let run = 0; run < RUNS; run++) {
          const started = performance.now();
          try {
            const found = searchLogs(db, logFilter.parse({ text }), 100, null);
            answer = `${found.hits.length}${found.more ? '+' : ''} lines`;
          } catch (e) {
            answer = `${(e as { kind?: string }).kind ?? 'error'}: ${(e as Error).message.slice(0, 60)}…`;
          }
          worst = Math.max(worst, performance.now() - started);
        }
        timings.push({ name: `search ${JSON.stringify(text.slice(0, 12))}${text.length > 12 ? `…×${text.length}` : ''}, ${pending.toLocaleString('en')} lines pending (in process)`, worstMs: worst, answer });
      }
      while (indexPending(db, 50_000) > 0);
      // Merged now, not by the worker between the measured jobs (each would wait for a merge step).
      while (mergeIndexStep(db, 2000));
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
    }

    backend = await openBackend(userDataDir);
    const router = createRouter(backend.handlers, { isTrustedSender: () => true });
    const call = async (channel: string, payload: unknown) => {
      const started = performance.now();
      const result = await router.dispatch({ transport: 'ipc', url: 'bench', id: 1 }, channel, payload);
      return { result: result as { ok: boolean; value?: unknown; error?: { kind: string; message: string } }, ms: performance.now() - started };
    };
    const worstOf = async (name: string, channel: string, payload: () => unknown): Promise<Timed> => {
      let worst = 0;
      let answer = '';
      for (let run = 0; run < RUNS; run++) {
        const { result, ms: took } = await call(channel, payload());
        if (!result.ok && result.error?.kind === 'internal') throw new Error(`${name}: ${result.error.message}`);
        answer = answerOf(result);
        worst = Math.max(worst, took);
      }
      return { name, worstMs: worst, answer };
    };
    const search = (text: string, extra: LogFilterInput = {}) => worstOf(`search ${JSON.stringify(text.slice(0, 12))}${text.length > 12 ? `…×${text.length}` : ''}${Object.keys(extra).length > 0 ? ` ${JSON.stringify(extra)}` : ''}`, 'logs.search', () => ({ filter: { ...extra, text }, limit: 100 }));

    // Warm the file's pages, then the baseline: an ordinary rare word (a few hits), p50 of 50.
    for (let i = 0; i < 5; i++) await call('logs.search', { filter: { text: rareId }, limit: 100 });
    const rare: number[] = [];
    for (let i = 0; i < 50; i++) rare.push((await call('logs.search', { filter: { text: rareId }, limit: 100 })).ms);
    const baselineMs = [...rare].sort((a, b) => a - b)[25] ?? NaN;
    const common = await search('stalled');

    const texts = [
      '-'.repeat(500), // one trigram, in every banner: each such line read and checked
      '0'.repeat(500),
      'a'.repeat(500),
      `${'0000 '.repeat(99)}0000`, // the dumps' trigrams, all common, together in every dump line
      '= config', // common trigrams that meet in every banner
      '----------------', // the longest text searched as one phrase, of one repeated trigram
      'q\u0000', // no trigram to look up: every line read
      'Ω',
    ];
    for (const text of texts) timings.push(await search(text));
    timings.push(await search('', { sources: ['no.such.source'] }));
    timings.push(await search('', { levels: ['ERROR'], sources: ['module.dump'] }));

    // Views: all 200 parts (every line), and the part holding the hard lines.
    for (const partIds of [parts.map((p) => p.partId), [parts[7]!.partId]]) {
      const opened = await call('logs.open', { partIds });
      if (!opened.result.ok) throw new Error(`logs.open: ${opened.result.error?.message}`);
      const { viewId, total } = opened.result.value as { viewId: string; total: number };
      console.log(`  view of ${partIds.length} part(s): ${total.toLocaleString('en')} lines, opened in ${ms(opened.ms)} (not judged: reading the parts' keys is what opening costs)`);
      for (const text of ['stalled', '-'.repeat(500), `${'0000 '.repeat(99)}0000`, ' ms', 'ing', 'q\u0000', 'Ω']) {
        const timed = await worstOf(`view of ${total.toLocaleString('en')} lines, filter ${JSON.stringify(text.slice(0, 12))}${text.length > 12 ? `…×${text.length}` : ''}`, 'logs.filter', () => ({ viewId, filter: { text } }));
        timings.push(timed);
        await call('logs.filter', { viewId, filter: {} });
      }
      await call('logs.close', { viewId });
    }

    console.log(`  baseline: search "${rareId}" (a rare word) p50 ${ms(baselineMs)}; "stalled" (common) worst ${ms(common.worstMs)}, ${common.answer}`);
    for (const t of timings) console.log(`  ${t.name}: worst of ${RUNS} ${ms(t.worstMs)} (${(t.worstMs / baselineMs).toFixed(0)}× the baseline) → ${t.answer}`);
    const worst = timings.reduce((a, b) => (b.worstMs > a.worstMs ? b : a));
    return report({ name: `worst search or filter vs the bound (${LIMIT_MS} ms)`, ratio: worst.worstMs / LIMIT_MS, limit: 1, detail: `${worst.name}: ${ms(worst.worstMs)}, ${(worst.worstMs / baselineMs).toFixed(0)}× the rare-word search (${ms(baselineMs)})` });
  } finally {
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  (ok) => process.exit(ok ? 0 : 1),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
