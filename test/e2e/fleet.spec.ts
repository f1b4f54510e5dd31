/**
 * The fleet as a person works with it, on the demo fleet of a first launch: build a location under
 * another, a machine in it and a second part, make that part main, rename the machine and drag it
 * elsewhere, edit metadata (invalid JSON refused), delete it all in order; set a namespace (a taken
 * one refused); search and jump with the palette; watch a part's dot go quiet and live again; browse
 * everything offline. Every state is scanned with axe-core: no serious or critical violation.
 */
import type { Page } from '@playwright/test';
import { expect, holdBridge, scan, servedPage, test, treeItem } from './fixtures';

const ACME = 'Acme Warehouse Robotics';

function ui(page: Page) {
  const tree = page.getByRole('tree', { name: 'Fleet' });
  const main = page.getByRole('main');
  return {
    tree,
    main,
    item: (name: string) => treeItem(tree, name),
    heading: main.getByRole('heading', { level: 1 }),
    action: (name: string) => main.getByRole('toolbar').getByRole('button', { name, exact: true }),
    dialog: page.getByRole('dialog'),
    notice: (text: string | RegExp) => page.getByRole('status').filter({ hasText: text }).or(page.getByText(text)).first(),
  };
}

/** The address a part's page shows. */
const partAddress = (page: Page) => page.getByRole('main').locator('div', { has: page.locator('dt', { hasText: /^Address$/ }) }).locator('dd code');

/** Select a tree row and open it (Right arrow on the focused row). */
async function open(page: Page, name: string): Promise<void> {
  const row = ui(page).item(name);
  await row.click();
  if ((await row.getAttribute('aria-expanded')) === 'false') await page.keyboard.press('ArrowRight');
  await expect(row).toHaveAttribute('aria-expanded', 'true');
}

/** No serious or critical accessibility violation on the page as it is now. */
async function submitDialog(page: Page, value: string, button: string): Promise<void> {
  const dialog = ui(page).dialog;
  await expect(dialog).toBeVisible();
  await dialog.getByLabel('Name').fill(value);
  await dialog.getByRole('button', { name: button }).click();
  await expect(dialog).toHaveCount(0);
}

