/**
 * Issue #6: the fleet tree of 10,000 machines in Chromium — first render < 200 ms, scrolling frames
 * p95 < 16.7 ms, a keystroke in search answered in < 50 ms. The whole app runs for real: the local
 * service with `--demo --demo-machines 10000`, browser mode's backend (its cache worker, the bridge
 * over a loopback WebSocket), the built renderer in Debian's Chromium. Each figure is printed beside a
 * baseline measured in the same page in the same run:
 *
 * - First render: expanding "Megafleet Logistics" with every one of its 260 locations already
 *   expanded (10,000 machine rows, remembered expansion), from the key press to the frame that shows
 *   it. Baseline: the same for "Acme Warehouse Robotics" (34 machines): how much 10,000 costs over 34.
 * - Scrolling: the tree scrolled 4 rows per frame through 10,000 rows; a frame's time runs from its
 *   scroll event to the end of its rendering work on the main thread (a task posted from its
 *   animation frame), which is what must fit in 16.7 ms for no frame to drop. Baseline: a plain,
 *   non-virtualized list of as many rows scrolled the same way in the same page.
 * - Search: each key of a query typed into the tree's search box, from keydown to the frame that
 *   shows the matches in context (over 10,000 machines, ~30,000 parts); the query is typed five
 *   times and each key's median taken (this machine's timing noise is large); the slowest key — the
 *   first, "r", which matches 36,000 names — is the figure. Baseline: the same keys typed into a plain
 *   input that does nothing. Scrolling is measured over three passes.
 * - Cold open (#20): a fresh backend on the cache and a page loaded on it, with the organization and
 *   every one of its locations remembered as expanded, and the top rows of that tree kept by an
 *   open before (as the app keeps them for the next launch). "First screenful": from the page's
 *   navigation to the first frame that shows the organization's row with its machine count and a
 *   viewport of rows — drawn by main into index.html's frame from the rows kept (before the app's
 *   code has run) or by the app; and the app's own first screenful, usable (the frame gone from
 *   over it), judged against the same target. Browser mode's backend is up before the page is
 *   asked for: Electron's first window may ask before the backend has opened its cache, and then
 *   gets the plain frame after at most 250 ms (main/shell/lifecycle.ts FRAME_WAIT_MS), which this
 *   does not measure;
 *   "whole tree searchable": from navigation to the frame that shows the match for the name of the
 *   organization's last part (by name), typed into the search box as soon as the box exists (part
 *   names are found only once the parts are in); "machines searchable": the same for the name of
 *   its last machine (search runs over a cold start's head: locations and machines are found
 *   before their parts arrive); both found in the app's tree, usable (not under the frame). Each the
 *   median of COLD_OPENS backends.
 *   Baseline: the same opens of the demo fleet alone (Acme Warehouse Robotics, 34 machines), seeded
 *   in a data dir of its own: the ratio is what the fleet's size still costs. Each open is also timed
 *   from the moment the page sends the organization's tree call (the data path and the drawing,
 *   without the page's own boot), and main's event-loop lag is sampled over each backend's life
 *   (lag-probe.mjs, preloaded into it), so a change that moves work onto main's thread shows.
 * - The tree's data path (#20), printed, not judged: on the quiet cache, a fresh tree reader's
 *   answer time worker → main for the head (`parts: false`), for its parts after it
 *   (`readTreeParts`) and for the whole tree in one answer, each as the JSON text the reader
 *   serializes and main sends on (CacheWorker.read), with their sizes, and the page's
 *   work on each (JSON.parse, the check, the index; the parts onto the head's index) in Node's V8:
 *   the reader's share of a cold open told apart from the page's.
 *
 *   npm run bench -- tree
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from '@playwright/test';
import Database from 'better-sqlite3';
import { chromiumArgs } from '../test/e2e/fixtures';
import { addPlainList, buildApp, openApp, scrollFrames, startWeb, verdict, type Web } from './browser';
import { fleetTreeFromColumns, partsFromColumns, type FleetColumns, type FleetPartColumns, type FleetTree } from '../common/locations';
import type { TreePart } from '../common/machines';
import { CacheWorker } from '../main/cache/worker-client';
import { indexTree, withParts } from '../renderer/src/lib/fleet/fleet-index';
import { machine, ms, percentile, startServiceProcess } from './lib';

const MACHINES = 10_000;
const MEGAFLEET = 'Megafleet Logistics';
const SMALL = 'Acme Warehouse Robotics';
const RENDERS = 7;
const SCROLL_FRAMES = 300;
const QUERY = 'rover-12';
const TYPINGS = 5;
const SCROLL_PASSES = 3;

/** Five, not three: one open on this machine ranges 0.5–1.2 s, and a median of three moved by 0.2 s between runs. */
const COLD_OPENS = 5;
/**
 * How long a cold open's fresh browser window is left alone before the backend starts and the page
 * is loaded. Each new context of headless Chromium opens a window whose own UI (the omnibox popup, a
 * WebUI renderer of its own) starts up for ~0.5 s of CPU; not waited for, it ran beside the page's
 * load on the 2 cores and added ~70 ms to each first screenful (a trace showed it 465 ms busy during
 * a 564 ms open). Electron's window has no such UI: the page's load is what is measured.
 */
