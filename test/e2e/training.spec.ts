/**
 * ML training as an operator uses it, on the demo fleet of a first launch, with the embedded service's
 * jobs shortened (FLEET_SERVICE_TRAINING_SECONDS, inherited by the service the app forks): submit a job
 * and watch it go pending → running → succeeded, get the desktop notification and open the job from
 * it, find the trained version in the registry; delete two finished jobs at once and see the service
 * still refuse the version of the deleted one; run a custom job from a registry training script; and
 * (with long jobs) cancel a running one. Every view is scanned with axe-core.
 */
import type { Page } from '@playwright/test';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { create as createTar } from 'tar';
import { FleetClient } from '../../main/grpc/client';
import { ModelType } from '../../proto/gen/fleet/mltraining/v1/ml_training';
import { expect, scan, test, treeItem } from './fixtures';

const ACME = 'Acme Warehouse Robotics';

/**
 * Browser mode's notifications are the page's Notification API; headless Chromium shows nothing, so
 * the page's constructor is replaced by one that records what was shown (and allows it), and the
 * last one can be clicked as the user would.
 */
async function recordNotifications(page: Page): Promise<void> {
  await page.evaluate(() => {
    const shown: { title: string; body: string }[] = [];
    class Recorded {
      static permission = 'granted';
      static requestPermission = () => Promise.resolve('granted');
      onclick: ((event: Event) => void) | null = null;
      constructor(title: string, options?: { body?: string }) {
        shown.push({ title, body: options?.body ?? '' });
        (window as unknown as { lastNotification: Recorded }).lastNotification = this;
      }
      close(): void {}
      addEventListener(type: string, listener: (event: Event) => void): void {
        if (type === 'click') this.onclick = listener;
      }
    }
    Object.assign(window, { shownNotifications: shown, Notification: Recorded });
  });
}

/**
 * Record every status the page of job `label` shows from now on, in order (window.shownStatuses). A
 * 6-second job is pending and running for a few seconds each, shown for as long as the watcher's
 * polls say: a test that looked for each in turn could miss one on a loaded machine; the page's own
 * record cannot.
 */
async function recordStatuses(page: Page, label: string): Promise<void> {
  await page.evaluate((label) => {
    const shown: string[] = [];
    const look = () => {
      const main = document.querySelector('main');
      if (main?.querySelector('h1')?.textContent?.trim() !== label) return;
      const status = main.querySelector('h1 ~ [data-status], header [data-status]')?.getAttribute('data-status');
      if (status && shown.at(-1) !== status) shown.push(status);
    };
    new MutationObserver(look).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    Object.assign(window, { shownStatuses: shown });
  }, label);
}

const shownStatuses = (page: Page) => page.evaluate(() => (window as unknown as { shownStatuses: string[] }).shownStatuses);

const notifications = (page: Page) => page.evaluate(() => (window as unknown as { shownNotifications: { title: string; body: string }[] }).shownNotifications);

async function openTraining(page: Page): Promise<void> {
  await treeItem(page, ACME).click();
  await page.getByTestId('org-training').click();
  await expect(page.getByRole('main').getByRole('heading', { level: 1 })).toHaveText(`Training of ${ACME}`);
  await expect(page.getByTestId('training-job-row').first()).toBeVisible();
}

const row = (page: Page, model: string, version: string) => page.locator(`[data-testid="training-job-row"][data-model="${model}"][data-version="${version}"]`);
const toolbarButton = (page: Page, name: string | RegExp) => page.getByRole('main').getByRole('toolbar').getByRole('button', { name });