test('build a location under another, a machine and a second part; make it main, rename, drag, edit metadata, delete in order', async ({ app }) => {
  const { page } = app;
  const u = ui(page);
  await expect(u.item(ACME)).toBeVisible();
  await u.item(ACME).click();
  await expect(u.heading).toHaveText(ACME);
  await scan(page, 'organization pane');

  await u.action('New location').click();
  await scan(page, 'new location dialog');
  await submitDialog(page, 'E2E Site', 'Create location');
  await expect(u.heading).toHaveText('E2E Site');
  await expect(u.item('E2E Site')).toHaveAttribute('aria-selected', 'true');

  await u.action('New location inside').click();
  await submitDialog(page, 'E2E Floor', 'Create location');
  await expect(u.heading).toHaveText('E2E Floor');
  await expect(u.item('E2E Floor')).toHaveAttribute('aria-level', '3');
  await scan(page, 'location pane');

  await u.action('New machine').click();
  await submitDialog(page, 'e2e-bot', 'Create machine');
  await expect(u.heading).toHaveText('e2e-bot');
  await expect(u.item('e2e-bot')).toBeVisible();

  // A write the service refuses says why, and keeps what was typed.
  await u.item('E2E Floor').click();
  await u.action('New machine').click();
  await u.dialog.getByLabel('Name').fill('e2e-bot');
  await u.dialog.getByRole('button', { name: 'Create machine' }).click();
  await expect(u.dialog).toContainText('names are unique within a location');
  await expect(u.dialog.getByLabel('Name')).toHaveValue('e2e-bot');
  await scan(page, 'refused write');
  await u.dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(u.dialog).toHaveCount(0);
  await u.item('e2e-bot').click();
  await expect(u.heading).toHaveText('e2e-bot');

  await u.action('Add part').click();
  await submitDialog(page, 'e2e-bot-cam', 'Add part');
  await expect(u.heading).toHaveText('e2e-bot-cam');
  // The address comes with the part's own read (the tree carries none).
  await expect(partAddress(page)).toHaveText(/^e2e-bot-cam-[0-9a-f]{8}\.fleet\.internal$/);
  await scan(page, 'part pane');
  await u.action('Make main part').click();
  await u.dialog.getByRole('button', { name: 'Make main part' }).click();
  await expect(u.dialog).toHaveCount(0);
  await expect(u.main.getByText('Main part', { exact: true })).toBeVisible();
  // In the tree, the main flag moved.
  await expect(u.item('e2e-bot-cam').getByText('main', { exact: true })).toBeVisible();
  await expect(u.item('e2e-bot-main').getByText('main', { exact: true })).toHaveCount(0);

  // Rename the machine.
  await u.item('e2e-bot').click();
  await u.action('Rename').click();
  await submitDialog(page, 'e2e-bot-renamed', 'Rename');
  await expect(u.heading).toHaveText('e2e-bot-renamed');
  await scan(page, 'machine pane');

  // Drag it from E2E Floor up into E2E Site.
  await u.item('e2e-bot-renamed').dragTo(u.item('E2E Site'));
  await expect(page.getByText('Moved “e2e-bot-renamed” to “E2E Site”.')).toBeVisible();
  await expect(u.item('e2e-bot-renamed')).toHaveAttribute('aria-level', '3');
  await u.item('e2e-bot-renamed').click();
  await expect(u.main.getByText(`${ACME} › E2E Site`, { exact: false }).first()).toBeVisible();

  // Metadata: invalid JSON is refused with the reason; a valid object is saved.
  const editor = u.main.getByRole('textbox', { name: /Metadata of machine e2e-bot-renamed/ });
  await expect(editor).toBeVisible();
  await editor.click();
  await page.keyboard.press('Control+a');
  await page.keyboard.type('{"serial": ');
  await expect(u.main.getByText(/Not valid JSON/)).toBeVisible();
  await expect(u.main.getByRole('button', { name: 'Save metadata' })).toBeDisabled();
  await page.keyboard.press('Control+a');
  await page.keyboard.type('[1, 2]');
  await expect(u.main.getByText('Metadata must be a JSON object')).toBeVisible();
  await page.keyboard.press('Control+a');
  await page.keyboard.type('{"serial": "E2E-0001", "tags": ["test"]}');
  await expect(u.main.getByText('Unsaved changes.')).toBeVisible();
  await u.main.getByRole('button', { name: 'Save metadata' }).click();
  await expect(page.getByText('Saved the metadata of “e2e-bot-renamed”.')).toBeVisible();
  await expect(u.main.getByText('No changes.')).toBeVisible();
  await scan(page, 'machine pane with metadata');

  // A location that still holds something is not deleted, and the dialog says why.
  await u.item('E2E Site').click();
  await u.action('Delete…').click();
  await expect(u.dialog).toContainText('the service refuses to delete a location that is not empty');
  await scan(page, 'delete dialog');
  await u.dialog.getByRole('button', { name: 'Cancel' }).click();

  // Delete in order: the old main part, the machine, the floor, the site.
  await open(page, 'e2e-bot-renamed');
  await u.item('e2e-bot-main').click();
  await u.action('Delete…').click();
  await u.dialog.getByRole('button', { name: 'Delete part' }).click();
  await expect(u.item('e2e-bot-main')).toHaveCount(0);
  await u.item('e2e-bot-renamed').click();
  await u.action('Delete…').click();
  await expect(u.dialog).toContainText('1 part (e2e-bot-cam)');
  await u.dialog.getByRole('button', { name: 'Delete machine' }).click();
  await expect(u.item('e2e-bot-renamed')).toHaveCount(0);
  await u.item('E2E Floor').click();
  await u.action('Delete…').click();
  await u.dialog.getByRole('button', { name: 'Delete location' }).click();
  await expect(u.item('E2E Floor')).toHaveCount(0);
  await u.item('E2E Site').click();
  await u.action('Delete…').click();
  await u.dialog.getByRole('button', { name: 'Delete location' }).click();
  await expect(u.item('E2E Site')).toHaveCount(0);
  await expect(u.heading).toHaveText(ACME);
});

