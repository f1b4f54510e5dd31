/**
 * Browser mode's launch token, as a person (or someone looking over their shoulder) meets it: it
 * opens the app once, leaves the address bar and this tab's history at once, and the printed link
 * admits no one a second time, while a reload keeps working through the session cookie.
 * Electron has no launch token: the spec is skipped there.
 */
import { chromium } from '@playwright/test';
import { DEMO_ORGANIZATIONS } from '../../service/demo';
import { chromiumArgs } from './fixtures';
import { expect, test, treeItem } from './fixtures';

const firstOrg = DEMO_ORGANIZATIONS[0]!.name;

test('the launch token is spent on load: gone from the address, refused a second time, a reload still works', async ({ app }) => {
  test.skip(app.launchUrl === null, 'Electron loads the app without a launch token');
  const { page } = app;
  const org = treeItem(page, firstOrg);
  await expect(org).toBeVisible();

  const launch = new URL(app.launchUrl!);
  expect(new URL(page.url()).searchParams.has('token')).toBe(false);
  // The address holds the page shown (the router's fragment), never the token.
  expect(page.url()).toMatch(new RegExp(`^${launch.origin}/(#/.*)?$`));
  // The session cookie is HttpOnly: the page's own scripts cannot read (or leak) it.
  expect(await page.evaluate(() => document.cookie)).toBe('');

  await page.reload();
  await expect(org).toBeVisible();
  expect(page.url()).not.toContain('token');

  // Another browser (a copied link, a shoulder-surfed one) gets nothing with the spent token.
  const other = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: chromiumArgs });
  try {
    const stranger = await other.newPage();
    const response = await stranger.goto(app.launchUrl!);
    expect(response?.status()).toBe(403);
    await expect(stranger.locator('body')).toContainText('used already');
  } finally {
    await other.close();
  }
});
