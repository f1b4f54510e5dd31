/**
 * Logs as an operator uses them, on the demo fleet of a first launch: open a live part's logs and see
 * lines arrive; pause and resume; filter to errors; filter by text with the matches highlighted;
 * drag across the volume histogram; export and check the file; tail a whole machine merged; stop the
 * service and search the cache fleet-wide; restart it and see the tail resume, with no gap and no
 * duplicate in the cache compared with the service's own log. Every view is scanned with axe-core.
 */
import type { Locator, Page } from '@playwright/test';
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FleetClient } from '../../main/grpc/client';
import { serviceLogEntries } from '../helpers/service-logs';
import { expect, scan, test, treeItem } from './fixtures';

const ACME = 'Acme Warehouse Robotics';
/** A steady demo machine of Floor 1 whose parts log (tens of lines a minute). */
const MACHINE = 'picker-arm-003';
const PART = 'picker-arm-003-main';

function ui(page: Page) {
  const main = page.getByRole('main');
  return {
    main,
    heading: main.getByRole('heading', { level: 1 }),
    action: (name: string) => main.getByRole('toolbar').getByRole('button', { name, exact: true }),
    lines: main.getByRole('listbox', { name: 'Log lines' }).getByRole('option'),
    count: main.locator('p.count'),
  };
}

async function open(page: Page, name: string): Promise<void> {
  const row = treeItem(page, name);
  await row.click();
  if ((await row.getAttribute('aria-expanded')) === 'false') await page.keyboard.press('ArrowRight');
  await expect(row).toHaveAttribute('aria-expanded', 'true');
}

/** The number in "N lines" under the histogram. */
async function shown(count: Locator): Promise<number> {
  const text = (await count.textContent()) ?? '';
  return Number(/([\d,]+)\s+lines?/.exec(text)?.[1]?.replace(/,/g, '') ?? NaN);
}

async function toFloor1(page: Page): Promise<void> {
  await expect(treeItem(page, ACME)).toBeVisible();
  for (const name of [ACME, 'Reno Fulfillment Center', 'Building A', 'Floor 1', MACHINE]) await open(page, name);
}