test.describe('training (jobs shortened to 6 s)', () => {
  test.use({ appEnv: { FLEET_SERVICE_TRAINING_SECONDS: '6' } });

  test('submit a job and follow it to success, get notified, open it from the notification, and find the model version in the registry', async ({ app }) => {
    const { page } = app;
    // Browser mode: the page shows the notification. Electron: the shell shows a native one
    // (main/shell/lifecycle.test.ts), which a test cannot click from the page.
    const pageNotifies = app.launchUrl !== null;
    await openTraining(page);
    if (pageNotifies) await recordNotifications(page);
    await scan(page, 'training page');

    await toolbarButton(page, 'Train a model').click();
    const dialog = page.getByRole('dialog', { name: 'Train a model' });
    await expect(dialog.getByLabel('Dataset')).not.toHaveValue('');
    await scan(page, 'submit form');
    await dialog.getByLabel('Dataset').selectOption({ label: 'Mezzanine PPE checks' });
    await dialog.getByLabel('Model name').fill('e2e-ppe');
    await expect(dialog.getByLabel('Version')).toHaveValue('1');
    await dialog.getByLabel('Model type').selectOption({ label: 'Object detection' });
    await dialog.getByRole('button', { name: 'Add label safety-vest' }).click();
    await dialog.getByRole('button', { name: 'Add label hard-hat' }).click();
    await expect(dialog.getByRole('button', { name: 'Remove label safety-vest' })).toBeVisible();
    await recordStatuses(page, 'e2e-ppe 1');
    await dialog.getByRole('button', { name: 'Start training' }).click();
    await expect(dialog).toHaveCount(0);

    // Submitting opens the job's page, which follows it live: pending, running, succeeded, each shown.
    // (The progress bar and the scan of a running job's page: the 10-minute test, where it stays running.)
    const main = page.getByRole('main');
    await expect(main.getByRole('heading', { level: 1 })).toHaveText('e2e-ppe 1');
    const status = main.locator('h1 ~ [data-status], header [data-status]').first();
    await expect(status).toHaveAttribute('data-status', 'succeeded', { timeout: 30_000 });
    expect(await shownStatuses(page)).toEqual(['pending', 'running', 'succeeded']);
    await expect(main).toContainText('Mezzanine PPE checks');

    // The desktop notification (and the in-app notice); a click on it opens the job from elsewhere.
    if (pageNotifies) await expect.poll(() => notifications(page), { timeout: 15_000 }).toContainEqual(expect.objectContaining({ title: 'Training succeeded: e2e-ppe 1' }));
    await expect(page.getByRole('status', { name: 'Notifications' })).toContainText('e2e-ppe 1');
    await toolbarButton(page, `All jobs of ${ACME}`).click();
    await expect(row(page, 'e2e-ppe', '1')).toHaveAttribute('data-status', 'succeeded');
    if (pageNotifies) {
      await treeItem(page, 'Harborline Logistics AMR').click();
      await expect(main.getByRole('heading', { level: 1 })).not.toHaveText('e2e-ppe 1');
      await page.evaluate(() => (window as unknown as { lastNotification: { onclick: (e: Event) => void } }).lastNotification.onclick(new Event('click')));
    } else {
      await row(page, 'e2e-ppe', '1').getByRole('button', { name: 'e2e-ppe 1' }).click();
    }
    await expect(main.getByRole('heading', { level: 1 })).toHaveText('e2e-ppe 1');
    await scan(page, 'job page');

    // The trained model is version 1 of an ML model item in the registry.
    await toolbarButton(page, 'Open model in registry').click();
    await expect(page.getByRole('main').getByRole('heading', { level: 1 })).toHaveText('e2e-ppe');
    const version = page.getByRole('main').locator('tr[data-version="1"][data-platform="linux/any"]');
    await expect(version).toBeVisible();
    await expect(version.locator('[data-sha256]')).toHaveAttribute('data-sha256', /^[0-9a-f]{64}$/);
    await scan(page, 'registry page of the trained model');
  });

  test('delete two finished jobs at once; the version of a deleted job stays taken; a version taken meanwhile is refused by the service, and the form says so', async ({ app }) => {
    const { page } = app;
    await openTraining(page);
    const failed = row(page, 'dock-detector', '1');
    const canceled = row(page, 'tote-damage', '2');
    await failed.getByRole('checkbox', { name: 'Select dock-detector 1' }).check();
    await canceled.getByRole('checkbox', { name: 'Select tote-damage 2' }).check();
    await toolbarButton(page, /^Delete selected \(2\)/).click();
    const confirm = page.getByRole('dialog');
    await scan(page, 'delete confirmation');
    await confirm.getByRole('button', { name: 'Delete 2 jobs' }).click();
    await expect(failed).toHaveCount(0);
    await expect(canceled).toHaveCount(0);

    // dock-detector 1 was deleted, and its version stays taken: the form knows it from the service.
    await toolbarButton(page, 'Train a model').click();
    const dialog = page.getByRole('dialog', { name: 'Train a model' });
    await dialog.getByLabel('Dataset').selectOption({ label: 'Reno pallets 2026-Q3' });
    await dialog.getByLabel('Model name').fill('dock-detector');
    await expect(dialog.getByLabel('Version')).toHaveValue('2');
    await dialog.getByLabel('Version').fill('1');
    await dialog.getByRole('button', { name: 'Add label pallet', exact: true }).click();
    await dialog.getByRole('button', { name: 'Start training' }).click();
    await expect(dialog).toContainText('Version 1 of dock-detector is taken; 2 is free.');

    // A version another client takes while the form is open: the service refuses, and the form says so.
    await dialog.getByLabel('Model name').fill('e2e-raced');
    await expect(dialog.getByLabel('Version')).toHaveValue('1');
    const credentials = JSON.parse(readFileSync(join(app.userDataDir, 'local-service', 'bootstrap-credentials.json'), 'utf8')) as { api_key_id: string; api_key: string; address?: string };
    const address = /Running at (\S+)/.exec((await page.getByText(/Running at /).textContent()) ?? '')?.[1];
    expect(address).toBeDefined();
    const client = new FleetClient({ address: address!, tls: false, apiKeyId: credentials.api_key_id, apiKey: credentials.api_key });
    try {
      const orgId = (await client.call('list organizations', client.app.listOrganizations, {})).organizations.find((o) => o.name === ACME)!.id;
      const datasetId = (await client.call('list datasets', client.training.listTrainingDatasets, { orgId })).datasets[0]!.id;
      await client.call('submit', client.training.submitTrainingJob, { orgId, datasetId, modelName: 'e2e-raced', modelVersion: '1', modelType: ModelType.MODEL_TYPE_OBJECT_DETECTION, tags: ['pallet'] });
    } finally {
      client.close();
    }
    await dialog.getByRole('button', { name: 'Start training' }).click();
    await expect(dialog).toContainText('The service refused the job');
    await expect(dialog).toContainText('model_version "1" of model "e2e-raced" was used before in this organization');
    await scan(page, 'form with the service refusing');
    // The form read the versions again: the field says the version is taken and which is free.
    await expect(dialog).toContainText('Version 1 of e2e-raced is taken; 2 is free.');
  });

  test('submit a custom job that runs a training script of the registry, and see it succeed', async ({ app }) => {
    const { page } = app;
    await openTraining(page);
    await toolbarButton(page, 'Train a model').click();
    const dialog = page.getByRole('dialog', { name: 'Train a model' });
    await dialog.getByRole('radio', { name: 'Custom training script' }).check();
    await dialog.getByLabel('Dataset').selectOption({ label: 'Columbus tote damage' });
    await dialog.getByLabel('Training script', { exact: true }).selectOption({ label: 'detector-trainer' });
    await expect(dialog.getByLabel('Script version')).not.toHaveValue('');
    await dialog.getByLabel('Model name').fill('e2e-custom');
    await scan(page, 'custom submit form');
    await dialog.getByRole('button', { name: 'Start training' }).click();
    await expect(dialog).toHaveCount(0);
    const main = page.getByRole('main');
    await expect(main.getByRole('heading', { level: 1 })).toHaveText('e2e-custom 1');
    await expect(main).toContainText('detector-trainer');
    await expect(main.locator('[data-status]').first()).toHaveAttribute('data-status', 'succeeded', { timeout: 40_000 });
  });
});

