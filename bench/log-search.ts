/**
 * Issue #7: the fleet-wide search over 1,000,000 cached lines through the bridge — p50 < 5 ms and
 * p95 < 25 ms for a token and for a substring query, and ≥ 100× faster than a linear scan of the
 * same lines in the same run.
 *
 * - The cache: a profile's cache file filled with 1,000,000 lines of 200 parts over two days
 *   (bench/log-seed.ts: the service's log simulator through the app's cache code), every line
 *   indexed (the worker indexes lazily; the bench drains it first so the figure is the index's).
 * - Measured: `logs.search` dispatched through main's bridge router (payload validation, the
 *   handler, the cache worker's round trip) — the renderer's call minus the IPC/WebSocket hop — for
 *   the first page (100 hits, newest first), as the search pane asks.
 * - Queries: a whole word and a substring inside words, each one rare (an id: under a page of hits)
 *   and one common (thousands of hits).
 * - Baseline: a linear scan of the same lines for the query (the same SQL without the index:
 *   `message LIKE '%…%'` over every line) on another connection to the same file, so the baseline
 *   pays no bridge and no worker hop. Also printed, not judged: a scan newest first that stops at
 *   the first page (limit 101): for a common query it reads only a few thousand lines and is as
 *   fast as the index; the index is what makes a rare query (the one an operator types: an id, an
 *   error text) as fast as a common one.
 *
 *   npm run bench -- log-search
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { Backend } from '../main/backend/backend';
import { createRouter } from '../main/backend/router';
import { openCache } from '../main/cache/cache';
import { MemoryKeychain } from '../main/keychain/keychain';
import { machine, ms, percentile, report, repoRoot } from './lib';
import { seedLogs } from './log-seed';

const LINES = 1_000_000;
const PARTS = 200;
const SPAN_MS = 2 * 24 * 3_600_000;
const RUNS = 200;
const SCANS = 5;
const TARGETS = { p50Ms: 5, p95Ms: 25, speedup: 100 } as const;

/** Fills the cache at `path` with LINES simulated lines; answers an id that occurs in a few of them. */
function seed(path: string): { rareId: string; seconds: number; indexSeconds: number } {
  const db = openCache(path);
  const parts = Array.from({ length: PARTS }, (_, i) => ({
    partId: `bench-part-${i}`,
    orgId: 'bench-org',
    machineId: `bench-machine-${Math.floor(i / 4)}`,
    machineName: `robot-${String(Math.floor(i / 4)).padStart(3, '0')}`,
    partName: ['main', 'arm', 'base', 'camera'][i % 4] ?? 'main',
  }));
  const seeded = seedLogs(db, parts, LINES, SPAN_MS, Date.now());
  db.close();
  // An id seen a few times: a rare word, fewer hits than one page.
  const rareId = [...seeded.ids].find(([, count]) => count >= 3 && count <= 10)?.[0];
  if (rareId === undefined) throw new Error('no rare id in the simulated lines');
  return { rareId, seconds: seeded.cacheSeconds, indexSeconds: seeded.indexSeconds };
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

async function main(): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-bench-search-'));
  const userDataDir = join(dir, 'user-data');
  // First launch (the local demo profile, its service started once), then closed; the cache is filled
  // and the app opened again without connecting: searching is the cache worker's work alone.
  let backend = await openBackend(userDataDir);
  await backend.start();
  try {
    const list = async () => {
      const router = createRouter(backend.handlers, { isTrustedSender: () => true });
      const result = await router.dispatch({ transport: 'ipc', url: 'bench', id: 1 }, 'profiles.list', {});
      if (!result.ok) throw new Error(result.error.message);
      return (result.value as { activeId: string }).activeId;
    };
    const cachePath = join(userDataDir, 'profiles', await list(), 'cache.sqlite');
    await backend.close();
    const seeding = seed(cachePath);
    backend = await openBackend(userDataDir);
    const router = createRouter(backend.handlers, { isTrustedSender: () => true });
    const search = async (text: string): Promise<{ hits: number; ms: number }> => {
      const started = performance.now();
      const result = await router.dispatch({ transport: 'ipc', url: 'bench', id: 1 }, 'logs.search', { filter: { text }, limit: 100 });
      const took = performance.now() - started;
      if (!result.ok) throw new Error(`logs.search: ${result.error.message}`);
      return { hits: (result.value as { hits: unknown[] }).hits.length, ms: took };
    };

    const scanDb = new Database(cachePath, { readonly: true });
    const total = scanDb.prepare('SELECT count(*) FROM logs').pluck().get() as number;
    const scan = scanDb.prepare("SELECT key FROM logs WHERE message LIKE ? ESCAPE '\\'").pluck();
    const firstPageScan = scanDb.prepare("SELECT key FROM logs WHERE message LIKE ? ESCAPE '\\' ORDER BY key DESC LIMIT 101").pluck();
    const count = scanDb.prepare("SELECT count(*) FROM logs WHERE message LIKE ? ESCAPE '\\'").pluck();

    const queries = [
      { name: 'word, rare', text: seeding.rareId },
      { name: 'word, common', text: 'stalled' },
      // Inside the rare id: four of its six characters.
      { name: 'substring, rare', text: seeding.rareId.slice(1, 5) },
      // Across two words ("dead|line excee|ded").
      { name: 'substring, common', text: 'line excee' },
    ];

    console.log(`log-search on ${machine()}`);
    console.log(`  cache: ${total.toLocaleString()} lines of ${PARTS} parts over 2 days, cached in ${seeding.seconds.toFixed(1)} s, indexed in ${seeding.indexSeconds.toFixed(1)} s (nothing pending)`);
    for (const q of queries) await search(q.text);
    const timings = new Map<string, number[]>(queries.map((q) => [q.name, []]));
    for (let run = 0; run < RUNS; run++) {
      for (const q of queries) timings.get(q.name)?.push((await search(q.text)).ms);
    }
    const results: boolean[] = [];
    for (const q of queries) {
      const pattern = `%${q.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      const matches = count.get(pattern) as number;
      const hits = (await search(q.text)).hits;
      const timed = (statement: typeof scan) => {
        const out: number[] = [];
        for (let i = 0; i < SCANS; i++) {
          const started = performance.now();
          statement.all(pattern);
          out.push(performance.now() - started);
        }
        return percentile(out, 50);
      };
      const scanMs = timed(scan);
      const firstPageMs = timed(firstPageScan);
      const times = timings.get(q.name) ?? [];
      const p50 = percentile(times, 50);
      const p95 = percentile(times, 95);
      console.log(`  "${q.text}" (${q.name}): ${matches.toLocaleString()} matching lines, ${hits} hits on the first page; search p50 ${ms(p50)}, p95 ${ms(p95)}; linear scan ${ms(scanMs)} (stopping at the first page: ${ms(firstPageMs)})`);
      results.push(
        report({ name: `search p50, ${q.name} (vs ${TARGETS.p50Ms} ms)`, ratio: p50 / TARGETS.p50Ms, limit: 1, detail: ms(p50) }),
        report({ name: `search p95, ${q.name} (vs ${TARGETS.p95Ms} ms)`, ratio: p95 / TARGETS.p95Ms, limit: 1, detail: ms(p95) }),
        report({ name: `search p50 vs a linear scan, ${q.name}`, ratio: p50 / scanMs, limit: 1 / TARGETS.speedup, detail: `${(scanMs / p50).toFixed(0)}× faster (scan ${ms(scanMs)})` }),
      );
    }
    scanDb.close();
    return results.every(Boolean);
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