test('a public namespace is checked as it is typed and set once; search and the palette find anything', async ({ app }) => {
  const { page } = app;
  const u = ui(page);
  await u.item('Harborline Logistics AMR').click();
  const field = u.main.getByLabel('Public namespace');
  await field.fill('Not Valid');
  await expect(u.main.getByText(/may hold lowercase letters, digits and dashes/)).toBeVisible();
  await field.fill('acme-warehouse');
  await expect(u.main.getByText('“acme-warehouse” is taken.')).toBeVisible();
  await expect(u.main.getByRole('button', { name: 'Set namespace' })).toBeDisabled();
  await field.fill('harborline-e2e');
  await expect(u.main.getByText('“harborline-e2e” is available.')).toBeVisible();
  await u.main.getByRole('button', { name: 'Set namespace' }).click();
  await expect(u.main.getByText('harborline-e2e', { exact: true })).toBeVisible();
  await expect(u.main.getByText('set once; it cannot change')).toBeVisible();

  // Search reveals matches in context, with the match marked.
  const search = page.getByRole('searchbox', { name: 'Search the fleet by name' });
  await search.fill('yard');
  await expect(u.item('Yard East')).toBeVisible();
  await expect(u.item('Terminal 2')).toHaveAttribute('aria-expanded', 'true');
  await expect(u.item('Yard East').locator('mark')).toHaveText('Yard');
  await expect(page.getByText(/2 matches/)).toBeVisible();
  await scan(page, 'search');
  await search.fill('');

  // The palette jumps to any part by name.
  await page.keyboard.press('Control+k');
  const palette = page.getByRole('dialog', { name: 'Go to' });
  await expect(palette).toBeVisible();
  await palette.getByRole('combobox').fill('forklift-001-mast');
  await expect(palette.getByRole('option').first()).toContainText('forklift-001-mast');
  await scan(page, 'palette');
  await page.keyboard.press('Enter');
  await expect(palette).toHaveCount(0);
  await expect(u.heading).toHaveText('forklift-001-mast');
  await expect(u.item('forklift-001-mast')).toHaveAttribute('aria-selected', 'true');
});

test('share a location with another organization: its tree gains the location, marked shared, with its machines; who has access is listed; stop sharing takes it back', async ({ app }) => {
  const { page } = app;
  const u = ui(page);
  const NORTHFIELD = 'Northfield Agri-Bots';
  await open(page, NORTHFIELD);
  await expect(u.item('Reno Fulfillment Center')).toHaveCount(0);
  await open(page, ACME);
  await u.item('Reno Fulfillment Center').click();
  await expect(u.heading).toHaveText('Reno Fulfillment Center');
  await u.action('Share…').click();
  const dialog = page.getByRole('dialog', { name: 'Share Reno Fulfillment Center' });
  await expect(dialog).toBeVisible();
  await scan(page, 'share dialog');
  await dialog.getByRole('option', { name: NORTHFIELD }).click();
  await dialog.getByRole('button', { name: 'Share', exact: true }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByText(`Shared “Reno Fulfillment Center” with ${NORTHFIELD}.`)).toBeVisible();

  // In Northfield's tree, the location is there, marked shared, with what is inside it.
  const sharedRow = u.tree.getByRole('treeitem', { name: /^Reno Fulfillment Center, shared, 23 machines$/ });
  await expect(sharedRow).toBeVisible();
  await expect(sharedRow).toHaveAttribute('aria-level', '2');

  await u.main.getByRole('button', { name: 'Show who has access' }).click();
  const list = u.main.locator('ul.access');
  await expect(list.getByRole('listitem')).toHaveText([/Acme Warehouse Robotics\s*owner/, new RegExp(`${NORTHFIELD}\\s*Stop sharing`)]);
  await scan(page, 'location with access listed');
  await list.getByRole('button', { name: 'Stop sharing' }).click();
  await page.getByRole('dialog', { name: `Stop sharing with ${NORTHFIELD}?` }).getByRole('button', { name: 'Stop sharing' }).click();
  await expect(page.getByText(`Stopped sharing “Reno Fulfillment Center” with ${NORTHFIELD}.`)).toBeVisible();
  await expect(sharedRow).toHaveCount(0);
  await expect(list.getByRole('listitem')).toHaveCount(1);
});

