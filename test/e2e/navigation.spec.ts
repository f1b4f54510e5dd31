/**
 * Moving around as in any desktop tool: each page has an address, Back and Forward walk them (the
 * top bar's buttons, Alt+←/→ or ⌘[/⌘], the mouse's side buttons), a reload shows the same page, a
 * start without an address (a restart) shows the page of the last run, an address opens its page
 * directly (a deep link), and the palette opens pages too.
 */
import type { Page } from '@playwright/test';
import { expect, scan, test, treeItem } from './fixtures';

const ACME = 'Acme Warehouse Robotics';
const MACHINE = 'picker-arm-003';
const PART = 'picker-arm-003-main';
const mac = process.platform === 'darwin';

function ui(page: Page) {
  const main = page.getByRole('main');
  return {
    main,
    heading: main.getByRole('heading', { level: 1 }),
    back: page.getByRole('group', { name: 'History' }).getByRole('button', { name: /^Back/ }),
    forward: page.getByRole('group', { name: 'History' }).getByRole('button', { name: /^Forward/ }),
  };
}

/** The route in the address (browser mode), or the window's (Electron). */
const route = (page: Page) => page.evaluate(() => window.location.hash.slice(1));

async function press(page: Page, move: 'back' | 'forward'): Promise<void> {
  if (mac) await page.keyboard.press(move === 'back' ? 'Meta+BracketLeft' : 'Meta+BracketRight');
  else await page.keyboard.press(move === 'back' ? 'Alt+ArrowLeft' : 'Alt+ArrowRight');
}

/** The mouse's side buttons (Playwright's mouse has left, middle and right only): what the window receives. */
async function sideButton(page: Page, move: 'back' | 'forward'): Promise<void> {
  await page.evaluate((button) => {
    for (const type of ['mousedown', 'mouseup']) window.dispatchEvent(new MouseEvent(type, { button, bubbles: true, cancelable: true }));
  }, move === 'back' ? 3 : 4);
}

async function expand(page: Page, name: string): Promise<void> {
  const row = treeItem(page, name);
  await row.click();
  if ((await row.getAttribute('aria-expanded')) === 'false') await page.keyboard.press('ArrowRight');
  await expect(row).toHaveAttribute('aria-expanded', 'true');
}

/** Open a node's page through Go to…, once the palette lists it (the fleet's trees are in). */
async function goTo(page: Page, name: string): Promise<void> {
  await expect(treeItem(page, ACME)).toBeVisible();
  await page.keyboard.press('ControlOrMeta+KeyK');
  await page.getByRole('combobox', { name: /Go to/ }).fill(name);
  await expect(page.getByRole('dialog', { name: 'Go to' }).getByRole('option', { selected: true })).toContainText(name);
  await page.keyboard.press('Enter');
  await expect(ui(page).heading).toHaveText(name);
}

test('Back and Forward walk the pages shown, from the top bar, the keyboard and the mouse', async ({ app }) => {
  const { page } = app;
  const u = ui(page);
  await treeItem(page, ACME).click();
  await expect(u.heading).toHaveText(ACME);
  expect(await route(page)).toMatch(/^\/orgs\/[^/]+$/);
  await expect(u.forward).toBeDisabled();

  await page.getByTestId('org-training').click();
  await expect(u.heading).toHaveText(`Training of ${ACME}`);
  expect(await route(page)).toMatch(/^\/orgs\/[^/]+\/training$/);
  await page.getByRole('button', { name: 'Registry', exact: true }).click();
  await expect(u.heading).toHaveText('Registry');
  expect(await route(page)).toBe('/registry');
  await scan(page, 'the registry, with Back and Forward in the top bar');

  await press(page, 'back');
  await expect(u.heading).toHaveText(`Training of ${ACME}`);
  await u.back.click();
  await expect(u.heading).toHaveText(ACME);
  await expect(treeItem(page, ACME)).toHaveAttribute('aria-selected', 'true');
  await press(page, 'forward');
  await expect(u.heading).toHaveText(`Training of ${ACME}`);
  await u.forward.click();
  await expect(u.heading).toHaveText('Registry');
  await expect(u.forward).toBeDisabled();
  // The mouse's side buttons: the page's in browser mode (in Electron, main has them as app-command).
  if (app.launchUrl !== null) {
    await sideButton(page, 'back');
    await expect(u.heading).toHaveText(`Training of ${ACME}`);
    await sideButton(page, 'forward');
    await expect(u.heading).toHaveText('Registry');
  }

  // A key typed in a field stays the field's: Alt+← there moves the caret, not the page.
  await u.main.getByRole('searchbox').first().fill('slam');
  await u.main.getByRole('searchbox').first().press(mac ? 'Meta+BracketLeft' : 'Alt+ArrowLeft');
  await expect(u.heading).toHaveText('Registry');

  // A new page after going back drops what was forward.
  await u.back.click();
  await expect(u.heading).toHaveText(`Training of ${ACME}`);
  await page.keyboard.press('ControlOrMeta+KeyK');
  await page.getByRole('combobox', { name: /Go to/ }).fill(MACHINE);
  await page.keyboard.press('Enter');
  await expect(u.heading).toHaveText(MACHINE);
  expect(await route(page)).toMatch(/^\/orgs\/[^/]+\/machines\/[^/]+$/);
  await expect(u.forward).toBeDisabled();
});

