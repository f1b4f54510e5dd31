/**
 * First launch end to end: the app starts its embedded service with the demo fleet and shows it; with
 * the service stopped the cached fleet stays, under the offline banner; started again, the banner goes.
 * Runs in browser mode (Chromium) here, and through Electron wherever its binary is installed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { DEMO_ORGANIZATIONS } from '../../service/demo';
import { expect, test, treeItem } from './fixtures';

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
  await ui(page).start.click();
  await expect(ui(page).connection).toContainText('Online');
  const traffic = app.bridgeTraffic();
  if (traffic !== null) {
    expect(traffic.length).toBeGreaterThan(5);
    for (const frame of traffic) expect(frame).not.toContain(apiKey);
  }
});
