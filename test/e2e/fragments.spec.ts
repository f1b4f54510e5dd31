/**
 * A fragment's life as an operator meets it: found in the organization's fragment browser, created
 * with a config, tagged "stable"; used by two machines (one tracking its latest revision, one
 * pinned to the tag); edited, with the blast radius (how many machines, one's effective config
 * before and after) weighed before the save, after which only the tracking machine's effective
 * config brings the new revision; the tag moved, weighed too, and the pinned machine follows it; a
 * delete refused while machines use it, listing them.
 */
import type { Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FleetClient } from '../../main/grpc/client';
import { expect, scan, test, treeItem } from './fixtures';

const ACME = 'Acme Warehouse Robotics';
const NAME = 'e2e-probe-kit';
const V1 = '{\n  "components": [\n    { "name": "e2e-probe", "api": "rdk:component:sensor", "attributes": { "rate_hz": 5 } }\n  ]\n}';
const V2 = V1.replace('"rate_hz": 5', '"rate_hz": 10');

const route = (page: Page) => page.evaluate(() => window.location.hash.slice(1));

/** The revision of the fragment a part's effective config brings in, as its effective view's sources say (opened through Go to…). */
async function effectiveRevision(page: Page, partName: string): Promise<string> {
  const main = page.getByRole('main');
  await page.keyboard.press('ControlOrMeta+KeyK');
  await page.getByRole('combobox', { name: /Go to/ }).fill(partName);
  await page.keyboard.press('Enter');
  await expect(main.getByRole('heading', { level: 1 })).toHaveText(partName);
  await page.getByTestId('part-config').click();
  await main.getByRole('button', { name: 'Effective' }).click();
  const source = main.getByRole('complementary', { name: 'Where the config comes from' }).getByText(new RegExp(`^${NAME} r\\d+$`));
  await expect(source).toBeVisible();
  return /r(\d+)$/.exec((await source.textContent()) ?? '')?.[1] ?? '';
}

/** Back to the fragment's page, through the organization's fragment browser. */
async function openFragment(page: Page): Promise<void> {
  const main = page.getByRole('main');
  await page.keyboard.press('ControlOrMeta+KeyK');
  await page.getByRole('combobox', { name: /Go to/ }).fill(`Fragments of ${ACME}`);
  await page.keyboard.press('Enter');
  await main.getByRole('button', { name: NAME, exact: true }).click();
  await expect(main.getByRole('heading', { level: 1 })).toHaveText(NAME);
}

/** A second client, on the same local service, with the bootstrap key. */
async function secondClient(page: Page, userDataDir: string): Promise<FleetClient> {
  const credentials = JSON.parse(readFileSync(join(userDataDir, 'local-service', 'bootstrap-credentials.json'), 'utf8')) as { api_key_id: string; api_key: string };
  const address = /Running at (\S+)/.exec((await page.getByText(/Running at /).textContent()) ?? '')?.[1];
  if (!address) throw new Error('no local service address on the status bar');
  return new FleetClient({ address, tls: false, apiKeyId: credentials.api_key_id, apiKey: credentials.api_key });
}

interface Target {
  readonly machineName: string;
  readonly locationName: string;
  /** The main part's name: its config names the fragment. */
  readonly partName: string;
}

/** Two machines of one location of the organization get the fragment in their main part's config: the first tracking its latest revision, the second pinned to "stable". */
async function useOnTwoMachines(client: FleetClient, orgId: string, fragmentId: string): Promise<[Target, Target]> {
  const { locations } = await client.call('list locations', client.app.listLocations, { orgId, pageSize: 0, pageToken: '' });
  for (const location of locations) {
    const { robots } = await client.call('list machines', client.app.listRobots, { locationId: location.id, pageSize: 0, pageToken: '' });
    if (robots.length < 2) continue;
    const targets: Target[] = [];
    for (const [i, robot] of robots.slice(0, 2).entries()) {
      const { parts } = await client.call('get parts', client.app.getRobotParts, { robotId: robot.id });
      const main = parts.find((p) => p.mainPart) ?? parts[0];
      if (!main) throw new Error(`${robot.name} has no part`);
      const { configJson } = await client.call('get part', client.app.getRobotPart, { robotPartId: main.id });
      const config = JSON.parse(configJson || '{}') as { fragments?: unknown[] };
      const ref = i === 0 ? fragmentId : { id: fragmentId, version: 'stable' };
      await client.call('update part', client.app.updateRobotPart, { robotPartId: main.id, name: main.name, robotConfigJson: JSON.stringify({ ...config, fragments: [...(config.fragments ?? []), ref] }, null, 2) });
      targets.push({ machineName: robot.name, locationName: location.name, partName: main.name });
    }
    return [targets[0]!, targets[1]!];
  }
  throw new Error('no location with two machines');
}

