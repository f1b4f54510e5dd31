/**
 * A part's config as two people meet it: edited and saved; changed again by a second client behind
 * the first's back and merged — a change that does not overlap by itself, one that does by hand —
 * then saved; an older version restored from the history; unsaved changes kept from a careless Back.
 */
import type { Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FleetClient } from '../../main/grpc/client';
import { expect, scan, test, treeItem } from './fixtures';

const ACME = 'Acme Warehouse Robotics';
const MACHINE = 'picker-arm-003';
const PART = 'picker-arm-003-main';

async function expand(page: Page, name: string): Promise<void> {
  const row = treeItem(page, name);
  await row.click();
  if ((await row.getAttribute('aria-expanded')) === 'false') await page.keyboard.press('ArrowRight');
  await expect(row).toHaveAttribute('aria-expanded', 'true');
}

/** A second client, on the same local service, with the bootstrap key. */
async function secondClient(page: Page, userDataDir: string): Promise<FleetClient> {
  const credentials = JSON.parse(readFileSync(join(userDataDir, 'local-service', 'bootstrap-credentials.json'), 'utf8')) as { api_key_id: string; api_key: string };
  const address = /Running at (\S+)/.exec((await page.getByText(/Running at /).textContent()) ?? '')?.[1];
  if (!address) throw new Error('no local service address on the status bar');
  return new FleetClient({ address, tls: false, apiKeyId: credentials.api_key_id, apiKey: credentials.api_key });
}

/** The editor's whole text, replaced as a person would (select all, type). */
async function typeConfig(page: Page, text: string): Promise<void> {
  const editor = page.getByRole('textbox', { name: new RegExp(`^Config of part ${PART}`) });
  await editor.click();
  await page.keyboard.press('ControlOrMeta+KeyA');
  await page.keyboard.insertText(text);
}

test('edit and save; merge a change made behind my back, by itself and by hand; restore from history; unsaved changes survive a careless Back', async ({ app }) => {
  const { page } = app;
  await expect(treeItem(page, ACME)).toBeVisible();
  for (const name of [ACME, 'Reno Fulfillment Center', 'Building A', 'Floor 1', MACHINE]) await expand(page, name);
  await treeItem(page, PART).click();
  await page.getByTestId('part-config').click();
  const main = page.getByRole('main');
  await expect(main.getByRole('heading', { level: 1 })).toHaveText(PART);
  const editor = main.getByRole('textbox', { name: new RegExp(`^Config of part ${PART}`) });
  await expect(editor).toBeVisible();
  expect(await route(page)).toMatch(/^\/orgs\/[^/]+\/parts\/[^/]+\/config$/);
  await scan(page, 'part config editor');

  const v1 = '{\n  "components": [\n    { "name": "arm", "api": "rdk:component:arm", "attributes": { "speed": 1 } },\n    { "name": "cam", "api": "rdk:component:camera" },\n    { "name": "gripper", "api": "rdk:component:gripper" }\n  ],\n  "services": []\n}';
  await typeConfig(page, v1);
  await main.getByRole('button', { name: 'Save config' }).click();
  await expect(page.getByText(`Saved the config of “${PART}”.`)).toBeVisible();

  const client = await secondClient(page, app.userDataDir);
  try {
    const partId = /parts\/([^/]+)\/config/.exec(await route(page))![1]!;
    const theirs = async (configJson: string) => {
      const { part } = await client.call('get part', client.app.getRobotPart, { robotPartId: partId });
      await client.call('update part', client.app.updateRobotPart, { robotPartId: partId, name: part?.name ?? PART, robotConfigJson: configJson });
    };

    // Not overlapping: they add a service, I change the gripper; merged by itself, then saved.
    await theirs(v1.replace('"services": []', '"services": [{ "name": "nav", "api": "rdk:service:navigation" }]'));
    await typeConfig(page, v1.replace('"rdk:component:gripper" }', '"rdk:component:gripper", "attributes": { "grip": 2 } }'));
    await main.getByRole('button', { name: 'Save config' }).click();
    await expect(main.getByText(/did not overlap and are merged/)).toBeVisible();
    await expect(editor).toContainText('"nav"');
    await expect(editor).toContainText('"grip"');
    await main.getByRole('button', { name: 'Save config' }).click();
    // The toast of the first save lives 5 s and may still show: wait for this save's own effect (the
    // edit no longer unsaved) before the service is read as saved.
    await expect(main.getByText('Unsaved changes', { exact: true })).toHaveCount(0);
    await expect(page.getByText(`Saved the config of “${PART}”.`).last()).toBeVisible();

    // Overlapping: we both change the arm's speed; I keep mine by hand, and save it over theirs.
    const { configJson: now } = await client.call('get part', client.app.getRobotPart, { robotPartId: partId });
    await theirs(now.replace('"speed": 1', '"speed": 3'));
    await typeConfig(page, now.replace('"speed": 1', '"speed": 2'));
    await main.getByRole('button', { name: 'Save config' }).click();
    const merge = main.getByRole('region', { name: "Merge with the service's version" });
    await expect(merge).toBeVisible();
    await scan(page, 'three-way merge of a conflict');
    await merge.getByRole('button', { name: 'Take mine', exact: true }).click();
    await merge.getByRole('button', { name: 'Use the merged config' }).click();
    await expect(editor).toContainText('"speed": 2');
    await expect(main.getByText('Merged with the version on the service: review, then save.')).toBeVisible();
    await main.getByRole('button', { name: 'Save config' }).click();
    await expect(main.getByText('Unsaved changes', { exact: true })).toHaveCount(0); // this save's, not an earlier toast
    await expect(page.getByText(`Saved the config of “${PART}”.`).last()).toBeVisible();
  } finally {
    client.close();
  }

  // History: the changes are listed, newest first; the oldest restored through the editor.
  const history = main.getByRole('region', { name: 'History' });
  await expect(history.locator('button.entry').first()).toBeVisible();
  await history.locator('button.entry').last().click();
  await scan(page, 'a history entry with its diff');
  await main.getByRole('button', { name: 'Restore this version' }).click();
  await expect(main.getByText(/review, then save to restore it/)).toBeVisible();

  // Unsaved changes: Back asks first; dismissing keeps the page and the edit.
  page.once('dialog', (dialog) => void dialog.dismiss());
  await page.getByRole('group', { name: 'History' }).getByRole('button', { name: 'Back' }).click();
  await expect(main.getByRole('heading', { level: 1 })).toHaveText(PART);
  await expect(main.getByText('Unsaved changes', { exact: true })).toBeVisible();
  await main.getByRole('button', { name: 'Save config' }).click();
  await expect(main.getByText('Unsaved changes', { exact: true })).toHaveCount(0); // this save's, not an earlier toast
  await expect(page.getByText(`Saved the config of “${PART}”.`).last()).toBeVisible();
});

