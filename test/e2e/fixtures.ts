/**
 * The app under test, however it is hosted. Each test gets a fresh user-data dir (so a first launch
 * is a real first launch: the embedded service starts with its demo fleet) and a `page` showing the app.
 * - browser: `node out/main/web.js --user-data-dir DIR` and Debian Chromium opening the printed URL
 *   (one Chromium per worker; each test gets a browser context of its own: no cookie, storage or
 *   cache of one test is seen by the next);
 * - electron: `_electron.launch` of the built app with the same user-data dir.
 * Nothing of ours is mocked: the real backend, service, SQLite files and keychain run underneath.
 */
import AxeBuilder from '@axe-core/playwright';
import { test as base, _electron, expect, type Browser, type BrowserContext, type Locator, type Page } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
// @ts-expect-error -- plain ESM helper shared with the npm scripts; it has no type declarations.
import { installedElectron } from '../../scripts/electron-binary.mjs';

const root = join(import.meta.dirname, '..', '..');

export const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export interface AppFixture {
  readonly page: Page;
  readonly userDataDir: string;
  /** Everything the app process wrote on stderr so far (to check no secret is logged). */
  readonly logs: () => string;
  /**
   * Every bridge frame the page sent or received so far, as text (browser mode: the WebSocket);
   * null where the bridge is IPC, which a test cannot observe from outside (Electron).
   */
  readonly bridgeTraffic: () => string[] | null;
  /** Browser mode: the URL the app printed (launch token included); null in Electron. */
  readonly launchUrl: string | null;
  /**
   * Quit the app and start it again on the same user-data dir (the cache, the profiles, the local
   * service's files): what a person's restart is. Answers the new window's page; `page`, `logs`
   * and `bridgeTraffic` of this fixture then describe the new run.
   */
  readonly restart: () => Promise<Page>;
  /**
   * A console error the test provokes on purpose (a chunk's fetch refused) and so expects: errors
   * matching it do not fail the test. Browser mode only (Electron's console is not watched).
   */
  readonly expectConsoleError: (pattern: RegExp) => void;
}

