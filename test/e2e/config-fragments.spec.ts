/**
 * A machine's fragments as an operator meets them on the demo fleet: a mezzanine AMR (its base
 * fragment nesting the lidar fragment, slowed down by a fragment_mods entry) shows its fragments as
 * a nested tree and its effective config with each block's source and the overridden value marked;
 * a second lidar is added pinned to a tag with a prefix and shows in the tree; two parts' configs
 * are compared side by side. An axe scan of each view.
 */
import type { Page } from '@playwright/test';
import { expect, scan, test, treeItem } from './fixtures';

const ACME = 'Acme Warehouse Robotics';
const BASE = 'Nimbus AMR-500 base';
const LIDAR = 'RPLIDAR S2 + SLAM';

async function expand(page: Page, name: string): Promise<void> {
  const row = treeItem(page, name);
  await row.click();
  if ((await row.getAttribute('aria-expanded')) === 'false') await page.keyboard.press('ArrowRight');
  await expect(row).toHaveAttribute('aria-expanded', 'true');
}

const route = (page: Page) => page.evaluate(() => decodeURIComponent(location.hash.slice(1)));

/** Screenshots for people to look at (not checks): only when SHOTS names a directory. */
async function shot(page: Page, name: string): Promise<void> {
  const dir = process.env['SHOTS'];
  if (!dir) return;
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    // Colors change with a transition: the picture is taken once it is over.
    await page.waitForTimeout(400);
    await page.screenshot({ path: `${dir}/${name}-${scheme}.png` });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

test('a machine’s fragments as a tree, its effective config with sources and mods, a fragment added at a tag with a prefix, two parts compared', async ({ app }) => {
  const { page } = app;
  await expect(treeItem(page, ACME)).toBeVisible();
  for (const name of [ACME, 'Reno Fulfillment Center', 'Building B', 'Mezzanine']) await expand(page, name);
  const machines = page.getByRole('tree', { name: 'Fleet' }).getByRole('treeitem', { name: /^amr-\d+(,|$)/ });
  const machine = (await machines.first().getAttribute('data-name')) ?? '';
  const other = (await machines.nth(1).getAttribute('data-name')) ?? '';
  await treeItem(page, machine).click();
  await page.getByTestId('machine-fragments').click();
  const main = page.getByRole('main');
  await expect(main.getByRole('heading', { level: 1 })).toHaveText(machine);
  expect(await route(page)).toMatch(/^\/orgs\/[^/]+\/machines\/[^/]+\/fragments$/);

  // The tree: the base fragment, the lidar nested in it, each with its version.
  const fragments = main.getByRole('tree', { name: 'Fragments of the machine' });
  const base = fragments.getByRole('treeitem', { name: new RegExp(`^${BASE}`) });
  const nested = fragments.getByRole('treeitem', { name: new RegExp(`^${LIDAR.replace(/[+]/g, '\\+')}`) });
  await expect(base).toHaveAttribute('aria-level', '1');
  await expect(nested).toHaveAttribute('aria-level', '2');
  await expect(nested).toContainText('nested');
  // The keyboard walks it: down to the nested one, left back up to its parent.
  await base.focus();
  await page.keyboard.press('ArrowDown');
  await expect(nested).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(main.getByRole('region', { name: `Fragment ${LIDAR}` })).toBeVisible();
  await page.keyboard.press('ArrowLeft');
  await expect(base).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(main.getByRole('region', { name: `Fragment ${BASE}` })).toContainText(/Mods here\s*1/);
  await scan(page, 'machine fragments tree');
  await shot(page, 'machine-fragments');

  // The effective config: blocks marked by source, the mezzanine's slower speed marked as a mod.
  await main.getByRole('button', { name: 'See the effective config' }).click();
  expect(await route(page)).toMatch(/\/parts\/[^/]+\/config\/effective$/);
  const legend = main.getByRole('complementary', { name: 'Where the config comes from' });
  await expect(legend.getByText(new RegExp(`^${BASE} r\\d+$`))).toBeVisible();
  await expect(legend.getByText(`through ${BASE} › ${LIDAR}`)).toBeVisible();
  await expect(legend.getByRole('button', { name: 'components: base' })).toBeVisible();
  await expect(legend.getByRole('button', { name: 'components.base.attributes.max_speed_mps' })).toBeVisible();
  await expect(main.locator('.cm-mod').first()).toHaveAttribute('title', /Set by fragment_mods\[0\]\.mods\[0\] on Nimbus AMR-500 base \(was /);
  await expect(main.locator('.cm-source-bar').first()).toBeVisible();
  await legend.getByRole('button', { name: 'components: base' }).click();
  await expect(main.getByRole('textbox', { name: /^Effective config of part/ })).toBeFocused();
  await scan(page, 'effective config');
  await shot(page, 'effective');

  // The switch to the own config, and Back to the effective one.
  await main.getByRole('button', { name: 'Own config' }).click();
  const editor = main.getByRole('textbox', { name: /^Config of part/ });
  await expect(editor).toBeVisible();
  await page.goBack();
  await expect(legend).toBeVisible();

  // An unsaved edit, resolved as it would run: switching keeps it and asks nothing (a prompt would be dismissed, and the switch not made).
  await main.getByRole('button', { name: 'Own config' }).click();
  await editor.click();
  await page.keyboard.press('ControlOrMeta+Home');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.insertText('"note": "unsaved",');
  await main.getByRole('button', { name: 'Effective' }).click();
  await expect(main.getByText('Your unsaved edit', { exact: true })).toBeVisible();
  await expect(main.getByRole('textbox', { name: /^Effective config of part/ })).toContainText('"note": "unsaved"');
  await main.getByRole('button', { name: 'The stored config' }).click();
  await expect(main.getByRole('textbox', { name: /^Effective config of part/ })).not.toContainText('"note"');
  await main.getByRole('button', { name: 'Own config' }).click();
  await main.getByRole('button', { name: 'Revert' }).click();
  await treeItem(page, machine).click();
  await page.getByTestId('machine-fragments').click();
  await expect(fragments).toBeVisible();

  // The base fragment's mod, changed: a value that is not JSON is refused with why, then a number saved.
  await base.click();
  await main.getByRole('button', { name: 'Mods…' }).click();
  const mods = page.getByRole('dialog', { name: `Mods of ${BASE}` });
  await expect(mods.getByRole('textbox', { name: 'Mod 1: path' })).toHaveValue('components.base.attributes.max_speed_mps');
  await mods.getByRole('textbox', { name: 'Mod 1: value (JSON)' }).fill('slow');
  await mods.getByRole('button', { name: 'Save mods' }).click();
  await expect(mods.getByText(/is not JSON/)).toBeVisible();
  await scan(page, 'mods dialog');
  await shot(page, 'mods');
  await mods.getByRole('textbox', { name: 'Mod 1: value (JSON)' }).fill('0.7');
  await mods.getByRole('button', { name: 'Save mods' }).click();
  await expect(page.getByText(`Saved the mods of “${BASE}”.`)).toBeVisible();

  // Each fragment links to its own page (the fragments feature's), and Back returns to the tree.
  await main.getByRole('button', { name: 'Open the fragment' }).click();
  await expect(main.getByRole('heading', { level: 1 })).toHaveText(BASE);
  await page.goBack();
  await expect(fragments).toBeVisible();

  // A second lidar, at the stable tag, its blocks prefixed: saved to the config, shown in the tree.
  await main.getByRole('button', { name: 'Add fragment' }).click();
  const add = page.getByRole('dialog', { name: `Add a fragment to ${machine}` });
  await add.getByLabel('Fragment').selectOption({ label: `${LIDAR} (this organization · public)` });
  await add.getByLabel('Version').selectOption('stable');
  await add.getByLabel('Prefix (optional)').fill('rear-');
  await scan(page, 'add fragment dialog');
  await shot(page, 'add-fragment');
  await add.getByRole('button', { name: 'Add fragment' }).click();
  await expect(page.getByText(`Added “${LIDAR}” to the machine.`)).toBeVisible();
  const added = fragments.getByRole('treeitem', { name: new RegExp(`^${LIDAR.replace(/[+]/g, '\\+')}`) }).and(fragments.locator('[aria-level="1"]'));
  await expect(added).toContainText('tag stable');
  await expect(added).toContainText('prefix rear-');

  // Compare the machine's main part with another mezzanine AMR's, own then effective.
  await treeItem(page, machine).click();
  await page.keyboard.press('ArrowRight');
  await treeItem(page, `${machine}-main`).click();
  await page.getByTestId('part-compare').click();
  const pick = page.getByRole('dialog', { name: /^Compare / });
  await pick.getByRole('textbox').fill(`${other} / ${other}-main`);
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect(main.getByRole('heading', { level: 1 })).toHaveText('Compare part configs');
  await expect(main.getByRole('textbox', { name: `Own config of ${machine}-main` })).toContainText('rear-');
  await expect(main.getByRole('textbox', { name: `Own config of ${other}-main` })).toBeVisible();
  await main.getByRole('button', { name: 'Effective' }).click();
  await expect(main.getByRole('textbox', { name: `Effective config of ${machine}-main` })).toContainText('rear-lidar');
  await main.getByRole('button', { name: 'Swap sides' }).click();
  await expect(main.getByTestId('compare-left')).toContainText(other);
  await scan(page, 'compare part configs');
  await shot(page, 'compare');

  // From the palette: a comparison that asks for its parts.
  await page.keyboard.press('Control+k');
  const palette = page.getByRole('dialog', { name: 'Go to' });
  await palette.getByRole('combobox').fill('Compare part configs');
  await expect(palette.getByRole('option').first()).toContainText('Compare part configs…');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('dialog', { name: 'Compare which part?' })).toBeVisible();
  await scan(page, 'compare part picker');
});