const route = (page: Page) => page.evaluate(() => window.location.hash.slice(1));

test('offline, an edit is kept as a draft; after a restart it is offered, and saved against what changed meanwhile', async ({ app }) => {
  let page = app.page;
  await expect(treeItem(page, ACME)).toBeVisible();
  for (const name of [ACME, 'Reno Fulfillment Center', 'Building A', 'Floor 1', MACHINE]) await expand(page, name);
  await treeItem(page, PART).click();
  await page.getByTestId('part-config').click();
  let main = page.getByRole('main');
  const editor = () => main.getByRole('textbox', { name: new RegExp(`^Config of part ${PART}`) });
  await expect(editor()).toBeVisible();
  const partId = /parts\/([^/]+)\/config/.exec(await route(page))![1]!;
  const v1 = '{\n  "components": [\n    { "name": "arm", "api": "rdk:component:arm" },\n    { "name": "cam", "api": "rdk:component:camera" }\n  ],\n  "services": []\n}';
  await typeConfig(page, v1);
  await main.getByRole('button', { name: 'Save config' }).click();
  await expect(page.getByText(`Saved the config of “${PART}”.`)).toBeVisible();

  // The service goes away; the edit cannot be saved, and is kept on this computer instead.
  await page.getByRole('button', { name: 'Stop local service' }).click();
  await expect(page.getByRole('alert').filter({ hasText: /^\s*Offline/ })).toBeVisible();
  const mine = v1.replace('"name": "cam"', '"name": "offline-cam"');
  await typeConfig(page, mine);
  await expect(main.getByText(/cannot be saved now\. It is kept as a draft/)).toBeVisible();
  await expect(main.getByText(/^Draft kept/)).toBeVisible();
  await expect(main.getByRole('button', { name: 'Save config' })).toBeDisabled();
  await scan(page, 'a config edited offline, kept as a draft');

  // A restart: the draft outlives the app, and is offered once the service answers.
  page = await app.restart();
  main = page.getByRole('main');
  const drafts = page.getByTestId('config-drafts');
  await expect(drafts).toBeVisible({ timeout: 20_000 });
  await expect(page.getByText(/A config edit kept while the service could not be reached waits to be saved/)).toBeVisible();
  await drafts.click();
  await expect(main.getByRole('heading', { level: 1 })).toHaveText('Config drafts');
  await scan(page, 'the drafts waiting to be saved');

  const client = await secondClient(page, app.userDataDir);
  try {
    // Meanwhile someone saved a change the draft does not touch: the draft's save merges it.
    await client.call('update part', client.app.updateRobotPart, { robotPartId: partId, name: PART, robotConfigJson: v1.replace('"services": []', '"services": [{ "name": "nav", "api": "rdk:service:navigation" }]') });
    await main.getByRole('listitem').filter({ hasText: PART }).getByRole('button', { name: 'Open' }).click();
    await expect(main.getByRole('heading', { level: 1 })).toHaveText(PART);
    await expect(main.getByText(/kept as a draft because it could not be saved then, is in the editor/)).toBeVisible();
    await expect(editor()).toContainText('"offline-cam"');
    await main.getByRole('button', { name: 'Save config' }).click();
    await expect(main.getByText(/did not overlap and are merged/)).toBeVisible();
    await main.getByRole('button', { name: 'Save config' }).click();
    await expect(page.getByText(`Saved the config of “${PART}”.`).last()).toBeVisible();
    const { configJson } = await client.call('get part', client.app.getRobotPart, { robotPartId: partId });
    expect(configJson).toContain('"offline-cam"');
    expect(configJson).toContain('"nav"');
    await expect(drafts).toHaveCount(0);
  } finally {
    client.close();
  }
});