/** Browser mode's backend on `userDataDir`; resolves with the URL it prints (bench/tree.ts uses it too). */
export function startWeb(userDataDir: string, env: Record<string, string> = {}): Promise<{ child: ChildProcess; url: string; logs: () => string }> {
  const child = spawn(process.execPath, [join(root, 'out', 'main', 'web.js'), '--user-data-dir', userDataDir], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`web mode did not print its URL in time:\n${stderr}`)), 30_000);
    child.once('exit', (code) => reject(new Error(`web mode exited with ${code}:\n${stderr}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const url = /(http:\/\/\S+)/.exec(line)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ child, url, logs: () => stderr });
      }
    });
  });
}

export const test = base.extend<{ app: AppFixture; appEnv: Record<string, string> }, { sharedChromium: () => Promise<Browser> }>({
  /**
   * The worker's Chromium, launched on first use (browser project only) and relaunched if it went
   * away; closed when the worker ends. Tests never share a context or a page, only the process.
   */
  sharedChromium: [
    async ({ playwright }, use) => {
      const held: { browser: Promise<Browser> | null } = { browser: null };
      const launched = async () => (held.browser ? await held.browser.catch(() => null) : null);
      await use(async () => {
        if (!(await launched())?.isConnected()) {
          held.browser = playwright.chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: chromiumArgs });
        }
        return held.browser!;
      });
      await (await launched())?.close();
    },
    { scope: 'worker' },
  ],
  /** Extra environment for the app process (`test.use({ appEnv: … })`), e.g. no session bus. */
  appEnv: [{}, { option: true }],
  app: async ({ appEnv, sharedChromium }, use, testInfo) => {
    const userDataDir = mkdtempSync(join(tmpdir(), 'fleet-desk-e2e-'));
    try {
      if (testInfo.project.metadata.host === 'electron') {
        const executablePath = installedElectron() as string | null;
        testInfo.skip(!executablePath, "Electron's binary is not installed on this machine (it cannot be downloaded here); the browser project runs the same spec.");
        const launch = () =>
          _electron.launch({
            executablePath: executablePath!,
            // Chromium refuses to run as root with its OS sandbox (CI containers run as root). The
            // renderer's own isolation (sandbox: true, contextIsolation, no Node) is unaffected.
            args: [root, `--user-data-dir=${userDataDir}`, ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])],
            env: { ...process.env, ...appEnv, FLEET_DESK_USER_DATA: userDataDir },
          });
        let running = await launch();
        let logs = '';
        const listen = () =>
          running.process().stderr?.on('data', (chunk: Buffer) => {
            logs += chunk.toString();
          });
        listen();
        try {
          const fixture = {
            page: await running.firstWindow(),
            userDataDir,
            logs: () => logs,
            bridgeTraffic: () => null,
            launchUrl: null,
            expectConsoleError: () => undefined,
            restart: async () => {
              await running.close();
              running = await launch();
              listen();
              fixture.page = await running.firstWindow();
              return fixture.page;
            },
          };
          await use(fixture);
        } finally {
          await running.close();
        }
        return;
      }
      let web = await startWeb(userDataDir, appEnv);
      const browser = await sharedChromium();
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const stopWeb = async () => {
        if (web.child.exitCode === null && web.child.signalCode === null) {
          const exited = new Promise((resolve) => web.child.once('exit', resolve));
          web.child.kill('SIGTERM');
          await exited;
        }
      };
      const errors: string[] = [];
      const expected: RegExp[] = [];
      const frames: string[] = [];
      const watch = (page: Page) => {
        page.on('websocket', (ws) => {
          ws.on('framesent', (f) => frames.push(String(f.payload)));
          ws.on('framereceived', (f) => frames.push(String(f.payload)));
        });
        page.on('pageerror', (e) => errors.push(e.message));
        page.on('console', (m) => {
          // The window of a quit backend loses its link: that is the restart, not a fault.
          if (m.type() === 'error' && !page.isClosed()) errors.push(m.text());
        });
      };
      try {
        const page = await context.newPage();
        watch(page);
        await page.goto(web.url);
        const fixture = {
          page,
          userDataDir,
          logs: () => web.logs(),
          bridgeTraffic: () => frames,
          launchUrl: web.url,
          expectConsoleError: (pattern: RegExp) => void expected.push(pattern),
          restart: async () => {
            // The window closes before its backend quits, as a person's quit does.
            await fixture.page.close();
            await stopWeb();
            web = await startWeb(userDataDir, appEnv);
            fixture.launchUrl = web.url;
            fixture.page = await context.newPage();
            watch(fixture.page);
            await fixture.page.goto(web.url);
            return fixture.page;
          },
        };
        await use(fixture);
        const unexpected = errors.filter((e) => !expected.some((pattern) => pattern.test(e)));
        if (unexpected.length > 0) throw new Error(`the page reported errors:\n${unexpected.join('\n')}`);
      } finally {
        await context.close();
        await stopWeb();
      }
    } finally {
      rmSync(userDataDir, { recursive: true, force: true });
    }
  },
});

export { expect };

/** index.html as main serves it to this window now (its own session, or app://): with the launch frame main draws into it. */
export const servedPage = (page: Page): Promise<string> => page.evaluate(() => fetch(window.location.href.split('#')[0]!).then((r) => r.text()));

/** What `holdBridge` holds back: nothing, the message ending a sync round (and all after it), or everything. */
export type BridgeHold = 'none' | 'sync-end' | 'all';

/**
 * Browser mode: hold back the bridge's messages from main to the pages of `context` (Electron's IPC
 * cannot be held), from their next connect (a restart) on. `sync-end` holds the message that ends a
 * sync round, so its progress stays on screen, and every message after it (their order kept);
 * `all` holds every one; `release` sends what was held and holds nothing more until `hold` again.
 */
export async function holdBridge(context: BrowserContext): Promise<{ hold: (mode: BridgeHold) => void; release: () => void }> {
  let mode: BridgeHold = 'none';
  const held: (() => void)[] = [];
  await context.routeWebSocket(/\/bridge$/, (ws) => {
    const server = ws.connectToServer();
    let syncing = false;
    ws.onMessage((message) => server.send(message));
    server.onMessage((message) => {
      const text = String(message);
      const ends = syncing && text.includes('"sync":null');
      if (text.includes('"sync":{')) syncing = true;
      else if (text.includes('"sync":null')) syncing = false;
      const keep = mode === 'all' || (mode === 'sync-end' && ends) || (mode !== 'none' && held.length > 0);
      if (keep) held.push(() => ws.send(message));
      else ws.send(message);
    });
  });
  return {
    hold: (next) => {
      mode = next;
    },
    release: () => {
      mode = 'none';
      for (const send of held.splice(0)) send();
    },
  };
}

/**
 * An axe-core scan of what the page shows now: no serious or critical violation (`where` names the
 * state in the failure). Animations and transitions under way finish first (a dialog's 140 ms
 * appear, a button's colour): axe weighs colours by opacity, and a scan that lands mid-fade reports
 * a contrast the settled page does not have. Endless ones (a spinner) are not waited for.
 */
export async function scan(page: Page, where: string): Promise<void> {
  await page.evaluate(() => {
    const finite = document.getAnimations().filter((a) => a.effect?.getComputedTiming().endTime !== Infinity);
    return Promise.race([Promise.all(finite.map((a) => a.finished.catch(() => undefined))), new Promise((resolve) => setTimeout(resolve, 2_000))]).then(() => undefined);
  });
  // In the page itself (legacy mode): the default runs each frame's part and then joins them in a
  // new blank page, which cost 3× the CPU and wall time per scan (1.1–1.3 s against 0.3–0.4 s on
  // 2 cores, ~80 scans a run); the app has no frames to join. Only violations come back in full.
  const { violations } = await new AxeBuilder({ page }).setLegacyMode().options({ resultTypes: ['violations'] }).analyze();
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join('; ')}`), where).toEqual([]);
}

/**
 * The fleet tree's row for `name`: a row's accessible name starts with its label and goes on with
 * what the row shows after it (", main part", ", shared", ", 34 machines").
 */
export function treeItem(scope: Page | Locator, name: string): Locator {
  const tree = 'getByRole' in scope && 'goto' in scope ? scope.getByRole('tree', { name: 'Fleet' }) : scope;
  return tree.getByRole('treeitem', { name: new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(,|$)`) });
}
