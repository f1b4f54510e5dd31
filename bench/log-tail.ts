/**
 * Issue #7: tailing end to end — service → gRPC → main → cache → bridge → renderer — at ≥ 20,000
 * lines/s sustained with no gap and a p99 line latency < 250 ms, beside a raw grpc-js stream of the
 * same messages; the main process's event-loop lag p99 < 50 ms; its RSS growth < 50 MB.
 *
 * - The service: `--demo --log-rate 20000` (its live parts log 20,000 lines a second in all, each
 *   line stamped with the time it was logged).
 * - Baseline (same run, same service): a bare grpc-js client tails every live part
 *   (TailRobotPartLogs, every level) for the same time; lines/s received and latency (arrival minus
 *   the line's time).
 * - Measured: the app's own backend in this process (a remote profile on that service, the cache
 *   worker), served over the loopback WebSocket to Debian Chromium. The page opens log views over
 *   every live part merged into one view (as an operator tails a location) and timestamps each
 *   update as it arrives. The bench makes every new line ride its update
 *   (FLEET_DESK_LOG_UPDATE_LINES; the app sends a screenful), so every line's latency is exact;
 *   a line the update only counts would get the latency of the oldest line of its batch, an upper
 *   bound. Then every line the service stored in the window is looked for in the cache file: a
 *   line missing is a gap.
 * - The window starts once the app is in its steady state (the cache at its retention bound, then
 *   30 s more). Event-loop delay of this process (main) sampled throughout; RSS the mean of the
 *   window's first and of its last 10 s. `LOG_TAIL_SECONDS` sets the window (30 by default; 600 for
 *   the 10-minute RSS figure).
 *
 *   npm run bench -- log-tail
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { credentials, Metadata } from '@grpc/grpc-js';
import { chromium } from '@playwright/test';
import Database from 'better-sqlite3';
import { isLive } from '../common/machines';
import { WS_PATH } from '../common/bridge';
import { Backend } from '../main/backend/backend';
import { timeOfKey } from '../main/logs/cache';
import { createRouter } from '../main/backend/router';
import { MemoryKeychain } from '../main/keychain/keychain';
import { startWebServer } from '../main/web/server';
import { AppServiceClient } from '../proto/gen/fleet/app/v1/app';
import { AuthServiceClient } from '../proto/gen/fleet/auth/v1/auth';
import { GetRobotPartLogsRequest, type TailRobotPartLogsResponse } from '../proto/gen/fleet/app/v1/logs';
import { chromiumArgs } from '../test/e2e/fixtures';
import { childProcesses, cpuSeconds, machine, ms, percentile, report, repoRoot, startServiceProcess } from './lib';

const RATE = 20_000;
// Every new line rides its view's update (not only a screenful), so every line's latency is exact.
process.env.FLEET_DESK_LOG_UPDATE_LINES ??= '50000';
const WARMUP_S = Number(process.env.LOG_TAIL_WARMUP_SECONDS ?? 15);
const WINDOW_S = Number(process.env.LOG_TAIL_SECONDS ?? 30);
/** The warm-up goes on at most this long waiting for the cache to reach its retention bound. */
const MAX_WARMUP_S = 300;
/** After the cache is full, this long more before the window. */
const SETTLE_S = 30;
const VIEWS = 1;
/** The raw stream's window: its rate and latency are steady within seconds, so a long run does not repeat it for 10 minutes. */
const RAW_S = Math.min(WINDOW_S, 60);

async function token(address: string, keyId: string, key: string): Promise<Metadata> {
  const auth = new AuthServiceClient(address, credentials.createInsecure());
  const accessToken = await new Promise<string>((resolve, reject) =>
    auth.authenticate({ entity: keyId, credentials: { type: 'api-key', payload: key } }, (e, r) => (e ? reject(e) : resolve(r.accessToken))),
  );
  auth.close();
  const md = new Metadata();
  md.set('authorization', `Bearer ${accessToken}`);
  return md;
}