test("watch a demo part's dot go quiet and live again; offline, everything cached stays browsable and changes are disabled, saying why", async ({ app }) => {
  test.setTimeout(150_000);
  const { page } = app;
  const u = ui(page);
  await open(page, ACME);
  await open(page, 'Columbus DC');
  await open(page, 'Main Hall');
  // A machine that is live now (demo parts check in every few seconds).
  const liveRow = u.tree.getByRole('treeitem').filter({ has: page.getByRole('img', { name: 'Live', exact: true }) }).first();
  await expect(liveRow).toBeVisible();
  const name = (await liveRow.getAttribute('data-name')) ?? '';
  await liveRow.click();
  await expect(u.heading).toHaveText(name);
  const header = u.main.locator('header');
  await expect(header.getByRole('img', { name: 'Live', exact: true })).toBeVisible();
  // Load the metadata now, so it is in the cache for later.
  await expect(u.main.locator('p', { hasText: 'Saving replaces the whole object' })).toContainText(/^\s*Read/);

  // Stop the service: no part checks in any more, and within ten seconds the dot goes quiet.
  await page.getByRole('button', { name: 'Stop local service' }).click();
  await expect(page.getByRole('alert').filter({ hasText: /Offline/ })).toBeVisible();
  await expect(header.getByRole('img', { name: /^Offline, last seen/ })).toBeVisible({ timeout: 20_000 });
  await expect(u.item(name).getByRole('img', { name: /^Offline, last seen/ })).toBeVisible();

  // Offline: the whole cached tree is browsable, panes open from the cache, changes are disabled with the reason.
  await expect(u.action('Rename')).toBeDisabled();
  await expect(u.action('Rename')).toHaveAttribute('title', /changes need it/);
  // The pane opened offline comes from the cache, and says so.
  await u.item('Main Hall').click();
  await u.item(name).click();
  await expect(u.main.locator('p', { hasText: 'Saving replaces the whole object' })).toContainText(/^\s*Cached copy, read/);
  for (const org of ['Harborline Logistics AMR', 'Northfield Agri-Bots', 'Polaris Inspection Drones']) await open(page, org);
  await open(page, 'Singapore Hangar');
  await open(page, 'Bay 1');
  await u.item('drone-001').click();
  await expect(u.heading).toHaveText('drone-001');
  await expect(u.main.getByRole('table')).toContainText('drone-001-main');
  // A part's page offline: its address from the cache.
  await open(page, 'drone-001');
  await u.item('drone-001-main').click();
  await expect(u.heading).toHaveText('drone-001-main');
  await expect(partAddress(page)).toHaveText(/^drone-001-main-[0-9a-f]{8}\.fleet\.internal$/);
  await u.item('Bay 1').click();
  await expect(u.heading).toHaveText('Bay 1');
  await expect(u.action('New machine')).toBeDisabled();
  await scan(page, 'offline');

  // Back online: the part checks in again and its dot goes live.
  await page.getByRole('button', { name: 'Start local service' }).click();
  await expect(page.getByRole('status', { name: 'Connection' })).toContainText('Online', { timeout: 30_000 });
  await u.item(name).click();
  await expect(u.main.locator('header').getByRole('img', { name: 'Live', exact: true })).toBeVisible({ timeout: 30_000 });
});

