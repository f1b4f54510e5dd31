/**
 * The registry as an operator uses it, on the demo fleet of a first launch: create a module, set its
 * entrypoint and description, drop two real .tar.gz files for two platforms on its page, watch them
 * upload and see both files listed with their sizes and SHA-256; cancel a large upload in flight and
 * retry it to done; kill the local service mid-upload and see it wait, then resume to the same hash;
 * browse and filter the registry and read a demo item's documentation. Pages are scanned with axe-core.
 */
import type { Page } from '@playwright/test';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { create as createTar } from 'tar';
import { expect, scan, test, treeItem } from './fixtures';

const ACME = 'Acme Warehouse Robotics';

interface Archive {
  readonly name: string;
  readonly path: string;
  readonly size: number;
  readonly sha256: string;
}

let work: string;
test.beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'fleet-desk-registry-e2e-'));
});
test.afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

/** A real module archive: meta.json proposing version and platform, an entrypoint, `payloadBytes` of incompressible data. */
async function archive(name: string, meta: { version: string; platform: string }, payloadBytes = 2048): Promise<Archive> {
  const src = join(work, `src-${name}`);
  mkdirSync(src, { recursive: true });
  writeFileSync(join(src, 'meta.json'), JSON.stringify({ module_id: 'acme:e2e', version: meta.version, platform: meta.platform, entrypoint: 'run.sh' }));
  writeFileSync(join(src, 'run.sh'), '#!/bin/sh\nexec ./payload.bin\n');
  writeFileSync(join(src, 'payload.bin'), randomBytes(payloadBytes));
  const path = join(work, name);
  await createTar({ gzip: true, file: path, cwd: src }, ['meta.json', 'run.sh', 'payload.bin']);
  const bytes = readFileSync(path);
  return { name, path, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/**
 * The local service's pid (browser mode forks `out/main/service.js --data-dir <userData>/local-service`).
 * Killed with SIGKILL, it gets no chance to finish the upload: a graceful stop lets calls in flight
 * end first (up to 5 s), which a fast loopback upload does.
 */
function servicePid(userDataDir: string): number {
  const dataDir = join(userDataDir, 'local-service');
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(join('/proc', entry, 'cmdline'), 'utf8').split('\0');
      if (args.some((a) => a.endsWith('service.js')) && args.includes(dataDir)) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  throw new Error(`no service process with --data-dir ${dataDir}`);
}

function ui(page: Page) {
  const main = page.getByRole('main');
  return {
    main,
    heading: main.getByRole('heading', { level: 1 }),
    action: (name: string) => main.getByRole('toolbar').getByRole('button', { name, exact: true }),
    upload: (fileName: string) => main.getByRole('list', { name: 'Uploads' }).getByRole('listitem', { name: new RegExp(`^${fileName.replace(/\./g, '\\.')},`) }),
    fileRow: (version: string, platform: string) => main.locator(`tr[data-version="${version}"][data-platform="${platform}"]`),
  };
}

/** Open the registry from the sidebar and create a module in Acme, then set its entrypoint and description. */
async function newModule(page: Page, name: string): Promise<void> {
  const u = ui(page);
  await expect(treeItem(page, ACME)).toBeVisible();
  await page.getByRole('button', { name: 'Registry', exact: true }).click();
  await expect(u.heading).toHaveText('Registry');
  await u.action('New module…').click();
  const dialog = page.getByRole('dialog', { name: 'New module' });
  await dialog.getByLabel('Organization').selectOption({ label: ACME });
  await dialog.getByLabel('Name').fill(name);
  await dialog.getByRole('button', { name: 'Create module' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(u.heading).toHaveText(name);
  await expect(u.main.getByText(/Set the module's entrypoint/)).toBeVisible();

  await u.action('Edit manifest').click();
  await u.main.getByLabel('Entrypoint').fill('run.sh');
  await u.main.getByLabel('Description').fill('Drives stepper motors over CAN.');
  await u.main.getByRole('button', { name: 'Save manifest' }).click();
  const manifest = u.main.locator('dl.pane-props');
  await expect(manifest).toContainText('run.sh');
  await expect(manifest).toContainText('Drives stepper motors over CAN.');
  await expect(u.main.getByText(/Set the module's entrypoint/)).toHaveCount(0);
}

/** Drop files on the page as a file manager would: a DataTransfer holding File objects, dropped on the main area. */
async function drop(page: Page, files: readonly Archive[]): Promise<void> {
  const payload = files.map((f) => ({ name: f.name, bytes: [...readFileSync(f.path)] }));
  const transfer = await page.evaluateHandle((list) => {
    const dt = new DataTransfer();
    for (const f of list) dt.items.add(new File([new Uint8Array(f.bytes)], f.name, { type: 'application/gzip' }));
    return dt;
  }, payload);
  await page.dispatchEvent('main', 'dragenter', { dataTransfer: transfer });
  await expect(page.getByText(/^Drop to upload to /)).toBeVisible();
  await page.dispatchEvent('main', 'drop', { dataTransfer: transfer });
  await expect(page.getByText(/^Drop to upload to /)).toHaveCount(0);
}

async function expectListed(page: Page, version: string, platform: string, file: Archive): Promise<void> {
  const row = ui(page).fileRow(version, platform);
  await expect(row).toBeVisible();
  await expect(row.locator('td.size')).toHaveAttribute('data-bytes', String(file.size));
  await expect(row.locator('code[data-sha256]')).toHaveAttribute('data-sha256', file.sha256);
}

test('a new module: set its entrypoint, drop two platforms’ files, see them upload and listed with their SHA-256', async ({ app }) => {
  const { page } = app;
  const u = ui(page);
  await newModule(page, 'stepper-e2e');
  const amd = await archive('stepper-e2e-linux-amd64.tar.gz', { version: '1.0.0', platform: 'linux/amd64' });
  const arm = await archive('stepper-e2e-linux-arm64.tar.gz', { version: '1.0.0', platform: 'linux/arm64' });

  // Browser mode: dropped as a file manager would. Electron: files made in the page have no path on
  // disk for main to stream, so they are chosen through the page's file input (real paths) instead.
  if (app.launchUrl === null) await u.main.locator('input[type="file"]').setInputFiles([amd.path, arm.path]);
  else await drop(page, [amd, arm]);
  for (const [file, platform] of [[amd, 'linux/amd64'], [arm, 'linux/arm64']] as const) {
    const form = u.main.getByRole('group', { name: file.name });
    await expect(form.getByLabel('Version')).toHaveValue('1.0.0');
    await expect(form.getByLabel('Platform')).toHaveValue(platform);
  }
  // A wrong version is caught before anything is sent, with the schema main checks.
  const armForm = u.main.getByRole('group', { name: arm.name });
  await armForm.getByLabel('Version').fill('1.0');
  await expect(armForm.getByText(/must be a semantic version/i)).toBeVisible();
  await expect(u.main.getByRole('button', { name: 'Upload', exact: true })).toBeEnabled();
  await armForm.getByLabel('Version').fill('1.0.0');
  await scan(page, 'module page with files to upload');
  await u.main.getByRole('button', { name: 'Upload 2 files' }).click();

  for (const file of [amd, arm]) await expect(u.upload(file.name)).toHaveAccessibleName(`${file.name}, Done`, { timeout: 30_000 });
  const bar = u.upload(amd.name).getByRole('progressbar');
  await expect(bar).toHaveAttribute('aria-valuenow', String(amd.size));
  await expect(bar).toHaveAttribute('aria-valuemax', String(amd.size));
  await expect(u.upload(amd.name).locator('code[data-sha256]')).toHaveAttribute('data-sha256', amd.sha256);

  // Both files of 1.0.0, with the sizes and hashes of the files on disk.
  await expectListed(page, '1.0.0', 'linux/amd64', amd);
  await expectListed(page, '1.0.0', 'linux/arm64', arm);
  await expect(u.main.getByText('1 version', { exact: true })).toBeVisible();
  await scan(page, 'module page with versions and finished uploads');

  // The registry lists the module as published, on both platforms.
  await u.action('Back to the registry').click();
  await u.main.getByLabel('Search the registry').fill('stepper-e2e');
  const option = u.main.getByRole('option', { name: /^stepper-e2e/ });
  await expect(option).toContainText('Published');
  await expect(option).toContainText('linux/amd64');
  await expect(option).toContainText('linux/arm64');
});

test('a large upload cancelled in flight, then retried to done; cut off by the service dying, it waits and resumes', async ({ app }) => {
  test.setTimeout(180_000);
  test.skip(app.launchUrl === null, 'finds the forked service by its command line (Electron runs it as a utility process)');
  const { page, userDataDir } = app;
  const u = ui(page);
  await newModule(page, 'bulky-e2e');
  // Large enough to be in flight for a second or more on loopback (~100 MB/s here).
  const big = await archive('bulky-e2e-2.0.0-linux-amd64.tar.gz', { version: '2.0.0', platform: 'linux/amd64' }, 120 * 1024 * 1024);

  // Chosen with the page's file picker (browser mode has no native dialog).
  await u.main.locator('input[type="file"]').setInputFiles(big.path);
  const form = u.main.getByRole('group', { name: big.name });
  await expect(form.getByLabel('Version')).toHaveValue('2.0.0', { timeout: 30_000 });
  await u.main.getByRole('button', { name: 'Upload', exact: true }).click();

  // In flight: some bytes sent, not all. Cancel.
  const row = u.upload(big.name);
  const bar = row.getByRole('progressbar');
  await expect.poll(async () => Number(await bar.getAttribute('aria-valuenow')), { timeout: 30_000, intervals: [20] }).toBeGreaterThan(0);
  await row.getByRole('button', { name: `Cancel the upload of ${big.name}` }).click();
  await expect(row).toHaveAccessibleName(`${big.name}, Cancelled`);
  const sentAtCancel = Number(await bar.getAttribute('aria-valuenow'));
  expect(sentAtCancel).toBeLessThan(big.size);
  await expect(u.fileRow('2.0.0', 'linux/amd64')).toHaveCount(0);

  // Retry: it resumes from what the service holds and finishes with the file's hash.
  await row.getByRole('button', { name: `Retry the upload of ${big.name}` }).click();
  await expect(row).toHaveAccessibleName(`${big.name}, Done`, { timeout: 60_000 });
  await expect(row.locator('code[data-sha256]')).toHaveAttribute('data-sha256', big.sha256);
  await expectListed(page, '2.0.0', 'linux/amd64', big);

  // The same file as another version; the local service dies while it is on its way.
  await row.getByRole('button', { name: `Remove ${big.name} from the list` }).click();
  await expect(row).toHaveCount(0);
  await u.main.locator('input[type="file"]').setInputFiles(big.path);
  await expect(form.getByLabel('Version')).toHaveValue('2.0.0', { timeout: 30_000 });
  await form.getByLabel('Version').fill('2.0.1');
  await u.main.getByRole('button', { name: 'Upload', exact: true }).click();
  await expect.poll(async () => Number(await bar.getAttribute('aria-valuenow')), { timeout: 30_000, intervals: [20] }).toBeGreaterThan(0);
  process.kill(servicePid(userDataDir), 'SIGKILL');
  await expect(row).toHaveAccessibleName(`${big.name}, Waiting for the service`, { timeout: 20_000 });
  const sentAtKill = Number(await bar.getAttribute('aria-valuenow'));
  expect(sentAtKill).toBeLessThan(big.size);
  await page.getByRole('button', { name: 'Start local service' }).click();
  await expect(row).toHaveAccessibleName(`${big.name}, Done`, { timeout: 60_000 });
  await expect(row.locator('code[data-sha256]')).toHaveAttribute('data-sha256', big.sha256);
  await u.action('Refresh').click();
  await expectListed(page, '2.0.1', 'linux/amd64', big);
});

test('browse the registry: filter by type and text, keyboard through the list, read an item’s documentation', async ({ app }) => {
  const { page } = app;
  const u = ui(page);
  await expect(treeItem(page, ACME)).toBeVisible();

  // From an organization: its modules and registry.
  await treeItem(page, ACME).click();
  await u.action('Modules & registry').click();
  await expect(u.heading).toHaveText(`Registry of ${ACME}`);
  const options = u.main.getByRole('listbox', { name: 'Registry items' }).getByRole('option');
  await expect(options.first()).toBeVisible();
  for (const text of await options.allTextContents()) expect(text).toContain(ACME);
  await scan(page, 'registry of an organization');

  // A file dropped where no page takes it: the app stays (a browser would have opened the file) and says where to drop.
  const url = page.url();
  const stray = await page.evaluateHandle(() => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array([0x1f, 0x8b])], 'stray.tar.gz', { type: 'application/gzip' }));
    return dt;
  });
  const prevented = await page.evaluate((dt) => {
    const event = new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true });
    document.querySelector('main')?.dispatchEvent(event);
    return event.defaultPrevented;
  }, stray);
  expect(prevented).toBe(true);
  expect(page.url()).toBe(url);
  await expect(page.getByText('To upload module files, open the module in the registry and drop them on its page.')).toBeVisible();

  // Every organization, ML models only.
  await u.main.getByLabel('Organization').selectOption({ label: 'All organizations' });
  await u.main.getByLabel('Type').selectOption({ label: 'ML model' });
  await expect(options.filter({ hasText: 'pallet-detector' })).toBeVisible();
  await expect(options.filter({ hasText: 'crop-classifier' })).toBeVisible();
  // Both models are in the list of every type too: wait for the type's own list, not the one before it.
  await expect(options.filter({ hasNotText: 'ML model' })).toHaveCount(0);
  for (const text of await options.allTextContents()) expect(text).toContain('ML model');
  await expect(options.filter({ hasText: 'lidar-slam' })).toHaveCount(0);

  // Any type, searched by text.
  await u.main.getByLabel('Type').selectOption({ label: 'All types' });
  await u.main.getByLabel('Search the registry').fill('lidar');
  await expect(options).toHaveCount(1);
  await expect(options.first()).toContainText('lidar-slam');
  await u.main.getByLabel('Search the registry').fill('no such thing at all');
  await expect(u.main.getByText('No item matches')).toBeVisible();
  await u.main.getByRole('button', { name: 'Clear filters' }).first().click();
  await expect(options.filter({ hasText: 'lidar-slam' })).toBeVisible();
  await scan(page, 'registry browser');

  // The keyboard: arrows move through the list, Enter opens.
  await options.first().focus();
  await page.keyboard.press('ArrowDown');
  await expect(options.nth(1)).toBeFocused();
  await expect(options.nth(1)).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Home');
  await expect(options.first()).toBeFocused();
  const target = options.filter({ hasText: 'lidar-slam' });
  await target.focus();
  await page.keyboard.press('Enter');

  // The item page with its documentation rendered: headings, lists, a code block, a table; no link leads anywhere.
  await expect(u.heading).toHaveText('lidar-slam');
  const docs = u.main.locator('.markdown');
  await expect(docs.getByRole('heading', { name: 'Configuration' })).toBeVisible();
  await expect(docs.getByRole('listitem').filter({ hasText: 'Works with RPLIDAR S2' })).toBeVisible();
  await expect(docs.locator('pre code')).toContainText('"rate_hz"');
  await expect(docs.getByRole('table')).toContainText('the frame the output is in');
  expect(await docs.locator('a, script, iframe, img').count()).toBe(0);
  await expect(u.main.getByText('https://github.com/acme-warehouse/lidar-slam')).toBeVisible();
  await scan(page, 'registry item with documentation');

  // Its module page: versions and platforms of the demo's real files.
  await u.action('Versions & uploads').click();
  await expect(u.heading).toHaveText('lidar-slam');
  await expect(u.fileRow('1.2.0', 'darwin/arm64')).toBeVisible();
  await expect(u.fileRow('1.2.0', 'darwin/arm64').locator('code[data-sha256]')).toHaveAttribute('data-sha256', /^[0-9a-f]{64}$/);
  await scan(page, 'demo module page');

  // The palette goes to the registry too.
  await page.keyboard.press('Control+KeyK');
  await page.getByRole('combobox', { name: /Go to/ }).fill('Registry');
  await page.keyboard.press('Enter');
  await expect(u.heading).toHaveText('Registry');
});