/** The p-th percentile of `count` values held as a histogram of whole milliseconds. */
function histogramPercentile(hist: readonly number[], count: number, p: number): number {
  const rank = Math.ceil((p / 100) * count);
  let seen = 0;
  for (let ms = 0; ms < hist.length; ms++) {
    seen += hist[ms] ?? 0;
    if (seen >= rank) return ms;
  }
  return NaN;
}

/** The baseline: bare streams of every part for the window; lines/s and latencies. */
async function rawTail(address: string, md: Metadata, partIds: readonly string[]): Promise<{ perSecond: number; latencies: number[] }> {
  const app = new AppServiceClient(address, credentials.createInsecure(), { 'grpc.max_receive_message_length': 64 * 1024 * 1024 });
  const latencies: number[] = [];
  let counting = false;
  let lines = 0;
  const calls = partIds.map((robotPartId) => {
    const call = app.tailRobotPartLogs({ robotPartId, errorsOnly: false, filter: '' }, md);
    call.on('data', (m: TailRobotPartLogsResponse) => {
      if (!counting) return;
      const now = Date.now();
      lines += m.logs.length;
      for (const l of m.logs) latencies.push(now - (l.time?.getTime() ?? now));
    });
    call.on('error', () => undefined);
    return call;
  });
  await new Promise((r) => setTimeout(r, WARMUP_S * 1000));
  counting = true;
  const started = performance.now();
  await new Promise((r) => setTimeout(r, RAW_S * 1000));
  counting = false;
  const seconds = (performance.now() - started) / 1000;
  for (const call of calls) call.cancel();
  app.close();
  return { perSecond: lines / seconds, latencies };
}

/**
 * A bare stream of a few parts while the app tails: how late the service itself delivers lines
 * during the window (the baseline ran before the service's retention started deleting).
 */
function probe(address: string, md: Metadata, partIds: readonly string[]): () => number[] {
  const app = new AppServiceClient(address, credentials.createInsecure());
  const latencies: number[] = [];
  const calls = partIds.map((robotPartId) => {
    const call = app.tailRobotPartLogs({ robotPartId, errorsOnly: false, filter: '' }, md);
    call.on('data', (m: TailRobotPartLogsResponse) => {
      const now = Date.now();
      for (const l of m.logs) latencies.push(now - (l.time?.getTime() ?? now));
    });
    call.on('error', () => undefined);
    return call;
  });
  return () => {
    for (const call of calls) call.cancel();
    app.close();
    return latencies;
  };
}

/** Every entry the service holds of `partId` created in [fromMs, toMs]. */
async function serviceEntries(address: string, md: Metadata, partId: string, fromMs: number, toMs: number): Promise<string[]> {
  const app = new AppServiceClient(address, credentials.createInsecure(), { 'grpc.max_receive_message_length': 64 * 1024 * 1024 });
  const ids: string[] = [];
  let pageToken = '';
  do {
    const page = await new Promise<{ logs: { id: string }[]; nextPageToken: string }>((resolve, reject) =>
      app.getRobotPartLogs(GetRobotPartLogsRequest.fromPartial({ robotPartId: partId, numLogEntries: 0, limit: 1000, pageToken, start: new Date(fromMs), end: new Date(toMs) }), md, (e, r) => (e ? reject(e) : resolve(r))),
    );
    ids.push(...page.logs.map((l) => l.id));
    pageToken = page.nextPageToken;
  } while (pageToken !== '');
  app.close();
  return ids;
}

