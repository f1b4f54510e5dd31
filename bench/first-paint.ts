/**
 * Issue #20: the renderer's boot path — page load → first paint, and how much JavaScript the page
 * fetches before it paints. The whole app runs for real: the local service with the demo fleet,
 * browser mode's backend serving the built renderer (out/renderer, as `npm start` builds it) and
 * the bridge, the page in Debian's Chromium with an empty HTTP cache each open (a fresh context):
 * every byte on the boot path is fetched, parsed and run, as in Electron's first window.
 *
 * Per open, measured in the page from its navigation:
 * - FCP: the first contentful paint (the paint timeline's `first-contentful-paint`);
 * - shell drawn: the frame that shows the fleet tree's first row (the sidebar of the app shell, read
 *   from the cache the first launch filled), in the app's own tree, in view (index.html's frame,
 *   which main draws with the tree of the last run, gone from over it);
 * - JS before first paint: the bytes of every script whose response ended before FCP (Resource
 *   Timing's encodedBodySize: what crossed the wire; the server does not compress).
 *
 * Baseline, in the same run, on the same server: a static page (assets/first-paint-baseline.html,
 * written beside the build for the run and removed after) with the app's stylesheet and a line of
 * text but no script — what navigation, HTML, CSS and a paint cost on this machine without the app.
 * And for the bytes, the app's own whole JavaScript (every .js file the build wrote): the share of it
 * that the first paint waits for.
 *
 * Targets: the JS fetched before first paint ≤ 40% of all the app's JavaScript (each page's code
 * loads on its first visit, so the boot path carries the shell, the bridge and the tree, not the
 * editors, charts and tables; on the unsplit build it was 68%); the app's FCP ≤ 2× the static
 * page's (what the app adds before its first paint — the entry chunk's fetch, parse and run and
 * Svelte's mount — costs no more than the static page's whole load); the shell drawn ≤ 3× the
 * static page's FCP (one more such load for the bridge's first answers: profiles, the cached tree).
 * Each figure is the median of OPENS opens, each on a fresh backend (the launch link is good once).
 *
 *   dbus-run-session -- scripts/with-keyring.sh npm run bench -- first-paint
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser, type Page } from '@playwright/test';
import { chromiumArgs } from '../test/e2e/fixtures';
import { buildApp, startWeb } from './browser';
import { machine, ms, percentile, repoRoot, report, startServiceProcess } from './lib';

const OPENS = 7;
const LIMITS = { jsShare: 0.4, fcp: 2, shell: 3 } as const;
const assetsDir = join(repoRoot, 'out', 'renderer', 'assets');
const BASELINE_FILE = 'first-paint-baseline.html';

/** What one open measured (ms from navigation, bytes). */
interface Open {
  readonly fcp: number;
  readonly shell: number;
  readonly jsBeforePaint: number;
  readonly scriptsBeforePaint: number;
}

/** Installed before the page's own scripts: the paint timeline, buffered, so FCP is known whenever asked. */
const PAINT_WATCH = `(() => {
  globalThis.__name = (f) => f;
  globalThis.__fcp = null;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (e.name === 'first-contentful-paint') globalThis.__fcp = e.startTime;
  }).observe({ type: 'paint', buffered: true });
})();`;

/** The FCP and the scripts that had arrived before it, read once FCP is known. */
async function paintFigures(page: Page): Promise<{ fcp: number; bytes: number; scripts: number }> {
  await page.waitForFunction(() => (globalThis as unknown as { __fcp: number | null }).__fcp !== null, undefined, { timeout: 60_000 });
  return page.evaluate(() => {
    const fcp = (globalThis as unknown as { __fcp: number }).__fcp;
    const scripts = performance.getEntriesByType('resource').filter((e): e is PerformanceResourceTiming => /\.js(\?|$)/.test(e.name) && (e as PerformanceResourceTiming).responseEnd <= fcp);
    return { fcp, bytes: scripts.reduce((sum, e) => sum + e.encodedBodySize, 0), scripts: scripts.length };
  });
}

/** The local service's data dir filled with the demo fleet; a first launch syncs it into the cache (the shell then draws the tree from there). */
async function prepare(browser: Browser, userDataDir: string): Promise<void> {
  const service = await startServiceProcess(['--demo'], { dataDir: join(userDataDir, 'local-service') });
  await service.stop();
  const web = await startWeb(userDataDir);
  try {
    const page = await (await browser.newContext()).newPage();
    await page.goto(web.url);
    await page.getByRole('tree', { name: 'Fleet' }).getByRole('treeitem').first().waitFor({ timeout: 120_000 });
    await page.getByText('Last synced').waitFor({ timeout: 120_000 });
    await page.context().close();
  } finally {
    await web.stop();
  }
}

