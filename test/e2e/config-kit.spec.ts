/**
 * The config editing kit (renderer/src/lib/config) in Chromium, before any page of the app uses it:
 * ConfigEditor, ConflictMerge and ConfigDiff on the bench harness page (bench/harness: built with
 * the renderer's Svelte setup, served with the app's CSP). What a person does with each — typing,
 * seeing a problem inline, formatting, completing, saving with the keyboard, settling conflicts,
 * walking a diff — and an axe scan of each (no serious or critical violation), light and dark.
 * The harness is a page of its own, not the app: the spec runs in the browser project only.
 */
import type { Browser, Page } from '@playwright/test';
import { buildHarness, serveHarness } from '../../bench/harness/harness';
import { expect, scan, test } from './fixtures';

let served: { url: string; close(): Promise<void> } | null = null;

// One worker for the file: the harness is built into one folder (out/bench-harness, emptied first)
// and served from it, which two workers' beforeAll would do at once.
test.describe.configure({ mode: 'default' });

test.beforeAll(async ({ sharedChromium: _ }, testInfo) => {
  test.skip(testInfo.project.metadata.host === 'electron', 'a page of its own in Chromium, not the app');
  test.setTimeout(120_000);
  served = await serveHarness(await buildHarness());
});

test.afterAll(async () => {
  await served?.close();
});

/** A fresh page on the harness; closing it (`done`) fails the test if the page reported an error (a CSP refusal above all). */
async function open(browser: Browser, colorScheme: 'light' | 'dark' = 'light'): Promise<Page & { done(): Promise<void> }> {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme })).newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    // The harness has no favicon; anything else (a CSP refusal above all) is a failure.
    if (m.type() === 'error' && !m.text().includes('404')) errors.push(m.text());
  });
  await page.addInitScript({ content: 'globalThis.__name = (f) => f;' });
  await page.goto(served!.url);
  await page.waitForSelector('body[data-ready]');
  return Object.assign(page, {
    async done() {
      await page.context().close();
      expect(errors).toEqual([]);
    },
  });
}

const editor = (page: Page, name: string | RegExp) => page.getByRole('textbox', { name });