test("a part's logs: live lines, pause and resume, errors only, a text filter with highlights, the histogram's time range, export", async ({ app }) => {
  const { page } = app;
  const u = ui(page);
  await toFloor1(page);
  await treeItem(page, PART).click();
  await u.action('Logs').click();
  await expect(u.heading).toHaveText(`${MACHINE} / ${PART}`);
  await expect(u.main.getByText('Live', { exact: true })).toBeVisible({ timeout: 15_000 });

  // New lines arrive while following.
  await expect.poll(() => shown(u.count), { timeout: 20_000 }).toBeGreaterThan(3);
  const first = await shown(u.count);
  await expect.poll(() => shown(u.count), { timeout: 30_000 }).toBeGreaterThan(first);
  await expect(u.lines.last()).toContainText(/DEBUG|INFO|WARN|ERROR/);
  await scan(page, 'part log view');

  // Pause: new lines are counted on the way back to live.
  await u.main.getByRole('button', { name: 'Following' }).click();
  await expect(u.main.getByRole('button', { name: /Jump to live \(\d+ new\)/ })).toBeVisible({ timeout: 30_000 });
  await u.main.getByRole('button', { name: /Jump to live/ }).click();
  await expect(u.main.getByRole('button', { name: 'Following' })).toBeVisible();

  // Errors only: switch the other levels off.
  for (const level of ['DEBUG', 'INFO', 'WARN']) await u.main.getByRole('button', { name: level, exact: true }).click();
  await expect(u.main.getByRole('button', { name: 'ERROR', exact: true })).toHaveAttribute('aria-pressed', 'true');
  await expect(u.count).toContainText(/match/);
  // "match" shows from the first click's answer on (DEBUG off, INFO and WARN still in): the lines are
  // read once the last filter is applied (none still "filtering…"), not from an earlier answer.
  await expect(u.count).not.toContainText('filtering');
  await expect(u.lines.locator('.level').filter({ hasNotText: 'ERROR' })).toHaveCount(0);
  for (const level of await u.lines.locator('.level').allTextContents()) expect(level).toBe('ERROR');
  for (const level of ['DEBUG', 'INFO', 'WARN']) await u.main.getByRole('button', { name: level, exact: true }).click();

  // A word of a line shown, typed in another case: every line shown has it, marked.
  const message = (await u.lines.last().locator('.message').textContent()) ?? '';
  const word = message.split(/\s+/).find((w) => /^[a-z]{4,}$/i.test(w)) ?? 'frame';
  await u.main.getByLabel('Filter lines').fill(word.toUpperCase());
  await expect(u.count).toContainText('match');
  await expect(u.lines.first().locator('mark').first()).toHaveText(new RegExp(word, 'i'));
  const marks = await u.lines.locator('mark').allTextContents();
  expect(marks.length).toBeGreaterThan(0);
  for (const mark of marks) expect(mark.toLowerCase()).toBe(word.toLowerCase());
  await scan(page, 'filtered log view');
  await u.main.getByLabel('Filter lines').fill('');
  await expect(u.count).not.toContainText('match');

  // Drag across the middle of the histogram: the view keeps that time only.
  const all = await shown(u.count);
  const chart = u.main.locator('.u-over');
  const box = (await chart.boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.05, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2, { steps: 8 });
  await page.mouse.up();
  await expect(u.main.getByRole('button', { name: 'Clear time range' })).toBeVisible();
  expect(await shown(u.count)).toBeLessThanOrEqual(all);
  await scan(page, 'log view with a time range');

  // Export what is shown: every line of the range, as JSON Lines, written by main. In Electron main
  // asks where with the save dialog instead (main/shell/lifecycle.test.ts), which a test cannot answer.
  test.skip(app.launchUrl === null, 'Electron exports through the native save dialog');
  await u.main.getByRole('button', { name: 'Following' }).click().catch(() => undefined);
  const expected = await shown(u.count);
  const [download] = await Promise.all([page.waitForEvent('download'), u.action('Export .jsonl').click()]);
  expect(download.suggestedFilename()).toMatch(/^picker-arm-003_picker-arm-003-main-.*\.jsonl$/);
  const lines = readFileSync((await download.path())!, 'utf8').trimEnd().split('\n');
  expect(lines.length).toBeGreaterThanOrEqual(expected);
  for (const line of lines) expect(JSON.parse(line)).toMatchObject({ level: expect.stringMatching(/^(DEBUG|INFO|WARN|ERROR)$/), partName: `${MACHINE}/${PART}`, message: expect.any(String) });
  await expect(page.getByText(/Exported [\d,]+ lines/)).toBeVisible();
  const [text] = await Promise.all([page.waitForEvent('download'), u.action('Export .log').click()]);
  expect(readFileSync((await text.path())!, 'utf8')).toMatch(/^\d{4}-\d\d-\d\dT\S+Z (DEBUG|INFO |WARN |ERROR) picker-arm-003\/picker-arm-003-main /);
  await u.main.getByRole('button', { name: 'Clear time range' }).click();
  await expect(u.main.getByRole('button', { name: 'Clear time range' })).toHaveCount(0);
});