const BROWSER_SETTLE_MS = 2_000;
/** Rows that fill the tree's viewport at 1280 × 800. */
const SCREENFUL = 20;

const TARGETS = { firstRenderMs: 200, scrollFrameP95Ms: 16.7, keystrokeMs: 50, firstScreenfulMs: 300, searchableMs: 1000 } as const;

/** The local service's data dir filled with the demo fleet, plus `machines` machines if any (the app then starts it without --demo). */
async function seedLocalService(userDataDir: string, machines = MACHINES): Promise<void> {
  const service = await startServiceProcess(['--demo', ...(machines > 0 ? ['--demo-machines', String(machines)] : [])], { dataDir: join(userDataDir, 'local-service') });
  await service.stop();
}

/** First launch on `userDataDir`: the app syncs the whole fleet into its cache. */
async function firstLaunch(browser: Browser, userDataDir: string, org: string): Promise<void> {
  const web = await startWeb(userDataDir);
  try {
    const page = await openApp(browser, web.url);
    await treeRow(page, org).waitFor({ timeout: 120_000 });
    await page.getByText('Last synced').waitFor({ timeout: 120_000 });
    await page.getByText(/Syncing…/).waitFor({ state: 'detached', timeout: 120_000 });
    await page.context().close();
  } finally {
    await web.stop();
  }
}

/** Remember `keys` as the expanded nodes of the tree, and no selection. */
function rememberExpanded(cache: Database.Database, keys: readonly string[]): void {
  cache.prepare("INSERT INTO ui_state (key, value) VALUES ('tree.expanded', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(JSON.stringify(keys));
  cache.prepare("INSERT INTO ui_state (key, value) VALUES ('tree.selected', 'null') ON CONFLICT (key) DO UPDATE SET value = excluded.value").run();
}

/**
 * One open of the app left running until it has kept the tree's top rows for the next launch's
 * frame (renderer features/fleet/frame.ts saves them a second after they last changed), as a
 * user's session before a launch does: the cold opens after it draw the frame of the expansion
 * just remembered (written into the cache by the bench, not by a session of the app).
 */
async function keepFrame(browser: Browser, userDataDir: string, org: string): Promise<void> {
  const web = await startWeb(userDataDir);
  try {
    const page = await openApp(browser, web.url);
    await treeRow(page, org).waitFor({ timeout: 60_000 });
    const cache = new Database(join(userDataDir, 'profiles', 'local', 'cache.sqlite'), { readonly: true });
    try {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const stored = cache.prepare("SELECT value FROM ui_state WHERE key = 'fleet.frame'").pluck().get() as string | undefined;
        const rows = stored === undefined ? [] : (JSON.parse(stored) as { rows: { label: string; expanded: boolean }[] }).rows;
        const at = rows.findIndex((row) => row.label === org && row.expanded);
        if (at >= 0 && rows.length - at > SCREENFUL) break;
        if (Date.now() > deadline) throw new Error(`the app did not keep a frame of ${org} expanded within 30 s (stored: ${stored ?? 'nothing'})`);
        await page.waitForTimeout(250);
      }
    } finally {
      cache.close();
    }
    await page.context().close();
  } finally {
    await web.stop();
  }
}