test('a reload shows the same page, a start without an address the page of the last run, and an address its page', async ({ app }) => {
  test.skip(app.launchUrl === null, 'Electron has no address bar to reload from or type into; its restart is the same start without an address');
  const { page } = app;
  const u = ui(page);
  await expect(treeItem(page, ACME)).toBeVisible();
  for (const name of [ACME, 'Reno Fulfillment Center', 'Building A', 'Floor 1', MACHINE]) await expand(page, name);
  await treeItem(page, PART).click();
  await u.main.getByRole('toolbar').getByRole('button', { name: 'Logs', exact: true }).click();
  await expect(u.heading).toHaveText(`${MACHINE} / ${PART}`);
  const logs = await route(page);
  expect(logs).toMatch(/^\/orgs\/[^/]+\/parts\/[^/]+\/logs$/);

  // A reload: the same page, with its history (Back still leads to the part).
  await page.reload();
  await expect(u.heading).toHaveText(`${MACHINE} / ${PART}`);
  await expect(u.main.getByText('Live', { exact: true })).toBeVisible({ timeout: 15_000 });
  await u.back.click();
  await expect(u.heading).toHaveText(PART);
  await u.forward.click();
  await expect(u.heading).toHaveText(`${MACHINE} / ${PART}`);

  // A start without an address (what a restart of the app is): the page of the last run.
  const origin = new URL(page.url()).origin;
  await page.goto(`${origin}/`);
  await expect(u.heading).toHaveText(`${MACHINE} / ${PART}`);
  expect(await route(page)).toBe(logs);

  // An address opens its page directly (a link, a bookmark); one no page has says so and shows the start.
  await page.goto(`${origin}/#/registry`);
  await expect(u.heading).toHaveText('Registry');
  await page.goto(`${origin}/#/no/such/page`);
  await expect(page.getByText('The app has no page at /no/such/page')).toBeVisible();
  expect(await route(page)).toBe('/');
});

test("a page's code loads on its first visit; when it cannot be fetched the page says so, and Retry loads it", async ({ app }, testInfo) => {
  testInfo.skip(testInfo.project.metadata.host === 'electron', 'app:// requests are not routed through Playwright; the loading is the same code');
  const { page } = app;
  const u = ui(page);
  await expect(treeItem(page, ACME)).toBeVisible();
  // The registry's page is a chunk of its own, fetched only now: refuse it, as a backend gone away would.
  const chunk = '**/assets/RegistryPage-*.js';
  await page.route(chunk, (request) => request.abort('connectionrefused'));
  app.expectConsoleError(/Failed to load resource: net::ERR_CONNECTION_REFUSED/);
  await page.getByRole('button', { name: 'Registry', exact: true }).click();
  await expect(u.main.getByText('This page could not be loaded')).toBeVisible();
  expect(await route(page)).toBe('/registry');
  await scan(page, 'a page whose code could not be loaded');
  await page.unroute(chunk);
  await u.main.getByRole('button', { name: 'Retry' }).click();
  await expect(u.heading).toHaveText('Registry');
});

test("a dialog's code loads when it is first opened; when it cannot be fetched the app says so, and opening it again loads it", async ({ app }, testInfo) => {
  testInfo.skip(testInfo.project.metadata.host === 'electron', 'app:// requests are not routed through Playwright; the loading is the same code');
  const { page } = app;
  await expect(treeItem(page, ACME)).toBeVisible();
  // "Add profile" checks its form with the schemas main applies; they and it load on first use.
  const chunk = '**/assets/AddProfileDialog-*.js';
  await page.route(chunk, (request) => request.abort('connectionrefused'));
  app.expectConsoleError(/Failed to load resource: net::ERR_CONNECTION_REFUSED/);
  const profile = page.getByRole('combobox', { name: 'Profile' });
  await profile.selectOption({ label: 'Add profile…' });
  await expect(page.getByRole('status', { name: 'Notifications' })).toContainText("Couldn't open “Add profile”: its code could not be loaded");
  await expect(page.getByRole('dialog', { name: 'Add profile' })).toHaveCount(0);
  await page.unroute(chunk);
  await profile.selectOption({ label: 'Add profile…' });
  const dialog = page.getByRole('dialog', { name: 'Add profile' });
  await expect(dialog.getByRole('textbox', { name: 'Name' })).toBeVisible();
  await scan(page, 'a dialog loaded on its first opening');
});

