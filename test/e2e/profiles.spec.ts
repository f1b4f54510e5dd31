/**
 * Profiles as a user meets them: add a remote service (a wrong key is refused and nothing is saved,
 * the right one connects and shows that service's fleet), switch back to the local demo; and with no
 * keychain on the machine, the app says the key is kept for this session only.
 */
import type { Page } from '@playwright/test';
import { startService, type RunningService } from '../../service/server';
import { DEMO_ORGANIZATIONS } from '../../service/demo';
import { expect, test } from './fixtures';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let remote: RunningService;
let remoteDir: string;

test.beforeAll(async () => {
  remoteDir = mkdtempSync(join(tmpdir(), 'fleet-desk-e2e-remote-'));
  remote = await startService({ listen: '127.0.0.1:0', dataDir: remoteDir, log: () => undefined });
});
test.afterAll(async () => {
  await remote.close();
  rmSync(remoteDir, { recursive: true, force: true });
});

const orgItem = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Organizations' }).getByRole('treeitem', { name, exact: true });

async function openAddProfile(page: Page) {
  await page.getByRole('combobox', { name: 'Profile' }).selectOption({ label: 'Add profile…' });
  const dialog = page.getByRole('dialog', { name: 'Add profile' });
  await expect(dialog).toBeVisible();
  return dialog;
}

test('add a remote profile, see its fleet, and switch back to the local demo', async ({ app }) => {
  const { page } = app;
  await expect(orgItem(page, DEMO_ORGANIZATIONS[0]!.name)).toBeVisible();

  let dialog = await openAddProfile(page);
  await dialog.getByLabel('Name').fill('Staging');
  await dialog.getByLabel('Address').fill(remote.address);
  await dialog.getByLabel('Use TLS').uncheck();
  await dialog.getByLabel('API key ID').fill(remote.bootstrap.apiKeyId);
  await dialog.getByLabel('API key', { exact: true }).fill('not-the-key');
  await dialog.getByRole('button', { name: 'Add profile' }).click();
  await expect(dialog.getByRole('alert')).toContainText('rejected the API key');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByRole('combobox', { name: 'Profile' }).getByRole('option', { name: 'Staging' })).toHaveCount(0);

  dialog = await openAddProfile(page);
  await dialog.getByLabel('Name').fill('Staging');
  await dialog.getByLabel('Address').fill(remote.address);
  await dialog.getByLabel('Use TLS').uncheck();
  await dialog.getByLabel('API key ID').fill(remote.bootstrap.apiKeyId);
  await dialog.getByLabel('API key', { exact: true }).fill(remote.bootstrap.apiKey);
  await dialog.getByRole('button', { name: 'Add profile' }).click();
  await expect(dialog).toHaveCount(0);

  await expect(page.getByRole('combobox', { name: 'Profile' })).toHaveValue(/.+/);
  await expect(orgItem(page, 'Local Fleet')).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Organizations' }).getByRole('treeitem')).toHaveCount(1);
  await expect(page.getByRole('contentinfo')).toContainText(remote.address);
  await expect(page.getByRole('status', { name: 'Connection' })).toContainText('Online');

  await page.getByRole('combobox', { name: 'Profile' }).selectOption({ label: 'Local demo' });
  for (const org of DEMO_ORGANIZATIONS) await expect(orgItem(page, org.name)).toBeVisible();
  await expect(orgItem(page, 'Local Fleet')).toHaveCount(0);
});

test.describe('without a keychain', () => {
  // No reachable session bus: what a headless machine without a Secret Service looks like.
  test.use({ appEnv: { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/fleet-desk-e2e-bus' } });

  test('the app works and says the key is kept for this session only', async ({ app }) => {
    const { page } = app;
    await expect(orgItem(page, DEMO_ORGANIZATIONS[0]!.name)).toBeVisible();
    await expect(page.getByRole('status').filter({ hasText: 'No keychain answered' })).toContainText('kept for this session only');
  });
});