/** An organization's expansion keys (its own and every location's), its machine count and the name of its last machine. */
function orgOf(cache: Database.Database, name: string): { name: string; orgId: string; keys: string[]; machines: number; locations: number; lastMachine: string; lastPart: string } {
  const orgId = cache.prepare('SELECT id FROM organizations WHERE name = ?').pluck().get(name) as string;
  const locations = cache.prepare('SELECT id FROM locations WHERE org_id = ?').pluck().all(orgId) as string[];
  const machines = cache.prepare('SELECT count(*) FROM machines WHERE org_id = ?').pluck().get(orgId) as number;
  const lastMachine = cache.prepare('SELECT max(name) FROM machines WHERE org_id = ?').pluck().get(orgId) as string;
  const lastPart = cache.prepare('SELECT max(name) FROM parts WHERE org_id = ?').pluck().get(orgId) as string;
  return { name, orgId, keys: [`org:${orgId}:${orgId}`, ...locations.map((id) => `location:${orgId}:${id}`)], machines, locations: locations.length, lastMachine, lastPart };
}

/** What a set of cold opens measured: from navigation, from the page's tree call, and main's event-loop lag per backend. */
interface ColdOpens {
  /** The first frame that shows the screenful: the window's frame drawn by main from the last run (main/ui/fleet-frame.ts), or the app's own tree. */
  readonly screenful: number[];
  /** The first frame that shows the screenful in the app's own tree, usable (the frame gone from over it). */
  readonly live: number[];
  readonly searchable: number[];
  /** The last machine's name found (over a head, before the parts are in). */
  readonly machines: number[];
  readonly machinesFromCall: number[];
  /** The app's own usable first screenful (`live`), from the moment the page sent the organization's tree call (the data path and the drawing, without the page's own boot). */
  readonly screenfulFromCall: number[];
  readonly searchableFromCall: number[];
  /** Main's event-loop delay over each backend's life (start, the open, the connect's sync meanwhile), ms. */
  readonly lagP99: number[];
  readonly lagMax: number[];
}

/**
 * Cold opens of `org` (expanded, with every location, as remembered): a fresh backend each time and
 * a page loaded on it. Returns per open the time from navigation to the first screenful, and, on
 * opens of their own, to the frame that shows the match of `lastPart` (the whole tree searchable)
 * and of `lastMachine` (machines searchable) typed into the search box;
 * each also from the page's first tree call for the organization (`locations.tree*` with its id, as
 * sent on the WebSocket).
 */