/** One cold open of the app and one of the static page, on a fresh backend. */
async function open(browser: Browser, userDataDir: string): Promise<{ app: Open; baseline: number }> {
  const web = await startWeb(userDataDir);
  try {
    const origin = new URL(web.url).origin;
    const blank = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await blank.addInitScript({ content: PAINT_WATCH });
    await blank.goto(`${origin}/assets/${BASELINE_FILE}`);
    const baseline = (await paintFigures(blank)).fcp;
    await blank.context().close();

    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
    await page.addInitScript({ content: PAINT_WATCH });
    await page.goto(web.url);
    // The app's own tree, in view: not under index.html's frame (which may show the tree of the last run, drawn by main, until the app has drawn its own).
    const drawn = await page.waitForFunction(() => document.querySelector('[role="tree"] [role="treeitem"]') !== null && !document.querySelector('.boot-shell.covering') && performance.now(), undefined, { polling: 'raf', timeout: 60_000 });
    const shell = (await drawn.jsonValue()) as number;
    const paint = await paintFigures(page);
    await page.context().close();
    return { app: { fcp: paint.fcp, shell, jsBeforePaint: paint.bytes, scriptsBeforePaint: paint.scripts }, baseline };
  } finally {
    await web.stop();
  }
}

/** The static baseline page: the app's own stylesheet and a line of text, no script. */
function writeBaseline(): void {
  const index = readFileSync(join(repoRoot, 'out', 'renderer', 'index.html'), 'utf8');
  const css = /href="\.\/assets\/([^"]+\.css)"/.exec(index)?.[1];
  if (!css) throw new Error('out/renderer/index.html links no stylesheet');
  writeFileSync(join(assetsDir, BASELINE_FILE), `<!doctype html><html lang="en"><head><meta charset="UTF-8"><title>Fleet Desk</title><link rel="stylesheet" href="./${css}"></head><body><div id="app"><p>Fleet Desk</p></div></body></html>\n`);
}

/** The entry chunk (the one index.html loads) and every script the build wrote. */
function buildSizes(): { entry: string; entryBytes: number; entryGzip: number; allJs: number; chunks: number } {
  const index = readFileSync(join(repoRoot, 'out', 'renderer', 'index.html'), 'utf8');
  const entry = /<script type="module"[^>]*src="\.\/assets\/([^"]+\.js)"/.exec(index)?.[1];
  if (!entry) throw new Error('out/renderer/index.html loads no module script');
  const js = readdirSync(assetsDir).filter((f) => f.endsWith('.js'));
  const body = readFileSync(join(assetsDir, entry));
  return { entry, entryBytes: body.length, entryGzip: gzipSync(body).length, allJs: js.reduce((sum, f) => sum + statSync(join(assetsDir, f)).size, 0), chunks: js.length };
}

const median = (v: readonly number[]) => percentile(v, 50);
const kb = (n: number) => `${(n / 1024).toFixed(1)} KiB`;

async function main(): Promise<void> {
  buildApp();
  const sizes = buildSizes();
  writeBaseline();
  const userDataDir = mkdtempSync(join(tmpdir(), 'fleet-bench-first-paint-'));
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: chromiumArgs });
  try {
    await prepare(browser, userDataDir);
    const opens: Open[] = [];
    const baselines: number[] = [];
    for (let i = 0; i < OPENS; i++) {
      const { app, baseline } = await open(browser, userDataDir);
      opens.push(app);
      baselines.push(baseline);
    }
    const fcp = median(opens.map((o) => o.fcp));
    const shell = median(opens.map((o) => o.shell));
    const js = median(opens.map((o) => o.jsBeforePaint));
    const base = median(baselines);
    console.log(`first-paint on ${machine()}, ${browser.version()} (headless, software rendering)`);
    console.log(`  build: entry chunk ${sizes.entry} ${kb(sizes.entryBytes)} (gzip ${kb(sizes.entryGzip)}); ${sizes.chunks} scripts, ${kb(sizes.allJs)} in all`);
    console.log(`  JS fetched before first paint: ${opens.map((o) => `${kb(o.jsBeforePaint)} in ${o.scriptsBeforePaint} files`).join(', ')}`);
    console.log(`  FCP: ${opens.map((o) => ms(o.fcp)).join(', ')}; shell drawn (fleet tree's first row): ${opens.map((o) => ms(o.shell)).join(', ')}`);
    console.log(`  baseline, static page with the app's CSS: FCP ${baselines.map(ms).join(', ')}`);
    const ok = [
      report({ name: 'JS fetched before first paint (median of opens)', ratio: js / sizes.allJs, limit: LIMITS.jsShare, detail: `${kb(js)} of the app's ${kb(sizes.allJs)} of JavaScript` }),
      report({ name: `first contentful paint (median of ${OPENS})`, ratio: fcp / base, limit: LIMITS.fcp, detail: `${ms(fcp)}; baseline: a static page's FCP ${ms(base)}` }),
      report({ name: `app shell drawn (median of ${OPENS})`, ratio: shell / base, limit: LIMITS.shell, detail: `${ms(shell)}; baseline: a static page's FCP ${ms(base)}` }),
    ].every(Boolean);
    process.exitCode = ok ? 0 : 1;
  } finally {
    await browser.close();
    rmSync(userDataDir, { recursive: true, force: true });
    rmSync(join(assetsDir, BASELINE_FILE), { force: true });
  }
}

await main();