test('a whole machine merged; offline, search every cached line; back online the tail resumes with no gap and no duplicate', async ({ app }) => {
  test.setTimeout(150_000);
  const { page, userDataDir } = app;
  const u = ui(page);
  await toFloor1(page);
  await treeItem(page, MACHINE).click();
  await u.action('Logs').click();
  await expect(u.heading).toHaveText(MACHINE);
  await expect(u.main.getByText('3 parts')).toBeVisible();
  // Lines of at least two parts, each marked with its part.
  await expect.poll(async () => new Set(await u.lines.locator('.part').allTextContents()).size, { timeout: 40_000 }).toBeGreaterThanOrEqual(2);
  for (const label of await u.lines.locator('.part').allTextContents()) expect(label).toMatch(/^picker-arm-003\/(main|arm|gripper-cam)$/);
  await scan(page, 'merged machine view');
  const address = /Running at (\S+)/.exec((await page.getByText(/Running at/).textContent()) ?? '')?.[1];
  expect(address).toBeTruthy();

  // The service goes away: the view says so and keeps its lines.
  await page.getByRole('button', { name: 'Stop local service' }).click();
  await expect(u.main.getByText('Offline · cached lines')).toBeVisible({ timeout: 20_000 });
  await expect(u.lines).not.toHaveCount(0);

  // Offline, one box searches every cached line.
  await page.getByRole('button', { name: 'Search logs (Ctrl+Shift+F)' }).click();
  await expect(u.heading).toHaveText('Search cached logs');
  await expect(u.main.getByText('Offline · searching the cache')).toBeVisible();
  const hits = u.main.getByRole('list', { name: 'Search results' }).getByRole('button');
  await expect(hits.first()).toBeVisible();
  const sample = (await hits.first().locator('.message').textContent()) ?? '';
  const word = sample.split(/\s+/).find((w) => /^[a-z]{4,}$/i.test(w)) ?? 'frame';
  await u.main.getByLabel('Search every cached log line').fill(word);
  await expect(hits.first().locator('mark')).toHaveText(new RegExp(`^${word}$`, 'i'));
  await expect(hits.first()).toContainText(/cached/);
  await expect(hits.first()).toContainText(MACHINE);
  await scan(page, 'offline log search');

  // A hit opens in its part's log, at its line; the part's tail waits for the service.
  const hitPart = ((await hits.first().locator('.where').textContent()) ?? '').split(' / ')[1]?.trim() ?? PART;
  await hits.first().click();
  await expect(u.heading).toHaveText(`${MACHINE} / ${hitPart}`);
  await expect(u.main.getByRole('listbox', { name: 'Log lines' }).getByRole('option', { selected: true })).toContainText(new RegExp(word, 'i'));
  // Back returns to the search as it was (its query and hits), Forward to the hit's line.
  await page.getByRole('group', { name: 'History' }).getByRole('button', { name: 'Back' }).click();
  await expect(u.heading).toHaveText('Search cached logs');
  await expect(u.main.getByLabel('Search every cached log line')).toHaveValue(word);
  await expect(hits.first().locator('mark')).toHaveText(new RegExp(`^${word}$`, 'i'));
  await page.getByRole('group', { name: 'History' }).getByRole('button', { name: 'Forward' }).click();
  await expect(u.heading).toHaveText(`${MACHINE} / ${hitPart}`);
  await page.waitForTimeout(2000);

  // The service is back: the tail resumes, says how long it was cut off, and fills the gap.
  await page.getByRole('button', { name: 'Start local service' }).click();
  await expect(u.main.getByText(/Disconnected at .* for \d+ (s|min); the gap was filled/)).toBeVisible({ timeout: 40_000 });
  await expect(u.main.getByText('Live', { exact: true })).toBeVisible();
  // Every line the service logged until the tail resumed must reach the cache. How soon the last of
  // them is written depends on the machine's load, so that is polled for (was: a 4 s sleep, then lines
  // up to 3 s before it); a line missing for good — a gap — still fails the poll.
  const resumedAt = Date.now();

  // The cache against the service's own log of that part: nothing missing, nothing twice.
  const credentials = JSON.parse(readFileSync(join(userDataDir, 'local-service', 'bootstrap-credentials.json'), 'utf8')) as { api_key_id: string; api_key: string };
  const newAddress = /Running at (\S+)/.exec((await page.getByText(/Running at/).textContent()) ?? '')?.[1] ?? address!;
  const cache = new Database(join(userDataDir, 'profiles', 'local', 'cache.sqlite'), { readonly: true });
  const client = new FleetClient({ address: newAddress, tls: false, apiKeyId: credentials.api_key_id, apiKey: credentials.api_key });
  try {
    const partId = cache.prepare('SELECT part_id FROM log_parts WHERE part_name = ?').pluck().get(hitPart) as string;
    const cachedIds = () => cache.prepare('SELECT entry_id FROM logs WHERE part_id = ?').pluck().all(partId) as string[];
    let checked: { id: string; timeMs: number }[] = [];
    await expect
      .poll(
        async () => {
          const service = await serviceLogEntries(client, partId);
          const have = new Set(cachedIds());
          const oldest = Math.min(...service.filter((e) => have.has(e.id)).map((e) => e.timeMs));
          checked = service.filter((e) => e.timeMs >= oldest && e.timeMs <= resumedAt);
          return checked.filter((e) => !have.has(e.id));
        },
        { timeout: 20_000 },
      )
      .toEqual([]);
    expect(checked.length).toBeGreaterThan(0);
    const cached = cachedIds();
    expect(new Set(cached).size).toBe(cached.length);
  } finally {
    client.close();
    cache.close();
  }
  await scan(page, 'resumed log view');
});