test('browse, create and tag a fragment; weigh an edit and a tag move by their blast radius; a delete refused while machines use it', async ({ app }) => {
  const { page } = app;
  const main = page.getByRole('main');
  await treeItem(page, ACME).click();
  await page.getByTestId('org-fragments').click();
  await expect(main.getByRole('heading', { level: 1 })).toHaveText(`Fragments of ${ACME}`);
  await expect(main.getByTestId('fragment-row').first()).toBeVisible();
  expect(await route(page)).toMatch(/^\/orgs\/[^/]+\/fragments$/);
  await scan(page, 'fragment browser');

  await main.getByRole('button', { name: 'New fragment' }).click();
  const dialog = page.getByRole('dialog', { name: 'New fragment' });
  await dialog.getByLabel('Name').fill(NAME);
  await dialog.getByLabel('Starting config (optional)').fill(V1);
  await dialog.getByRole('button', { name: 'Create fragment' }).click();
  await expect(main.getByRole('heading', { level: 1 })).toHaveText(NAME);
  const [, orgId, fragmentId] = /^\/orgs\/([^/]+)\/fragments\/([^/?]+)$/.exec(await route(page)) ?? [];
  if (!orgId || !fragmentId) throw new Error(`not a fragment page: ${await route(page)}`);

  // "stable" on revision 1 (the latest, the form's default).
  const tagForm = main.getByRole('form', { name: 'Set or move a tag' });
  await tagForm.getByLabel('Tag').fill('stable');
  await tagForm.getByRole('button', { name: 'Set tag' }).click();
  await expect(main.locator('[data-testid="fragment-revision"][data-revision="1"]')).toContainText('stable');
  await scan(page, 'fragment page');

  const client = await secondClient(page, app.userDataDir);
  let tracking: Target;
  let pinned: Target;
  try {
    [tracking, pinned] = await useOnTwoMachines(client, orgId, fragmentId);
  } finally {
    client.close();
  }

  // The edit reaches both machines; the tracking one's effective config changes.
  const editor = main.getByRole('textbox', { name: new RegExp(`^Config of fragment ${NAME}, JSON$`) });
  await editor.click();
  await page.keyboard.press('ControlOrMeta+KeyA');
  await page.keyboard.insertText(V2);
  await main.getByRole('button', { name: 'Save fragment' }).click();
  const blast = main.getByTestId('blast-radius');
  await expect(blast.getByTestId('blast-count')).toContainText('2 machines');
  await blast.getByRole('combobox').selectOption({ label: `${tracking.machineName} (${tracking.locationName})` });
  await expect(blast.getByText(/after the change/).first()).toBeVisible();
  await expect(blast).toContainText('"rate_hz": 10');
  await scan(page, 'blast radius panel');
  await blast.getByRole('button', { name: 'Save revision 2' }).click();
  await expect(page.getByText(`Saved “${NAME}” as revision 2.`)).toBeVisible();
  await expect(blast).toHaveCount(0);

  // Only the machine tracking the latest revision runs revision 2; the pinned one stays on "stable" (1).
  expect(await effectiveRevision(page, tracking.partName)).toBe('2');
  expect(await effectiveRevision(page, pinned.partName)).toBe('1');
  await openFragment(page);

  // Moving "stable" to revision 2 reaches the pinned machine: weighed, then moved.
  await tagForm.getByLabel('Tag').fill('stable');
  await tagForm.getByRole('button', { name: 'Move tag from 1' }).click();
  await expect(blast.getByTestId('blast-count')).toContainText('2 machines');
  await blast.getByRole('button', { name: 'Move “stable”' }).click();
  await expect(main.locator('[data-testid="fragment-revision"][data-revision="2"]')).toContainText('stable');
  expect(await effectiveRevision(page, pinned.partName)).toBe('2');
  await openFragment(page);

  // Used: the delete is refused, with the machines that use it listed.
  await main.getByRole('button', { name: 'Delete…' }).click();
  const refused = page.getByRole('dialog', { name: `“${NAME}” cannot be deleted` });
  await expect(refused).toContainText('still used by 2 parts');
  await expect(refused.getByRole('button', { name: tracking.machineName })).toBeVisible();
  await refused.getByRole('button', { name: 'Close' }).click();
  await expect(main.getByRole('heading', { level: 1 })).toHaveText(NAME);
});