test.describe('training scripts of our own (jobs shortened to 6 s)', () => {
  test.use({ appEnv: { FLEET_SERVICE_TRAINING_SECONDS: '6' } });

  test('publish a training script version from its registry page, then run a custom job on it', async ({ app }) => {
    const { page } = app;
    const main = page.getByRole('main');
    await expect(treeItem(page, ACME)).toBeVisible();
    await page.getByRole('button', { name: 'Registry', exact: true }).click();
    await toolbarButton(page, 'New item…').click();
    const create = page.getByRole('dialog', { name: 'New registry item' });
    await create.getByLabel('Organization').selectOption({ label: ACME });
    await create.getByLabel('Type').selectOption({ label: 'Training script' });
    await create.getByLabel('Name').fill('e2e-trainer');
    await create.getByRole('button', { name: 'Create item' }).click();
    await expect(main.getByRole('heading', { level: 1 })).toHaveText('e2e-trainer');

    // A real build of the script, chosen with the page's file input (browser mode stages it; Electron streams it from disk).
    const work = mkdtempSync(join(tmpdir(), 'fleet-desk-trainer-'));
    try {
      writeFileSync(join(work, 'meta.json'), JSON.stringify({ version: '0.1.0', platform: 'linux/any' }));
      writeFileSync(join(work, 'train.py'), 'print("training")\n');
      const file = join(work, 'e2e-trainer-0.1.0.tar.gz');
      await createTar({ gzip: true, file, cwd: work }, ['meta.json', 'train.py']);
      await main.locator('input[type="file"]').setInputFiles([file]);
      const draft = main.getByRole('group', { name: 'e2e-trainer-0.1.0.tar.gz' });
      await expect(draft.getByLabel('Version')).toHaveValue('0.1.0');
      await expect(draft.getByLabel('Platform')).toHaveValue('linux/any');
      await scan(page, 'training script page with a build to upload');
      await main.getByRole('button', { name: 'Upload', exact: true }).click();
      await expect(main.getByRole('list', { name: 'Uploads' }).getByRole('listitem', { name: /^e2e-trainer-0\.1\.0\.tar\.gz,/ })).toHaveAccessibleName('e2e-trainer-0.1.0.tar.gz, Done', { timeout: 30_000 });
      await expect(main.locator('tr[data-version="0.1.0"][data-platform="linux/any"]')).toBeVisible();
    } finally {
      rmSync(work, { recursive: true, force: true });
    }

    await openTraining(page);
    await toolbarButton(page, 'Train a model').click();
    const dialog = page.getByRole('dialog', { name: 'Train a model' });
    await dialog.getByRole('radio', { name: 'Custom training script' }).check();
    await dialog.getByLabel('Dataset').selectOption({ label: 'Reno pallets 2026-Q3' });
    await dialog.getByLabel('Training script', { exact: true }).selectOption({ label: 'e2e-trainer' });
    await expect(dialog.getByLabel('Script version')).toHaveValue('0.1.0');
    await dialog.getByLabel('Model name').fill('e2e-own-script');
    await dialog.getByRole('button', { name: 'Start training' }).click();
    await expect(main.getByRole('heading', { level: 1 })).toHaveText('e2e-own-script 1');
    await expect(main).toContainText('e2e-trainer');
    await expect(main.locator('[data-status]').first()).toHaveAttribute('data-status', 'succeeded', { timeout: 40_000 });
  });
});

