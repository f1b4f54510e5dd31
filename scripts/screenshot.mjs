#!/usr/bin/env node
/**
 * `node scripts/screenshot.mjs`: the README's screenshots, taken from the real app in browser mode
 * on a first launch (the demo fleet): the fleet tree opened down to a live machine, light and dark;
 * the log viewer tailing a location's machines merged; an organization's training jobs; a part's
 * config in its editor with a change from its history; a part's effective config with its sources;
 * an organization's people.
 * Needs a build (`npm run build`) and Chromium (CHROMIUM_PATH or /usr/bin/chromium); run it inside a
 * keyring session (`dbus-run-session -- scripts/with-keyring.sh node scripts/screenshot.mjs`), or the
 * app shows its no-keychain notice.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { chromium } from '@playwright/test';

const root = join(import.meta.dirname, '..');
const userDataDir = mkdtempSync(join(tmpdir(), 'fleet-desk-shot-'));
const web = spawn(process.execPath, [join(root, 'out', 'main', 'web.js'), '--user-data-dir', userDataDir], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise((resolve) => createInterface({ input: web.stdout }).on('line', (line) => /(http:\/\/\S+)/.test(line) && resolve(/(http:\/\/\S+)/.exec(line)[1])));
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
try {
  const row = (page, name) => page.getByRole('tree', { name: 'Fleet' }).getByRole('treeitem', { name: new RegExp(`^${name}(,|$)`) });
  const open = async (page, name) => {
    await row(page, name).click();
    if ((await row(page, name).getAttribute('aria-expanded')) === 'false') await page.keyboard.press('ArrowRight');
  };
  // One page: the launch token in the URL is spent by its first use.
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 })).newPage();
  await page.goto(url);
  await row(page, 'Acme Warehouse Robotics').waitFor();
  await open(page, 'Acme Warehouse Robotics');
  await open(page, 'Reno Fulfillment Center');
  await open(page, 'Building A');
  await open(page, 'Floor 1');
  await open(page, 'Columbus DC');
  // A machine that is live now (demo parts check in every few seconds), opened on its parts.
  const live = page.getByRole('tree', { name: 'Fleet' }).getByRole('treeitem', { level: 5 }).filter({ has: page.getByRole('img', { name: 'Live', exact: true }) }).first();
  await live.waitFor();
  const name = await live.getAttribute('data-name');
  await open(page, name);
  await row(page, name).click();
  await page.getByRole('main').getByRole('heading', { level: 1, name }).waitFor();
  await page.waitForTimeout(1500);
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(root, 'docs', scheme === 'light' ? 'screenshot.png' : 'screenshot-dark.png') });
  }
  // The log viewer: Floor 1's machines merged, tailed live for a while (history, then live lines).
  await page.emulateMedia({ colorScheme: 'light' });
  await row(page, 'Floor 1').click();
  await page.getByRole('main').getByRole('toolbar').getByRole('button', { name: 'Logs', exact: true }).click();
  await page.getByRole('main').getByText('Live', { exact: true }).first().waitFor({ timeout: 30_000 });
  await page.waitForTimeout(8000);
  await page.screenshot({ path: join(root, 'docs', 'screenshot-logs.png') });
  // Training: Acme's jobs, two of the demo's running (they progress live), the others in every final state.
  await row(page, 'Acme Warehouse Robotics').click();
  await page.getByTestId('org-training').click();
  await page.locator('[data-testid="training-job-row"][data-status="running"]').first().waitFor();
  await page.waitForTimeout(2500);
  await page.screenshot({ path: join(root, 'docs', 'screenshot-training.png') });
  // A part's config: the editor on a demo AMR's config (its shared fragment, a mod), and a change of
  // its history (made by another key) against the one before.
  const main = page.getByRole('main');
  for (const n of ['001', '002', '003', '004', '005', '006', '007', '008']) {
    await page.keyboard.press('Control+KeyK');
    await page.getByRole('combobox', { name: /Go to/ }).fill(`amr-${n}-main`);
    await page.keyboard.press('Enter');
    await main.getByRole('heading', { level: 1, name: `amr-${n}-main` }).waitFor();
    await page.getByTestId('part-config').click();
    await main.getByRole('textbox', { name: /^Config of part / }).waitFor();
    await page.waitForTimeout(800);
    if ((await main.locator('button.entry').count()) > 1) break;
  }
  // The change that moved it onto the shared fragment, with its diff in view.
  await main.locator('button.entry').nth(1).click();
  await main.getByRole('heading', { name: 'History', exact: true }).evaluate((heading) => heading.scrollIntoView({ block: 'start' }));
  await page.waitForTimeout(1000);
  await page.screenshot({ path: join(root, 'docs', 'screenshot-config.png') });
  // A mezzanine AMR's effective config: blocks marked by the fragment they came from, the mezzanine's
  // slower speed marked as a mod of the shared base.
  await row(page, 'Reno Fulfillment Center').click();
  await open(page, 'Building B');
  await open(page, 'Mezzanine');
  // The mezzanine's first machine: the row under it (Floor 1's machines are open above).
  await row(page, 'Mezzanine').focus();
  await page.keyboard.press('ArrowDown');
  const amr = page.getByRole('tree', { name: 'Fleet' }).locator('[role="treeitem"]:focus');
  await amr.click();
  await page.getByTestId('machine-fragments').click();
  await main.getByRole('tree', { name: 'Fragments of the machine' }).waitFor();
  await main.getByRole('button', { name: 'See the effective config' }).click();
  await main.getByRole('complementary', { name: 'Where the config comes from' }).waitFor();
  await main.locator('.cm-mod').first().waitFor();
  await page.waitForTimeout(800);
  await page.screenshot({ path: join(root, 'docs', 'screenshot-effective.png') });
  // Who has access: Acme's people with their roles at every scope, and the pending invite.
  await row(page, 'Acme Warehouse Robotics').click();
  await page.getByTestId('org-people').click();
  await page.getByTestId('members').waitFor();
  await page.waitForTimeout(800);
  await page.screenshot({ path: join(root, 'docs', 'screenshot-people.png') });
} finally {
  await browser.close();
  web.kill('SIGTERM');
  await new Promise((resolve) => web.once('exit', resolve));
  rmSync(userDataDir, { recursive: true, force: true });
}
