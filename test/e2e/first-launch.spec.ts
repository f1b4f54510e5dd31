/**
 * First launch end to end: the app starts its embedded service with the demo fleet and shows it; with
 * the service stopped the cached fleet stays, under the offline banner; started again, the banner goes.
 * The first log view of a busy part shows hours of history at once (the demo's day of logs), and the
 * fleet-wide search finds its error burst. Runs in browser mode (Chromium) here, and through Electron
 * wherever its binary is installed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import Database from 'better-sqlite3';
import { timeOfKey } from '../../main/logs/cache';
import { DEMO_ORGANIZATIONS } from '../../service/demo';
import { BURST_MARK } from '../../service/logs/history';
import { expect, scan, test, treeItem } from './fixtures';

const demoNames = DEMO_ORGANIZATIONS.map((o) => o.name);

function ui(page: Page) {
  const tree = page.getByRole('navigation', { name: 'Fleet' }).getByRole('tree');
  return {
    tree,
    org: (name: string) => treeItem(tree, name),
    connection: page.getByRole('status', { name: 'Connection' }),
    offlineBanner: page.getByRole('alert').filter({ hasText: /^\s*Offline/ }),
    stop: page.getByRole('button', { name: 'Stop local service' }),
    start: page.getByRole('button', { name: 'Start local service' }),
  };
}

test('first launch shows the demo fleet; offline keeps the cached list; restart clears the banner', async ({ app }) => {
  const { page } = app;
  const u = ui(page);

  for (const name of demoNames) await expect(u.org(name)).toBeVisible();
  await expect(u.tree.getByRole('treeitem')).toHaveCount(demoNames.length);
  await expect(u.connection).toContainText('Online');
  await expect(u.offlineBanner).toHaveCount(0);

  await u.stop.click();
  await expect(u.offlineBanner).toBeVisible();
  await expect(u.offlineBanner).toContainText(/cached/i);
  await expect(u.connection).toContainText('Offline');
  for (const name of demoNames) await expect(u.org(name)).toBeVisible();

  await u.start.click();
  await expect(u.offlineBanner).toHaveCount(0);
  await expect(u.connection).toContainText('Online');
  await expect(u.stop).toBeVisible();
  for (const name of demoNames) await expect(u.org(name)).toBeVisible();
});

test('the cached fleet survives a reload while the service is stopped', async ({ app }) => {
  const { page } = app;
  const u = ui(page);
  await expect(u.org(demoNames[0]!)).toBeVisible();
  await u.stop.click();
  await expect(u.offlineBanner).toBeVisible();

  await page.reload();
  for (const name of demoNames) await expect(u.org(name)).toBeVisible();
  await expect(u.offlineBanner).toBeVisible();
});

test('an organization is created, selected and reachable from the keyboard', async ({ app }) => {
  const { page } = app;
  const u = ui(page);
  await expect(u.org(demoNames[0]!)).toBeVisible();

  await page.getByRole('button', { name: 'New organization' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('textbox').first().fill('Riverside Mowers');
  await dialog.getByRole('textbox').first().press('Enter');
  await expect(dialog).toHaveCount(0);
  await expect(u.org('Riverside Mowers')).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByRole('main').getByRole('heading', { name: 'Riverside Mowers' })).toBeVisible();

  // Keyboard: Home goes to the first organization, Down to the next, Enter selects it.
  await u.org('Riverside Mowers').focus();
  await page.keyboard.press('Home');
  const sorted = [...demoNames, 'Riverside Mowers'].sort((a, b) => a.localeCompare(b));
  await expect(u.org(sorted[0]!)).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(u.org(sorted[1]!)).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(u.org(sorted[1]!)).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByRole('main').getByRole('heading', { name: sorted[1]! })).toBeVisible();
});

test('the API key never reaches the renderer or the logs', async ({ app }) => {
  const { page, userDataDir } = app;
  await expect(ui(page).org(demoNames[0]!)).toBeVisible();
  const { api_key: apiKey } = JSON.parse(readFileSync(join(userDataDir, 'local-service', 'bootstrap-credentials.json'), 'utf8')) as { api_key: string };
  expect(apiKey.length).toBeGreaterThan(20);
  const seen = await page.evaluate(() => document.documentElement.outerHTML + JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));
  expect(seen).not.toContain(apiKey);
  expect(app.logs()).not.toContain(apiKey);
  // Nor does it cross the bridge: a stop/start of the local service re-reads it, and still nothing.
  await ui(page).stop.click();
  // Offline first: "Online" alone also reads so before the stop is noticed, and the frames of the
  // start's new connection would not be in the traffic checked below.
  await expect(ui(page).connection).toContainText('Offline');
  await ui(page).start.click();
  await expect(ui(page).connection).toContainText('Online');
  const traffic = app.bridgeTraffic();
  if (traffic !== null) {
    expect(traffic.length).toBeGreaterThan(5);
    for (const frame of traffic) expect(frame).not.toContain(apiKey);
  }
});

test("a busy part's first log view: hours of history with an ERROR, a histogram with shape, the error burst found fleet-wide", async ({ app }) => {
  const { page, userDataDir } = app;
  const main = page.getByRole('main');
  // A steady machine of Floor 1 whose main part logs tens of lines a minute.
  for (const name of [demoNames[0]!, 'Reno Fulfillment Center', 'Building A', 'Floor 1', 'picker-arm-003']) {
    const row = treeItem(page, name);
    await row.click();
    if ((await row.getAttribute('aria-expanded')) === 'false') await page.keyboard.press('ArrowRight');
  }
  await treeItem(page, 'picker-arm-003-main').click();
  await main.getByRole('toolbar').getByRole('button', { name: 'Logs', exact: true }).click();

  // Within the first seconds: more than 100 lines, not the few the simulation wrote since the service started.
  const count = main.locator('p.count');
  await expect.poll(async () => Number(/([\d,]+)\s+lines?/.exec((await count.textContent()) ?? '')?.[1]?.replace(/,/g, '') ?? 0), { timeout: 5_000 }).toBeGreaterThan(100);
  await main.getByRole('button', { name: 'Previous error' }).click();
  await expect(main.getByRole('listbox', { name: 'Log lines' }).getByRole('option', { selected: true })).toContainText('ERROR');
  // The volume chart spans hours.
  const chart = main.getByRole('img', { name: /^Log volume from/ });
  await expect(chart).toBeVisible();
  await scan(page, 'first log view of a busy part');

  // The histogram has shape: the lines the view holds fall in many of its 120 buckets, not one.
  const cache = new Database(join(userDataDir, 'profiles', 'local', 'cache.sqlite'), { readonly: true });
  try {
    const keys = cache.prepare("SELECT key FROM logs WHERE part_id = (SELECT part_id FROM log_parts WHERE part_name = 'picker-arm-003-main') ORDER BY key").pluck().all() as number[];
    const times = keys.map(timeOfKey);
    const [first, last] = [times[0]!, times.at(-1)!];
    expect(last - first).toBeGreaterThan(3 * 3_600_000);
    const step = Math.ceil((last + 1 - first) / 120);
    expect(new Set(times.map((t) => Math.floor((t - first) / step))).size).toBeGreaterThan(20);
  } finally {
    cache.close();
  }

  // The fleet-wide search finds the error burst.
  await page.getByRole('button', { name: 'Search logs (Ctrl+Shift+F)' }).click();
  await main.getByLabel('Search every cached log line').fill(BURST_MARK);
  const hits = main.getByRole('list', { name: 'Search results' }).getByRole('button');
  await expect(hits.first()).toContainText(BURST_MARK);
  await expect(hits.first()).toContainText('picker-arm-003');
});