test('ConfigEditor: problems inline, Format keeping key order, completion, Ctrl+S, keyboard out, light and dark', async ({ sharedChromium }) => {
  const page = await open(await sharedChromium());
  const text = '{"components": [{"name": "cam", "api": "rdk:component:camera", "model": "rdk:builtin:webcam"}], "zeta": 1, "alpha": 2}';
  await page.evaluate((t) => (window as unknown as { harness: { openEditor(t: string): Promise<number> } }).harness.openEditor(t), text);
  const box = editor(page, 'Config of part bench-main');
  await expect(box).toBeVisible();
  await expect(page.getByText('No unsaved changes.')).toBeVisible();
  await scan(page, 'the config editor, light');

  // A schema problem shows inline and in the status: a model that is not namespace:family:name.
  const state = () => page.evaluate(() => (window as unknown as { harness: { state(): { dirty: boolean; errors: number; problems: string[]; text: string } } }).harness.state());
  await page.evaluate(() => (window as unknown as { harness: { placeCursor(n: string): Promise<void> } }).harness.placeCursor('"model": "rdk:builtin:webcam'));
  for (let i = 0; i < 'rdk:builtin:webcam'.length; i++) await page.keyboard.press('Shift+ArrowLeft');
  await page.keyboard.type('rdk:webcam'); // two parts: neither a bare built-in name nor the triple
  await expect(page.getByText(/1 problem to fix before saving: components\[0\] "cam"\.model is not in the expected form/)).toBeVisible();
  expect((await state()).dirty).toBe(true);
  const shadowHas = (selector: string) => page.evaluate((s) => document.querySelector('.editor')?.shadowRoot?.querySelector(s) !== null, selector);
  expect(await shadowHas('.cm-lintRange-error')).toBe(true);

  // Completion from the lists handed in: what matches the text typed so far in the quotes.
  await page.keyboard.press('Control+Space');
  const options = page.locator('.editor .cm-tooltip-autocomplete [role="option"]');
  await expect(options.first()).toBeVisible();
  // The whole list, retried: a first option visible does not say the list is complete.
  await expect(options).toHaveText([/rdk:builtin:webcam/]);
  // CodeMirror takes no pick in the list's first 75 ms (a key meant for the text is not a pick).
  await page.waitForTimeout(150);
  await page.keyboard.press('Enter');
  // Back to the text as loaded: no unsaved changes, and no problem once it is checked again.
  await expect(page.getByText('No unsaved changes.', { exact: true })).toBeVisible();
  expect(await state()).toMatchObject({ dirty: false, text });

  // Format: laid out, keys in the order typed.
  await page.getByRole('button', { name: 'Format' }).click();
  const formatted = (await state()).text;
  expect(formatted).toMatch(/^\{\n {2}"components": \[\n/);
  expect(formatted.indexOf('"zeta"')).toBeLessThan(formatted.indexOf('"alpha"'));

  // Ctrl+S asks the page to save; Tab leaves the editor (it does not indent).
  await box.press('ControlOrMeta+s');
  expect(await page.evaluate(() => (window as unknown as { saved?: string }).saved)).toBe(formatted);
  await box.focus();
  await page.keyboard.press('Tab');
  await expect(box).not.toBeFocused();

  // Revert brings the text back as it was loaded.
  await page.getByRole('button', { name: 'Revert' }).click();
  expect(await state()).toMatchObject({ dirty: false, text });

  // Dark: the editor takes the app's dark colors.
  const color = (p: Page) => p.evaluate(() => getComputedStyle(document.querySelector('.editor')!.shadowRoot!.querySelector('.cm-content')!).color);
  const dark = await open(await sharedChromium(), 'dark');
  await dark.evaluate((t) => (window as unknown as { harness: { openEditor(t: string): Promise<number> } }).harness.openEditor(t), text);
  await expect(editor(dark, 'Config of part bench-main')).toBeVisible();
  expect(await color(dark)).not.toBe(await color(page));
  await scan(dark, 'the config editor, dark');
  await dark.done();
  await page.done();
});

test('ConfigEditor keeps a text\'s own line breaks (\\r\\n) through typing and Format', async ({ sharedChromium }) => {
  const page = await open(await sharedChromium());
  const text = '{\r\n  "network": {"fqdn": "a.local"}\r\n}\r\n';
  await page.evaluate(async (t) => {
    const harness = (window as unknown as { harness: { openEditor(t: string): Promise<number> } }).harness;
    await harness.openEditor(t);
  }, text);
  await page.evaluate(() => (window as unknown as { harness: { placeCursor(n: string): Promise<void> } }).harness.placeCursor('a.local'));
  await page.keyboard.type('n');
  const state = () => page.evaluate(() => (window as unknown as { harness: { state(): { text: string; dirty: boolean } } }).harness.state());
  expect(await state()).toEqual(expect.objectContaining({ text: text.replace('a.local', 'a.localn'), dirty: true }));
  await page.keyboard.press('Backspace');
  await expect(page.getByText('No unsaved changes.', { exact: true })).toBeVisible();
  await page.getByRole('button', { name: 'Format' }).click();
  expect((await state()).text).toBe('{\r\n  "network": {\r\n    "fqdn": "a.local"\r\n  }\r\n}\r\n');
  await page.done();
});

test('ConflictMerge: settle conflicts by side and by hand, then use the merged text', async ({ sharedChromium }) => {
  const page = await open(await sharedChromium());
  const lines = (...l: string[]) => l.map((s) => `${s}\n`).join('');
  const base = lines('{', '  "a": 1,', '  "keep": 0,', '  "b": 2,', '  "keep2": 0,', '  "c": 3', '}');
  const yours = lines('{', '  "a": 10,', '  "keep": 0,', '  "b": 20,', '  "keep2": 0,', '  "c": 3', '}');
  const theirs = lines('{', '  "a": 11,', '  "keep": 0,', '  "b": 21,', '  "keep2": 0,', '  "c": 33', '}');
  const conflicts = await page.evaluate(
    ({ base, yours, theirs }) => (window as unknown as { harness: { showConflicts(b: string, y: string, t: string): Promise<number> } }).harness.showConflicts(base, yours, theirs),
    { base, yours, theirs },
  );
  expect(conflicts).toBe(2);
  await expect(page.getByRole('heading', { name: "Your changes and the service's meet in 2 places" })).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: '2 of 2 to settle' })).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Your version, conflict 1' })).toContainText('"a": 10');
  await expect(page.getByRole('textbox', { name: 'On the service, saved by ana@acme.example, conflict 1' })).toContainText('"a": 11');
  await scan(page, 'the conflict merge');
  const use = page.getByRole('button', { name: 'Use the merged config' });
  await expect(use).toBeDisabled();

  await page.getByRole('button', { name: 'Take mine', exact: true }).click();
  await expect(page.getByRole('button', { name: /Conflict 1, line 2: yours taken/ })).toBeVisible();
  // On to conflict 2 by itself; write one's own text there.
  await expect(page.getByRole('heading', { name: /Conflict 2 of 2/ })).toBeVisible();
  await page.getByRole('button', { name: 'Edit…' }).click();
  const own = page.getByRole('textbox', { name: /Conflict 2, your own text/ });
  await expect(own).toBeFocused();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type('  "b": 99,\n');
  await page.keyboard.press('ControlOrMeta+Enter');
  await expect(page.getByRole('status').filter({ hasText: 'Every conflict is settled' })).toBeVisible();
  await expect(page.getByRole('textbox', { name: /The merged config as it stands/ })).toContainText('"b": 99');
  await use.click();
  expect(await page.evaluate(() => (window as unknown as { merged?: string }).merged)).toBe(lines('{', '  "a": 10,', '  "keep": 0,', '  "b": 99,', '  "keep2": 0,', '  "c": 33', '}'));
  await scan(page, 'the conflict merge, settled');
  await page.done();
});