test("a pane's name dialog loads when first opened, not with the fleet page; when it cannot be fetched the pane says so, and Rename again opens it", async ({ app }, testInfo) => {
  testInfo.skip(testInfo.project.metadata.host === 'electron', 'app:// requests are not routed through Playwright; the loading is the same code');
  const { page } = app;
  const u = ui(page);
  // Refused before it is ever needed: a machine's pane draws without it (the fleet page's own
  // chunk does not import it; test/build/boot-path.test.ts holds that it brings no zod).
  const chunk = '**/assets/NameDialog-*.js';
  await page.route(chunk, (request) => request.abort('connectionrefused'));
  app.expectConsoleError(/Failed to load resource: net::ERR_CONNECTION_REFUSED/);
  await goTo(page, MACHINE);
  await u.main.getByRole('button', { name: 'Rename' }).click();
  await expect(page.getByRole('status', { name: 'Notifications' })).toContainText("Couldn't open “Rename machine”: its code could not be loaded");
  await expect(page.getByRole('dialog', { name: 'Rename machine' })).toHaveCount(0);
  await page.unroute(chunk);
  await u.main.getByRole('button', { name: 'Rename' }).click();
  const dialog = page.getByRole('dialog', { name: 'Rename machine' });
  await expect(dialog.getByRole('textbox', { name: 'Name' })).toHaveValue(MACHINE);
  // The schema came with it: a blank name is refused as the service would.
  await dialog.getByRole('textbox', { name: 'Name' }).fill('   ');
  await dialog.getByRole('button', { name: 'Rename' }).click();
  await expect(dialog.getByText('Must not be empty.')).toBeVisible();
});

test("a machine's metadata editor whose code cannot be fetched says so, and the pane opened again loads it", async ({ app }, testInfo) => {
  testInfo.skip(testInfo.project.metadata.host === 'electron', 'app:// requests are not routed through Playwright; the loading is the same code');
  const { page } = app;
  const u = ui(page);
  // The editor's check (common/'s schemas) loads with its code, not with the fleet page.
  const chunk = '**/assets/schemas-*.js';
  await page.route(chunk, (request) => request.abort('connectionrefused'));
  app.expectConsoleError(/Failed to load resource: net::ERR_CONNECTION_REFUSED/);
  await goTo(page, MACHINE);
  await expect(u.main.getByText("Couldn't load the metadata editor")).toBeVisible();
  await expect(u.main.getByRole('button', { name: 'Save metadata' })).toBeDisabled();
  await page.unroute(chunk);
  await goTo(page, ACME);
  await goTo(page, MACHINE);
  await expect(u.main.getByRole('textbox', { name: `Metadata of machine ${MACHINE}, JSON` })).toBeVisible();
  await expect(u.main.getByText("Couldn't load the metadata editor")).toHaveCount(0);
});

test("while the app's code loads, the window shows the shell's frame; the app takes its place when it starts", async ({ app }, testInfo) => {
  testInfo.skip(testInfo.project.metadata.host === 'electron', 'app:// requests are not routed through Playwright; the page is the same');
  const { page } = app;
  await expect(treeItem(page, ACME)).toBeVisible();
  // Started, the app has replaced the frame index.html draws.
  await expect(page.locator('.boot-shell')).toHaveCount(0);
  // Its code held back (as a slow start would): the frame, from the HTML and the stylesheet alone.
  await page.route('**/assets/*.js', (request) => request.abort('connectionrefused'));
  app.expectConsoleError(/Failed to load resource: net::ERR_CONNECTION_REFUSED/);
  await page.reload();
  const frame = page.locator('.boot-shell');
  await expect(frame).toBeVisible();
  await expect(frame).toContainText('Fleet Desk');
  // Why the window waits, where the app's page will be.
  await expect(frame.getByRole('status')).toHaveText('Fleet Desk is starting…');
  await scan(page, "the shell's frame while the app's code loads");
  const bar = await frame.locator('.boot-topbar').boundingBox();
  const side = await frame.locator('.boot-sidebar').boundingBox();
  await page.unroute('**/assets/*.js');
  await page.reload();
  await expect(treeItem(page, ACME)).toBeVisible();
  await expect(frame).toHaveCount(0);
  // The app's bars and sidebar are where the frame drew them: nothing moves when it starts.
  const topbar = await page.locator('header.topbar').boundingBox();
  const sidebar = await page.getByRole('navigation', { name: 'Fleet' }).boundingBox();
  expect(topbar).toEqual(bar);
  expect(sidebar?.width).toBe(side?.width);
  expect(sidebar?.x).toBe(side?.x);
  expect(sidebar?.y).toBe(side?.y);
});