async function main(): Promise<boolean> {
  console.log('building the app (electron-vite build)…');
  const build = spawnSync(process.execPath, [join(repoRoot, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
  if (build.status !== 0) throw new Error('the build failed');
  const service = await startServiceProcess(['--demo', '--log-rate', String(RATE)]);
  const dir = mkdtempSync(join(tmpdir(), 'fleet-bench-tail-'));
  const userDataDir = join(dir, 'user-data');
  const log: string[] = [];
  const backend = await Backend.open({
    userDataDir,
    serviceEntry: join(repoRoot, 'service', 'main.ts'),
    cacheWorker: { entry: join(repoRoot, 'main', 'cache', 'worker.ts'), execArgv: ['--import', 'tsx'] },
    keychain: { store: new MemoryKeychain(), status: { available: false, reason: 'benchmark' } },
    timing: { refreshMs: 3_600_000, deadlineMs: 30_000 },
    log: (m) => log.push(m),
  });
  const router = createRouter(backend.handlers, { isTrustedSender: () => true });
  const call = async <T>(channel: string, request: unknown): Promise<T> => {
    const result = await router.dispatch({ transport: 'ipc', url: 'bench', id: 1 }, channel, request);
    if (!result.ok) throw new Error(`${channel}: ${result.error.message}`);
    return result.value as T;
  };
  const server = await startWebServer({ handlers: backend.handlers, events: backend.events, rendererDir: join(repoRoot, 'out', 'renderer'), log: (m) => log.push(m), downloads: backend.downloads });
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: chromiumArgs });
  try {
    await call('profiles.add', { name: 'Bench', address: service.address, tls: false, apiKeyId: service.apiKeyId, apiKey: service.apiKey });
    // LOG_TAIL_RETENTION_LINES: a smaller cache, so that a short run reaches the retention bound and evicts as a long one does.
    if (process.env.LOG_TAIL_RETENTION_LINES) await call('logs.setRetention', { maxLines: Number(process.env.LOG_TAIL_RETENTION_LINES), maxBytes: 1024 ** 3 });
    const orgs = (await call<{ orgs: { id: string }[] }>('orgs.list', {})).orgs;
    const now = Date.now();
    const liveParts: string[] = [];
    for (const org of orgs) {
      const tree = await call<{ machines: { parts: { id: string; lastAccess: string | null }[] }[] }>('locations.tree', { orgId: org.id });
      // A location shared with another organization is in both trees: each part counted once.
      for (const m of tree.machines) for (const p of m.parts) if (isLive(p.lastAccess, now) && !liveParts.includes(p.id)) liveParts.push(p.id);
    }
    const md = await token(service.address, service.apiKeyId, service.apiKey);

    // Baseline first, alone.
    const raw = await rawTail(service.address, md, liveParts);

    // The app: views opened from the page, over the bridge, as the renderer opens them.
    const page = await (await browser.newContext()).newPage();
    page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
    await page.addInitScript({ content: 'globalThis.__name = (f) => f;' });
    await page.goto(server.url);
    const groups = Array.from({ length: VIEWS }, (_, i) => liveParts.filter((_, j) => j % VIEWS === i));
    await page.evaluate(
      async ({ groups, path }) => {
        // Latencies as a histogram of whole milliseconds (up to a minute): a 10-minute window is
        // 12 million lines, too many to hand back one by one.
        const w = window as unknown as { __tail: { counting: boolean; evicting: boolean; total: number; lines: number; unmeasured: number; measured: number; hist: number[] } };
        w.__tail = { counting: false, evicting: false, total: 0, lines: 0, unmeasured: 0, measured: 0, hist: new Array<number>(60_001).fill(0) };
        const latency = (ms: number, n = 1) => {
          const bucket = Math.min(60_000, Math.max(0, Math.round(ms)));
          w.__tail.hist[bucket] = (w.__tail.hist[bucket] ?? 0) + n;
          w.__tail.measured += n;
        };
        const ws = new WebSocket(`${location.origin.replace(/^http/, 'ws')}${path}`);
        await new Promise((resolve) => ws.addEventListener('open', resolve, { once: true }));
        let next = 1;
        const answers = new Map<number, (v: unknown) => void>();
        ws.addEventListener('message', (event) => {
          const frame = JSON.parse(String(event.data)) as { type: string; id?: number; result?: unknown; event?: string; payload?: { total: number; appended: number; appendedFromMs: number | null; linesFrom: number; lines: { timeMs: number }[]; reset: boolean; evicted: number } };
          if (frame.type === 'result') answers.get(frame.id ?? 0)?.(frame.result);
          if (frame.type !== 'event' || frame.event !== 'logs.view' || !frame.payload) return;
          const u = frame.payload;
          // Every line the view gained: in a merged view most land among other parts' lines, not
          // after them; once the cache is full, as many old lines leave the view (evicted) as arrive.
          if (u.evicted > 0) w.__tail.evicting = true;
          if (w.__tail.counting) w.__tail.lines += u.total - w.__tail.total + u.evicted;
          w.__tail.total = u.total;
          if (!w.__tail.counting) return;
          const now = Date.now();
          // The new lines are the last `appended` ones of the view (when none landed before the end).
          const from = u.total - u.appended;
          for (let i = 0; i < u.lines.length; i++) if (u.linesFrom + i >= from) latency(now - (u.lines[i]?.timeMs ?? now));
          // Lines counted but not carried: the batch's oldest line bounds their latency.
          const uncarried = Math.max(0, u.linesFrom - from);
          if (uncarried > 0) latency(now - (u.appendedFromMs ?? now), uncarried);
          w.__tail.unmeasured += uncarried;
        });
        const invoke = (channel: string, request: unknown) =>
          new Promise((resolve) => {
            const id = next++;
            answers.set(id, resolve);
            ws.send(JSON.stringify({ type: 'invoke', id, channel, request }));
          });
        for (const partIds of groups) await invoke('logs.open', { partIds });
      },
      { groups, path: WS_PATH },
    );
    // Warm-up: WARMUP_S, and on until the app is in its steady state — the cache at its retention
    // bound (evicting as much as it takes in: the view's line lists and the cache file stop growing)
    // and SETTLE_S more for SQLite's page caches and the heaps to size themselves. Growth before that
    // is bounded caches filling, not a leak; the RSS target is about what comes after.
    const warmupStarted = performance.now();
    await new Promise((r) => setTimeout(r, WARMUP_S * 1000));
    const evicting = () => page.evaluate(() => (window as unknown as { __tail: { evicting: boolean } }).__tail.evicting);
    while (!(await evicting()) && performance.now() - warmupStarted < MAX_WARMUP_S * 1000) await new Promise((r) => setTimeout(r, 1000));
    const cacheFullAfterS = (performance.now() - warmupStarted) / 1000;
    await new Promise((r) => setTimeout(r, SETTLE_S * 1000));
    const warmupS = (performance.now() - warmupStarted) / 1000;
    // Where the two cores go: this process (main and the cache worker, plus the local service it
    // started, which idles), the service, Chromium.
    const browserPids = childProcesses(process.pid).filter((c) => /chrom/i.test(c.name)).map((c) => c.pid);
    const cpuRoots = [process.pid, service.child.pid ?? -1, ...browserPids];
    const cpuBefore = cpuSeconds(cpuRoots);
    const sampler = monitorEventLoopDelay({ resolution: 5 });
    // RSS moves by tens of MB as V8 grows and shrinks its heaps: start and end are each the mean of 10 s of samples.
    const rssSamples: number[] = [];
    const fromMs = Date.now();
    await page.evaluate(() => {
      const t = (window as unknown as { __tail: { counting: boolean; startedMs: number } }).__tail;
      t.counting = true;
      t.startedMs = performance.now();
    });
    sampler.enable();
    const stopProbe = probe(service.address, md, liveParts.slice(0, 4));
    const started = performance.now();
    let rssPeak = process.memoryUsage().rss;
    // RSS once a minute, to tell growth that levels off (heaps and SQLite's page cache warming up) from a leak.
    const rssByMinute: number[] = [];
    const rssTimer = setInterval(() => {
      const rss = process.memoryUsage().rss;
      rssPeak = Math.max(rssPeak, rss);
      rssSamples.push(rss);
      if (Math.floor((performance.now() - started) / 60_000) >= rssByMinute.length) rssByMinute.push(rss);
    }, 1000);
    await new Promise((r) => setTimeout(r, WINDOW_S * 1000));
    // The window ends here: what follows (the page's figures, the gap check) is the bench's work.
    const seconds = (performance.now() - started) / 1000;
    sampler.disable();
    const probed = stopProbe();
    clearInterval(rssTimer);
    const cpuAfter = cpuSeconds(cpuRoots);
    const cpuShare = cpuAfter.map((c, i) => (c - (cpuBefore[i] ?? 0)) / seconds);
    const toMs = Date.now();
    const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    const rssBefore = mean(rssSamples.slice(0, 10));
    const rssAfter = mean(rssSamples.slice(-10));
    const seen = await page.evaluate(() => {
      const t = (window as unknown as { __tail: { counting: boolean; startedMs: number; lines: number; unmeasured: number; measured: number; hist: number[] } }).__tail;
      t.counting = false;
      return { lines: t.lines, unmeasured: t.unmeasured, measured: t.measured, hist: t.hist, seconds: (performance.now() - t.startedMs) / 1000 };
    });

    // Gaps: every line the service stored in the window (but its last 3 s, still on their way) is in
    // the cache, 3 s after the window (the stall above held the tails up too).
    await new Promise((r) => setTimeout(r, 3000));
    const cache = new Database(join(userDataDir, 'profiles', (await call<{ activeId: string }>('profiles.list', {})).activeId, 'cache.sqlite'), { readonly: true });
    let expected = 0;
    let missing = 0;
    let duplicates = 0;
    // One snapshot of the cache (the app goes on tailing and evicting meanwhile). It keeps the newest
    // lines within its retention: lines older than its oldest were evicted, not lost.
    const snapshot = cache.transaction(() => ({
      oldestKey: cache.prepare('SELECT min(key) FROM logs').pluck().get() as number | null,
      rows: cache.prepare('SELECT part_id, entry_id FROM logs').raw().all() as [string, string][],
    }))();
    const keptFromMs = Math.max(fromMs, snapshot.oldestKey === null ? 0 : timeOfKey(snapshot.oldestKey) + 1);
    const checkedSeconds = (toMs - 3000 - keptFromMs) / 1000;
    const cachedByPart = new Map<string, string[]>();
    for (const [partId, entryId] of snapshot.rows) {
      const ids = cachedByPart.get(partId);
      if (ids) ids.push(entryId);
      else cachedByPart.set(partId, [entryId]);
    }
    try {
      for (const partId of liveParts) {
        const cached = cachedByPart.get(partId) ?? [];
        const have = new Set(cached);
        duplicates += cached.length - have.size;
        const ids = await serviceEntries(service.address, md, partId, keptFromMs, toMs - 3000);
        expected += ids.length;
        missing += ids.filter((id) => !have.has(id)).length;
      }
    } finally {
      cache.close();
    }

    const perSecond = seen.lines / seen.seconds;
    const p99 = histogramPercentile(seen.hist, seen.measured, 99);
    const rawP99 = percentile(raw.latencies, 99);
    const lagP99 = sampler.percentile(99) / 1e6;
    const growth = (rssAfter - rssBefore) / 1024 / 1024;
    console.log(`log-tail on ${machine()}`);
    console.log(`  service: --log-rate ${RATE} across ${liveParts.length} live parts; window ${WINDOW_S} s after ${Math.round(warmupS)} s warm-up (the cache reached its retention bound after ${Math.round(cacheFullAfterS)} s)`);
    console.log(`  raw grpc-js streams (${RAW_S} s): ${Math.round(raw.perSecond).toLocaleString()} lines/s, latency p50 ${ms(percentile(raw.latencies, 50))}, p99 ${ms(rawP99)}`);
    console.log(`  the app (service → main → cache worker → WebSocket → Chromium, ${VIEWS} merged view): ${Math.round(perSecond).toLocaleString()} lines/s, latency p50 ${ms(histogramPercentile(seen.hist, seen.measured, 50))}, p99 ${ms(p99)} (${seen.measured.toLocaleString()} lines, ${seen.unmeasured.toLocaleString()} of them at their batch's oldest line's latency)`);
    console.log(`  the service meanwhile (a bare stream of 4 of the parts during the window): latency p50 ${ms(percentile(probed, 50))}, p99 ${ms(percentile(probed, 99))}`);
    console.log(`  cache vs the service's log of the window's last ${Math.round(checkedSeconds)} s (older lines are past the cache's retention or the service's): ${expected.toLocaleString()} lines (the service logged ${Math.round(expected / checkedSeconds).toLocaleString()} a second), ${missing} missing, ${duplicates} duplicated`);
    console.log(`  tails: ${backend.logStats.writes} cache writes of ${ms(backend.logStats.writeMs / Math.max(1, backend.logStats.writes))} on average (${backend.logStats.splitWrites} of them left part of the queue for the next); ${backend.logStats.fills} gap fills fetched ${backend.logStats.filled.toLocaleString()} entries; the service dropped ${backend.logStats.dropped.toLocaleString()}; main's queue overflowed ${backend.logStats.overflows} times (dropped, then filled)`);
    // What the app logged (a failing batch, a broken stream): the first of each kind.
    const kinds = [...new Set(log.filter((m) => /fail|broke|error/i.test(m)).map((m) => m.replace(/part [0-9a-f-]{36}/, 'part …').slice(0, 200)))];
    if (kinds.length > 0) console.log(`  app log: ${log.filter((m) => /broke/.test(m)).length} tail breaks`);
    for (const m of kinds.slice(0, 8)) console.log(`  app log: ${m}`);
    const core = (share: number) => `${Math.round(share * 100)} %`;
    const browserShare = cpuShare.slice(2).reduce((a, b) => a + b, 0);
    console.log(`  CPU (share of one core over the window): main + cache worker ${core(cpuShare[0] ?? 0)}, service ${core(cpuShare[1] ?? 0)}, Chromium ${core(browserShare)}; ${core(cpuShare.reduce((a, b) => a + b, 0) / cpus().length)} of the ${cpus().length} cores`);
    console.log(`  main event-loop lag: p50 ${ms(sampler.percentile(50) / 1e6)}, p99 ${ms(lagP99)}, max ${ms(sampler.max / 1e6)}; RSS ${Math.round(rssBefore / 1048576)} → ${Math.round(rssAfter / 1048576)} MB (first and last 10 s; peak ${Math.round(rssPeak / 1048576)})`);
    if (rssByMinute.length > 1) console.log(`  RSS at each minute (MB): ${rssByMinute.map((b) => Math.round(b / 1048576)).join(', ')}`);
    const results = [
      report({ name: `tail throughput (vs ${RATE.toLocaleString()} lines/s)`, ratio: RATE / perSecond, limit: 1.02, detail: `${Math.round(perSecond).toLocaleString()} lines/s; raw stream ${Math.round(raw.perSecond).toLocaleString()} (${(raw.perSecond / perSecond).toFixed(2)}× ours)` }),
      report({ name: 'line latency p99 (vs the 250 ms budget)', ratio: p99 / 250, limit: 1, detail: `${ms(p99)}; raw stream ${ms(rawP99)} (${(p99 / rawP99).toFixed(2)}× raw)` }),
      report({ name: 'gaps and duplicates in the cache', ratio: missing + duplicates, limit: 0, detail: `${missing} missing, ${duplicates} duplicated of ${expected.toLocaleString()}` }),
      report({ name: 'main event-loop lag p99 (vs the 50 ms budget)', ratio: lagP99 / 50, limit: 1, detail: ms(lagP99) }),
      report({ name: `main RSS growth over ${WINDOW_S} s (vs 50 MB)`, ratio: growth / 50, limit: 1, detail: `${growth.toFixed(1)} MB` }),
    ];
    return results.every(Boolean);
  } finally {
    await browser.close();
    await server.close();
    await backend.close();
    await service.stop();
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