test('ConfigDiff: side by side and in one column, from change to change', async ({ sharedChromium }) => {
  const page = await open(await sharedChromium());
  const before = JSON.stringify({ components: [{ name: 'base', attributes: { width_mm: 400 } }, { name: 'lidar' }], network: { fqdn: 'a.local' } }, null, 2);
  const after = JSON.stringify({ components: [{ name: 'base', attributes: { width_mm: 420 } }, { name: 'lidar' }, { name: 'camera-2' }], network: { fqdn: 'a.local' } }, null, 2);
  const show = (layout: 'split' | 'unified') => page.evaluate(({ before, after, layout }) => (window as unknown as { harness: { showDiff(b: string, a: string, l: string): void } }).harness.showDiff(before, after, layout), { before, after, layout });
  await show('split');
  await expect(page.getByText('components: ~base (1 field), +camera-2')).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: /^2 changes$/ })).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Revision 3, by ana@acme.example' })).toContainText('"width_mm": 400');
  await expect(page.getByRole('textbox', { name: 'Current config' })).toContainText('"camera-2"');
  await page.getByRole('button', { name: 'Next change' }).click();
  await expect(page.getByRole('textbox', { name: 'Revision 3, by ana@acme.example' })).toBeFocused();
  await scan(page, 'the diff, side by side');
  await show('unified');
  await expect(page.getByRole('textbox', { name: 'Current config, with what changed since Revision 3, by ana@acme.example' })).toBeVisible();
  await scan(page, 'the diff, one column');
  await page.done();
});