test("the keyboard's row stays focused and in view: rows opening above it, far jumps, a sync's progress over the tree's foot", async ({ app }) => {
  test.skip(app.launchUrl === null, "holding a sync round on screen needs browser mode's WebSocket");
  test.setTimeout(90_000);
  let page = app.page;
  await page.setViewportSize({ width: 1280, height: 560 });
  // Rows below a row that opens stay the same elements (a focused one keeps its focus), not made again.
  await expect(ui(page).item(ACME)).toHaveAttribute('aria-expanded', 'false');
  const below = await ui(page).item('Polaris Inspection Drones').elementHandle();
  // A tree longer than the sidebar: the organization and each of its locations opened from the keyboard.
  await ui(page).item(ACME).focus();
  await page.keyboard.press('ArrowRight');
  await expect(ui(page).item(ACME)).toHaveAttribute('aria-expanded', 'true');
  await expect(ui(page).item('Columbus DC')).toBeVisible();
  expect(await below!.evaluate((e) => e.isConnected)).toBe(true);
  const focused = page.locator('[role="treeitem"]:focus');
  for (let i = 0; i < 80; i++) {
    const row = await focused.evaluate((e) => ({ kind: e.getAttribute('data-kind'), name: e.getAttribute('data-name'), expanded: e.getAttribute('aria-expanded') }));
    if (row.kind === 'org' && row.name !== ACME) break;
    if (row.expanded === 'false' && row.kind !== 'machine') {
      await page.keyboard.press('ArrowRight');
      await expect(focused).toHaveAttribute('aria-expanded', 'true');
    }
    await page.keyboard.press('ArrowDown');
  }
  // Kept for the next launch (the launch frame is saved a second after the rows' last change).
  await expect.poll(async () => (await servedPage(page)).split('class="boot-row"').length - 1, { timeout: 10_000 }).toBeGreaterThan(30);

  // The launch's sync held on screen: its bar shows over the tree's foot.
  const bridge = await holdBridge(page.context());
  bridge.hold('sync-end');
  page = await app.restart();
  await page.setViewportSize({ width: 1280, height: 560 });
  const bar = page.getByRole('status').filter({ hasText: 'Syncing…' });
  await expect(bar).toBeVisible();
  /** Where the keyboard's row ends, and where the bar begins (null: no bar). */
  const placement = () =>
    page.evaluate(() => {
      const row = document.activeElement as HTMLElement;
      const bar = [...document.querySelectorAll('[role="status"]')].find((e) => e.textContent?.includes('Syncing…'));
      return { name: row.dataset.name ?? row.tagName, bottom: Math.round(row.getBoundingClientRect().bottom), bar: bar ? Math.round(bar.getBoundingClientRect().top) : null };
    });

  // Down the tree row by row, then to its end: the row the keyboard is on is always above the bar.
  await treeItem(page, ACME).focus();
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press('ArrowDown');
    const at = await placement();
    expect(at.bar, at.name).not.toBeNull();
    expect(at.bottom, `${at.name}, the ${i + 1}th row down`).toBeLessThanOrEqual(at.bar!);
  }
  await page.keyboard.press('End');
  await expect(treeItem(page, 'Polaris Inspection Drones')).toBeFocused();
  const end = await placement();
  expect(end.bottom, `${end.name}, the last row`).toBeLessThanOrEqual(end.bar!);

  // The bar gone, a row the keyboard moves to below the view stops at the tree's foot; the next
  // round's bar, coming over it, moves it up above the bar.
  bridge.release();
  await expect(bar).toHaveCount(0);
  // Home from the far end: the first row is drawn frames after the key, and takes the focus then.
  // Measured with no bar on screen: a refresh round that showed its bar meanwhile (one over 500 ms)
  // is let end, and the row put back at the foot.
  let atFoot = await placement();
  for (let attempt = 0; attempt < 3; attempt++) {
    await expect(bar).toHaveCount(0, { timeout: 30_000 });
    await page.keyboard.press('Home');
    await expect(treeItem(page, ACME)).toBeFocused();
    for (let i = 0; i < 20; i++) await page.keyboard.press('ArrowDown');
    atFoot = await placement();
    if (atFoot.bar === null) break;
  }
  expect(atFoot.bar, 'no sync bar while the row is put at the foot').toBeNull();
  expect(atFoot.name).toMatch(/^(?!BODY$)/);
  // The refresh round comes 15 s after the last one; its end is held so its bar stays.
  bridge.hold('sync-end');
  await expect(bar).toBeVisible({ timeout: 30_000 });
  const barTop = (await placement()).bar!;
  expect(atFoot.bottom, 'the row was where the bar came').toBeGreaterThan(barTop);
  await expect.poll(async () => (await placement()).bottom).toBeLessThanOrEqual(barTop);
  expect((await placement()).name).toBe(atFoot.name);
  await scan(page, 'the tree with the sync bar over its foot');
  bridge.release();
  await expect(bar).toHaveCount(0);
});