test.describe('training (jobs of 10 minutes)', () => {
  test.use({ appEnv: { FLEET_SERVICE_TRAINING_SECONDS: '600' } });

  test('cancel a running job after confirming, and see it go canceling → canceled; the status filter shows it', async ({ app }) => {
    const { page } = app;
    await openTraining(page);
    const running = row(page, 'ppe-detector', '2');
    await expect(running).toHaveAttribute('data-status', 'running');
    await expect(page.getByTestId('sidebar-training')).toHaveAccessibleName(/training jobs? running/);
    await running.getByRole('button', { name: 'ppe-detector 2' }).click();
    await expect(page.getByRole('main').getByRole('heading', { level: 1 })).toHaveText('ppe-detector 2');
    await expect(page.getByRole('main').getByRole('progressbar', { name: 'Progress of ppe-detector 2' })).toBeVisible();
    await scan(page, 'job page of a running job');
    await toolbarButton(page, 'Cancel job…').click();
    const confirm = page.getByRole('dialog');
    await scan(page, 'cancel confirmation');
    await confirm.getByRole('button', { name: 'Cancel job' }).click();
    await expect(page.getByRole('main')).toContainText(/Canceling|Canceled/);
    await expect(page.getByRole('main')).toContainText('Canceled', { timeout: 20_000 });
    await toolbarButton(page, `All jobs of ${ACME}`).click();
    await page.getByTestId('training-status-filter').getByRole('radio', { name: 'Canceled' }).check();
    await expect(row(page, 'ppe-detector', '2')).toHaveAttribute('data-status', 'canceled');
    await expect(page.getByTestId('training-job-row')).toHaveCount(2); // tote-damage 2 of the demo, and this one
    await scan(page, 'training page filtered');
  });
});