async function coldOpens(browser: Browser, userDataDir: string, org: { name: string; orgId: string; lastMachine: string; lastPart: string }): Promise<ColdOpens> {
  const out: ColdOpens = { screenful: [], live: [], searchable: [], machines: [], machinesFromCall: [], screenfulFromCall: [], searchableFromCall: [], lagP99: [], lagMax: [] };
  const lagFile = join(userDataDir, 'bench-lag.json');
  for (let i = 0; i < COLD_OPENS; i++) {
    for (const kind of ['screenful', 'searchable', 'machines'] as const) {
      rmSync(lagFile, { force: true });
      // The browser's window first, settled, then the backend and the navigation: see BROWSER_SETTLE_MS.
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      try {
        const page = await context.newPage();
        await page.waitForTimeout(BROWSER_SETTLE_MS);
        const web = await startWeb(userDataDir, { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${join(import.meta.dirname, 'lag-probe.mjs')}`, FLEET_BENCH_LAG_FILE: lagFile });
        try {
          page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
          // The moment the page sends its first tree call for the organization.
          await page.addInitScript({
            content: `(() => {
              const orgId = ${JSON.stringify(org.orgId)};
              const send = WebSocket.prototype.send;
              WebSocket.prototype.send = function (data) {
                if (window.__treeCall === undefined && typeof data === 'string' && data.includes('"locations.tree') && data.includes(orgId)) window.__treeCall = performance.now();
                return send.call(this, data);
              };
            })();`,
          });
          if (kind === 'screenful') {
            // Watched from the document's start: the frame's rows can be drawn before \`goto\` returns (at the load event).
            await page.addInitScript({
              content: `(() => {
                const org = ${JSON.stringify(org.name)};
                const rows = ${SCREENFUL};
                const check = () => {
                  const now = performance.now();
                  if (window.__frameScreenful === undefined) {
                    const items = [...document.querySelectorAll('.boot-shell .boot-row')];
                    const at = items.findIndex((e) => e.dataset.name === org && e.dataset.count !== undefined);
                    if (at >= 0 && items.length - at >= rows) window.__frameScreenful = now;
                  }
                  if (window.__liveScreenful === undefined && !document.querySelector('.boot-shell.covering')) {
                    const items = [...document.querySelectorAll('[role="treeitem"]')];
                    const at = items.findIndex((e) => e.getAttribute('aria-label')?.startsWith(org + ','));
                    if (at >= 0 && items.length - at >= rows) window.__liveScreenful = now;
                  }
                  if (window.__liveScreenful === undefined) requestAnimationFrame(check);
                };
                requestAnimationFrame(check);
              })();`,
            });
          } else {
            // Typed by the page itself, the moment the box exists: no round trip to the bench in the way.
            await page.addInitScript({
              content: `(() => {
                const query = ${JSON.stringify(kind === 'searchable' ? org.lastPart : org.lastMachine)};
                const type = () => {
                  const box = document.querySelector('input[aria-label="Search the fleet by name"]');
                  if (!box) return requestAnimationFrame(type);
                  box.value = query;
                  box.dispatchEvent(new Event('input', { bubbles: true }));
                };
                requestAnimationFrame(type);
              })();`,
            });
          }
          await page.goto(web.url);
          let at: number;
          if (kind === 'screenful') {
            const seen = await page.waitForFunction(() => {
              const w = window as unknown as { __frameScreenful?: number; __liveScreenful?: number };
              return w.__liveScreenful !== undefined && [w.__frameScreenful ?? Infinity, w.__liveScreenful];
            }, undefined, { polling: 'raf', timeout: 60_000 });
            const [frame, live] = (await seen.jsonValue()) as [number | null, number];
            // A frame drawn after the live rows cannot be: the app takes its place then. JSON's Infinity is null.
            at = Math.min(frame ?? Infinity, live);
            out.live.push(live);
          } else {
            // Found in the app's tree and usable: not under the frame of the last run.
            const done = await page.waitForFunction((name) => !document.querySelector('.boot-shell.covering') && [...document.querySelectorAll('[role="treeitem"]')].some((e) => e.getAttribute('aria-label')?.split(',')[0] === name) && performance.now(), kind === 'searchable' ? org.lastPart : org.lastMachine, { polling: 'raf', timeout: 60_000 });
            at = (await done.jsonValue()) as number;
          }
          const call = (await page.evaluate(() => (window as unknown as { __treeCall?: number }).__treeCall)) ?? NaN;
          ({ screenful: out.screenful, searchable: out.searchable, machines: out.machines })[kind].push(at);
          // The frame is drawn before the page's code sends any call: from the call, only the app's own tree means anything.
          ({ screenful: out.screenfulFromCall, searchable: out.searchableFromCall, machines: out.machinesFromCall })[kind].push((kind === 'screenful' ? (out.live.at(-1) ?? NaN) : at) - call);
        } finally {
          // The page closed first: a backend stopped under it would show it "reconnecting" on the way out.
          try {
            await context.close();
          } finally {
            await web.stop();
          }
        }
      } finally {
        await context.close();
      }
      const lag = JSON.parse(readFileSync(lagFile, 'utf8')) as { p99: number; max: number };
      out.lagP99.push(lag.p99);
      out.lagMax.push(lag.max);
    }
  }
  return out;
}

const treeRow = (page: Page, name: string) => page.getByRole('tree', { name: 'Fleet' }).getByRole('treeitem', { name: new RegExp(`^${name}(,|$)`) });

/** Helpers installed in the page: "after next paint" timing of key presses and scroll frames. */
async function instrument(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { __keys: number[]; __afterPaint: (start: number, done: (ms: number) => void) => void };
    w.__keys = [];
    // A task posted from an animation frame runs once that frame's style, layout and paint are done.
    w.__afterPaint = (start, done) =>
      requestAnimationFrame(() => {
        const channel = new MessageChannel();
        channel.port1.onmessage = () => done(performance.now() - start);
        channel.port2.postMessage(null);
      });
    // Capture phase: before any handler of the app runs for this key.
    window.addEventListener(
      'keydown',
      (event) => {
        if (event.key !== 'Shift') w.__afterPaint(event.timeStamp, (t) => w.__keys.push(t));
      },
      true,
    );
  });
}

async function keyTimes(page: Page): Promise<number[]> {
  return page.evaluate(() => {
    const w = window as unknown as { __keys: number[] };
    return w.__keys.splice(0);
  });
}

/** Press a key on a focused tree row and wait for its frame; returns the time to that frame. */
async function pressTimed(page: Page, key: string): Promise<number> {
  await keyTimes(page);
  await page.keyboard.press(key);
  await page.waitForFunction(() => (window as unknown as { __keys: number[] }).__keys.length > 0);
  return (await keyTimes(page))[0]!;
}

/** Expand `name` (every location inside already expanded) and collapse it again, RENDERS times. */
async function expandTimes(page: Page, name: string, expectRowsAtLeast: number): Promise<number[]> {
  const row = treeRow(page, name);
  await row.click();
  await row.focus();
  const out: number[] = [];
  for (let i = 0; i < RENDERS; i++) {
    out.push(await pressTimed(page, 'ArrowRight'));
    const rows = await page.evaluate(() => Math.round((document.querySelector('[role="tree"] > div')?.getBoundingClientRect().height ?? 0) / 28));
    if (rows < expectRowsAtLeast) throw new Error(`expanding ${name} drew ${rows} rows, expected at least ${expectRowsAtLeast}`);
    await pressTimed(page, 'ArrowLeft');
    await page.waitForTimeout(100);
  }
  return out;
}

const median = (v: readonly number[]) => percentile(v, 50);

/** Rounds of the reader's and the page's work measured in Node. */
const READS = 5;

/** What the tree reader answers in (worker → main) and what the page then does with it, per form of a cold start's tree. */
interface TreePath {
  /** From the call in main to the answer in main: the reader's read and the clone to main. */
  readonly head: number[];
  readonly parts: number[];
  readonly whole: number[];
  /** Bytes of JSON on the wire. */
  readonly headBytes: number;
  readonly partsBytes: number;
  readonly wholeBytes: number;
  /** The page's work in Node's V8: JSON.parse, fleetTreeFromColumns and indexTree (whole; head), partsFromColumns and withParts (parts). */
  readonly pageHead: number[];
  readonly pageParts: number[];
  readonly pageWhole: number[];
}

/**
 * The data path of a cold start's tree, part by part, without the backend's start, the connect's
 * sync or the page's boot around it: a fresh tree reader per round (nothing kept ready), warmed on
 * another organization's tree, then the head and its parts as the page asks for them, and, on
 * another fresh reader, the whole tree in one answer; then the page's work on each answer, in Node.
 */
async function treePath(cachePath: string, orgId: string, warmOrgId: string): Promise<TreePath> {
  const entry = join(import.meta.dirname, '..', 'out', 'main', 'cache-worker.js');
  const timed = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
    const start = performance.now();
    const value = await work();
    return [value, performance.now() - start];
  };
  const out = { head: [] as number[], parts: [] as number[], whole: [] as number[], pageHead: [] as number[], pageParts: [] as number[], pageWhole: [] as number[], headBytes: 0, partsBytes: 0, wholeBytes: 0 };
  for (let i = 0; i < READS; i++) {
    // As the app reads them: JSON text serialized in the reader, which main sends on as it is.
    const twoStep = new CacheWorker(cachePath, { entry });
    await twoStep.read('readTreeColumns', warmOrgId, true);
    const [headJson, headMs] = await timed(() => twoStep.read('readTreeColumns', orgId, false));
    const [partsJson, partsMs] = await timed(() => twoStep.read('readTreeParts', orgId));
    await twoStep.close();
    const oneStep = new CacheWorker(cachePath, { entry });
    await oneStep.read('readTreeColumns', warmOrgId, true);
    const [wholeJson, wholeMs] = await timed(() => oneStep.read('readTreeColumns', orgId, true));
    await oneStep.close();
    out.head.push(headMs);
    out.parts.push(partsMs);
    out.whole.push(wholeMs);
    [out.headBytes, out.partsBytes, out.wholeBytes] = [headJson.length, partsJson.length, wholeJson.length];
    const [head, parts] = [JSON.parse(headJson) as FleetColumns, JSON.parse(partsJson) as FleetPartColumns];
    const [headIndex, pageHeadMs] = await timed(async () => indexTree(fleetTreeFromColumns(JSON.parse(headJson) as FleetColumns) as FleetTree));
    const [completed, pagePartsMs] = await timed(async () => {
      const got = JSON.parse(partsJson) as FleetPartColumns;
      return withParts(headIndex, partsFromColumns(got, headIndex.tree.machines.length) as TreePart[][], got.syncedAt);
    });
    const [wholeIndex, pageWholeMs] = await timed(async () => indexTree(fleetTreeFromColumns(JSON.parse(wholeJson) as FleetColumns) as FleetTree));
    if (parts.stamp !== head.stamp || completed.flat.length !== wholeIndex.flat.length) throw new Error('the head and its parts do not make the whole tree');
    out.pageHead.push(pageHeadMs);
    out.pageParts.push(pagePartsMs);
    out.pageWhole.push(pageWholeMs);
  }
  return out;
}

/**
 * Type QUERY into `field` TYPINGS times (emptied in between), a key every 250 ms; per key of the
 * query, the median of its times over the typings (the first typing also pays for the JIT warming up).
 */
async function typeTimes(page: Page, field: ReturnType<Page['locator']>): Promise<number[]> {
  const runs: number[][] = [];
  for (let r = 0; r < TYPINGS; r++) {
    await field.fill('');
    await field.click();
    await page.waitForTimeout(500);
    await keyTimes(page);
    await page.keyboard.type(QUERY, { delay: 250 });
    await page.waitForTimeout(300);
    runs.push(await keyTimes(page));
  }
  return [...QUERY].map((_, k) => median(runs.map((run) => run[k] ?? NaN)));
}

async function main(): Promise<void> {
  buildApp();

  const userDataDir = mkdtempSync(join(tmpdir(), 'fleet-bench-tree-'));
  const smallDataDir = mkdtempSync(join(tmpdir(), 'fleet-bench-tree-small-'));
  let web: Web | null = null;
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: chromiumArgs });
  try {
    await seedLocalService(userDataDir);
    await seedLocalService(smallDataDir, 0);
    await firstLaunch(browser, userDataDir, MEGAFLEET);
    await firstLaunch(browser, smallDataDir, SMALL);

    // Cold opens, each organization expanded with every location in it.
    const smallCache = new Database(join(smallDataDir, 'profiles', 'local', 'cache.sqlite'));
    const smallOrg = orgOf(smallCache, SMALL);
    rememberExpanded(smallCache, smallOrg.keys);
    smallCache.close();
    const bigCache = new Database(join(userDataDir, 'profiles', 'local', 'cache.sqlite'));
    const bigOrg = orgOf(bigCache, MEGAFLEET);
    const warmOrgId = orgOf(bigCache, SMALL).orgId;
    rememberExpanded(bigCache, bigOrg.keys);
    bigCache.close();
    await keepFrame(browser, smallDataDir, SMALL);
    await keepFrame(browser, userDataDir, MEGAFLEET);
    // The tree's data path alone, on the quiet cache (the app is not running).
    const path = await treePath(join(userDataDir, 'profiles', 'local', 'cache.sqlite'), bigOrg.orgId, warmOrgId);
    const smallCold = await coldOpens(browser, smallDataDir, smallOrg);
    const bigCold = await coldOpens(browser, userDataDir, bigOrg);

    // Remember every location of both organizations as expanded, as if the user had opened them all.
    const cache = new Database(join(userDataDir, 'profiles', 'local', 'cache.sqlite'));
    const expanded: string[] = [];
    const counts = new Map<string, { machines: number; locations: number }>();
    for (const name of [MEGAFLEET, SMALL]) {
      const orgId = cache.prepare('SELECT id FROM organizations WHERE name = ?').pluck().get(name) as string;
      const locations = cache.prepare('SELECT id FROM locations WHERE org_id = ?').pluck().all(orgId) as string[];
      for (const id of locations) expanded.push(`location:${orgId}:${id}`);
      const machines = cache.prepare('SELECT count(*) FROM machines WHERE org_id = ?').pluck().get(orgId) as number;
      counts.set(name, { machines, locations: locations.length });
    }
    const parts = cache.prepare('SELECT count(*) FROM parts').pluck().get() as number;
    rememberExpanded(cache, expanded);
    cache.close();
    const mega = counts.get(MEGAFLEET)!;
    const small = counts.get(SMALL)!;

    // Second launch: everything comes from the cache (and the service, still running the same fleet).
    web = await startWeb(userDataDir);
    const page = await openApp(browser, web.url);
    const coldOpen = await page.waitForFunction((name) => [...document.querySelectorAll('[role="treeitem"]')].some((e) => e.getAttribute('aria-label')?.startsWith(`${name},`)) && performance.now(), MEGAFLEET, { polling: 'raf', timeout: 60_000 });
    const coldOpenMs = (await coldOpen.jsonValue()) as number;
    // The sync of the connect (10,000 machines) runs on the same two cores: measure after it.
    const syncing = page.getByText(/Syncing…/);
    await syncing.waitFor({ timeout: 15_000 }).catch(() => undefined);
    await syncing.waitFor({ state: 'detached', timeout: 120_000 });
    await page.waitForTimeout(1_000);
    await instrument(page);

    // First render.
    const smallRenders = await expandTimes(page, SMALL, small.machines);
    const megaRenders = await expandTimes(page, MEGAFLEET, mega.machines);

    // Scrolling, with Megafleet expanded: 10,000 machine rows.
    await treeRow(page, MEGAFLEET).focus();
    await page.keyboard.press('ArrowRight');
    await page.waitForTimeout(300);
    const treeFrames: number[] = [];
    for (let i = 0; i < SCROLL_PASSES; i++) treeFrames.push(...(await scrollFrames(page, '[role="tree"]', SCROLL_FRAMES, 4 * 28)));
    const treeRows = await page.evaluate(() => Math.round((document.querySelector('[role="tree"] > div')?.getBoundingClientRect().height ?? 0) / 28));
    // Baseline: the browser scrolling a plain list of as many rows, in the same page.
    await addPlainList(page, 'bench-plain-list', treeRows, 28, { width: 260, height: 600 });
    const plainFrames: number[] = [];
    for (let i = 0; i < SCROLL_PASSES; i++) plainFrames.push(...(await scrollFrames(page, '#bench-plain-list', SCROLL_FRAMES, 4 * 28)));
    await page.evaluate(() => document.getElementById('bench-plain-list')?.remove());

    // Search: each key of QUERY, from keydown to the frame with the matches.
    const search = page.getByRole('searchbox', { name: 'Search the fleet by name' });
    const searchKeys = await typeTimes(page, search);
    const matches = (await page.getByText(/\d+ match(es)?|No name matches/).textContent())?.trim() ?? '';
    // Baseline: the same keys into a plain input that does nothing.
    await page.evaluate(() => {
      const input = document.createElement('input');
      input.id = 'bench-plain-input';
      input.setAttribute('aria-label', 'baseline');
      document.body.append(input);
    });
    const plainKeys = await typeTimes(page, page.locator('#bench-plain-input'));
    await page.context().close();

    console.log(`tree on ${machine()}, ${browser.version()} (headless, software rendering)`);
    console.log(`  fleet: ${mega.machines.toLocaleString('en')} machines in ${mega.locations} locations in "${MEGAFLEET}" (every location expanded), ${parts.toLocaleString('en')} parts in the cache`);
    console.log(`  cold open (page load → tree drawn from the cache, locations expanded, organization not): ${ms(coldOpenMs)}`);
    console.log(`  cold open, ${MEGAFLEET} and every location expanded, ${COLD_OPENS} backends: first screenful ${bigCold.screenful.map(ms).join(', ')} (the app's own, usable: ${bigCold.live.map(ms).join(', ')}); whole tree searchable ("${bigOrg.lastPart}" found) ${bigCold.searchable.map(ms).join(', ')}; machines searchable ("${bigOrg.lastMachine}" found) ${bigCold.machines.map(ms).join(', ')}`);
    console.log(`  cold open, ${SMALL} alone (${smallOrg.machines} machines) and every location expanded: first screenful ${smallCold.screenful.map(ms).join(', ')} (the app's own, usable: ${smallCold.live.map(ms).join(', ')}); whole tree searchable ("${smallOrg.lastPart}" found) ${smallCold.searchable.map(ms).join(', ')}; machines searchable ("${smallOrg.lastMachine}" found) ${smallCold.machines.map(ms).join(', ')}`);
    console.log(`  from the tree call (data path and drawing, without the page's boot): first screenful ${bigCold.screenfulFromCall.map(ms).join(', ')} (${smallCold.screenfulFromCall.map(ms).join(', ')} at ${smallOrg.machines}); whole tree searchable ${bigCold.searchableFromCall.map(ms).join(', ')} (${smallCold.searchableFromCall.map(ms).join(', ')}); machines searchable ${bigCold.machinesFromCall.map(ms).join(', ')} (${smallCold.machinesFromCall.map(ms).join(', ')})`);
    console.log(`  main's event-loop lag over each backend's life, ${MEGAFLEET} opens: p99 ${bigCold.lagP99.map(ms).join(', ')}, max ${bigCold.lagMax.map(ms).join(', ')} (${SMALL}: p99 ${smallCold.lagP99.map(ms).join(', ')}, max ${smallCold.lagMax.map(ms).join(', ')})`);
    const fromCall = (name: string, big: number[], small: number[]) =>
      console.log(`  tree call → ${name} at ${bigOrg.machines.toLocaleString('en')} machines (median of ${COLD_OPENS}): ${ms(median(big))}, ${(median(big) / median(small)).toFixed(2)}× the same at ${smallOrg.machines} (${ms(median(small))})`);
    const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;
    const spread = (v: readonly number[]) => `${ms(median(v))} (${ms(Math.min(...v))}–${ms(Math.max(...v))})`;
    console.log(`  the tree's data path at ${bigOrg.machines.toLocaleString('en')} machines, median (range) of ${READS} fresh readers, no sync beside: reader → main (read and serialized in the reader, as the app sends it), head ${spread(path.head)} (${mb(path.headBytes)} of JSON), its parts after it ${spread(path.parts)} (${mb(path.partsBytes)}), the whole tree in one ${spread(path.whole)} (${mb(path.wholeBytes)})`);
    console.log(`  the page's work on them, in Node (parse, check, index): head ${spread(path.pageHead)}, its parts onto it ${spread(path.pageParts)}; the whole tree in one ${spread(path.pageWhole)}`);
    fromCall("the app's own first screenful, usable", bigCold.screenfulFromCall, smallCold.screenfulFromCall);
    fromCall('whole tree searchable', bigCold.searchableFromCall, smallCold.searchableFromCall);
    fromCall('machines searchable', bigCold.machinesFromCall, smallCold.machinesFromCall);
    console.log(`  cold open → machines searchable at ${bigOrg.machines.toLocaleString('en')} machines (median of ${COLD_OPENS}): ${ms(median(bigCold.machines))}, ${(median(bigCold.machines) / median(smallCold.machines)).toFixed(2)}× the same at ${smallOrg.machines} (${ms(median(smallCold.machines))}), printed, not judged`);
    console.log(`  expand ${SMALL} (${small.machines} machines): median ${ms(median(smallRenders))} (${smallRenders.map(ms).join(', ')})`);
    console.log(`  expand ${MEGAFLEET} (${treeRows.toLocaleString('en')} rows): median ${ms(median(megaRenders))} (${megaRenders.map(ms).join(', ')})`);
    console.log(`  scroll ${SCROLL_PASSES} × ${SCROLL_FRAMES} frames, 4 rows each: tree p50 ${ms(percentile(treeFrames, 50))}, p95 ${ms(percentile(treeFrames, 95))}, max ${ms(Math.max(...treeFrames))}; plain list p95 ${ms(percentile(plainFrames, 95))}`);
    console.log(`  search "${QUERY}" (${matches}), per key, median of ${TYPINGS} typings: ${searchKeys.map(ms).join(', ')}; plain input ${plainKeys.map(ms).join(', ')}`);
    const ok = [
      // Both judged against the 300 ms: the first screenful a person sees (the frame main
      // draws from the rows the app kept, before the app's code has run), and the app's own tree,
      // usable, which the frame stands in for until then.
      verdict(`cold open → first screenful at ${bigOrg.machines.toLocaleString('en')} machines, drawn (median of ${COLD_OPENS})`, median(bigCold.screenful), TARGETS.firstScreenfulMs, median(smallCold.screenful), `the window's frame with the kept rows; baseline: the same open of the demo fleet alone (${smallOrg.machines} machines)`),
      verdict(`cold open → the app's own first screenful at ${bigOrg.machines.toLocaleString('en')} machines, usable (median of ${COLD_OPENS})`, median(bigCold.live), TARGETS.firstScreenfulMs, median(smallCold.live), `the frame gone; baseline: the same open of the demo fleet alone (${smallOrg.machines} machines)`),
      verdict(`cold open → whole tree searchable at ${bigOrg.machines.toLocaleString('en')} machines (median of ${COLD_OPENS})`, median(bigCold.searchable), TARGETS.searchableMs, median(smallCold.searchable), `baseline: the same open of the demo fleet alone (${smallOrg.machines} machines)`),
      verdict('first render of 10,000 machines (median of 7)', median(megaRenders), TARGETS.firstRenderMs, median(smallRenders), `worst ${ms(Math.max(...megaRenders))}; baseline: the same for ${small.machines} machines`),
      verdict('scrolling frame p95', percentile(treeFrames, 95), TARGETS.scrollFrameP95Ms, percentile(plainFrames, 95), 'baseline: a plain list of as many rows'),
      verdict(`search keystroke (slowest key of "${QUERY}", median of ${TYPINGS} typings)`, Math.max(...searchKeys), TARGETS.keystrokeMs, Math.max(...plainKeys), `median key ${ms(median(searchKeys))}; baseline: a plain input`),
    ].every(Boolean);
    process.exitCode = ok ? 0 : 1;
  } finally {
    await browser.close();
    await web?.stop();
    rmSync(userDataDir, { recursive: true, force: true });
    rmSync(smallDataDir, { recursive: true, force: true });
  }
}

await main();
