/**
 * Issue #18: the config editor on a 1 MiB config (5,000 components) in Chromium — opening the
 * editor < 300 ms, a keystroke's frame < 16.7 ms p95, a three-way merge of two edited 1 MiB
 * versions < 200 ms — each beside a baseline measured in the same run.
 *
 * The kit (renderer/src/lib/config) has no page in the app yet, so this drives it on a page of its
 * own: bench/harness (index.html, main.ts), built by Vite with the renderer's Svelte setup and served
 * with the app's CSP (bench/harness/harness.ts), in Debian's Chromium (headless, software
 * rendering, 1280×800). The texts are made in the page (renderer/src/lib/testing/config-fixtures.ts).
 *
 * - Opening: from mounting ConfigEditor on a ConfigDocument of the text to the end of the frame
 *   that shows it (CodeMirror's chunks loaded, the text checked and drawn), in a fresh page each
 *   time (cold: the chunks are fetched and compiled), median of OPENS; and again in the same page
 *   (warm). Baseline: CodeMirror alone (basicSetup + JSON) with the same text, the same way.
 * - Keystrokes: KEYS characters typed into a component's name in the middle of the text (real key
 *   events through the DevTools protocol, one every KEY_GAP_MS); a frame runs from the keydown to
 *   the end of the frame after it. Baseline: the same in plain CodeMirror.
 * - Merge: merge.ts's mergeText of base, yours (53 components changed) and theirs (58 changed, one
 *   added; one component changed by both: the one conflict), in the page, median of MERGES.
 *   Baseline: JSON.parse of the base, alternated with it.
 *
 *   npm run bench -- config-editor
 */
import { chromium, type Browser, type Page } from '@playwright/test';
import { loadavg } from 'node:os';
import { chromiumArgs } from '../test/e2e/fixtures';
import { verdict } from './browser';
import { buildHarness, serveHarness } from './harness/harness';
import { machine, ms, percentile } from './lib';

const COMPONENTS = 5_000;
const OPENS = 5;
const KEYS = 150;
const KEY_GAP_MS = 40;
const MERGES = 9;
const TARGETS = { openMs: 300, keyFrameP95Ms: 16.7, mergeMs: 200 } as const;
/** Where the cursor goes: a component's name halfway down the text. */
const CURSOR_AFTER = '"name": "component-02500';

type Kind = 'kit' | 'plain';
const median = (v: readonly number[]) => percentile(v, 50);

interface Harness {
  texts(components: number): { base: string; yours: string; theirs: string };
  openEditor(text: string): Promise<number>;
  openPlain(text: string): Promise<number>;
  placeCursor(needle: string): Promise<void>;
  recordKeys(): void;
  mergeTimes(components: number, runs: number): Promise<{ merge: number[]; parse: number[]; conflicts: number }>;
}

async function freshPage(browser: Browser, url: string): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
  // tsx (esbuild, keepNames) wraps named functions in the callbacks passed to page.evaluate in __name().
  await page.addInitScript({ content: 'globalThis.__name = (f) => f;' });
  await page.goto(url);
  await page.waitForSelector('body[data-ready]');
  return page;
}

/** Cold and warm opening times of one kind in a fresh page. */
async function opens(browser: Browser, url: string, kind: Kind): Promise<{ cold: number; warm: number }> {
  const page = await freshPage(browser, url);
  try {
    return await page.evaluate(
      async ({ kind, components }) => {
        const h = (window as unknown as { harness: Harness }).harness;
        const { base } = h.texts(components);
        const open = (text: string) => (kind === 'kit' ? h.openEditor(text) : h.openPlain(text));
        const cold = await open(base);
        const warm = await open(base);
        return { cold, warm };
      },
      { kind, components: COMPONENTS },
    );
  } finally {
    await page.context().close();
  }
}

/** Keystroke frame times of one kind, typing into the middle of the text. */
async function keystrokes(browser: Browser, url: string, kind: Kind): Promise<number[]> {
  const page = await freshPage(browser, url);
  try {
    await page.evaluate(
      async ({ kind, components, cursor }) => {
        const h = (window as unknown as { harness: Harness }).harness;
        const { base } = h.texts(components);
        await (kind === 'kit' ? h.openEditor(base) : h.openPlain(base));
        await h.placeCursor(cursor);
      },
      { kind, components: COMPONENTS, cursor: CURSOR_AFTER },
    );
    // Let the first check of the text and the background parse finish: typing starts on a settled editor.
    await page.waitForTimeout(1_500);
    await page.evaluate(() => (window as unknown as { harness: Harness }).harness.recordKeys());
    for (let i = 0; i < KEYS; i++) {
      await page.keyboard.type(i % 8 === 7 ? '-' : 'x');
      await page.waitForTimeout(KEY_GAP_MS);
    }
    await page.waitForTimeout(300);
    return await page.evaluate(() => (window as unknown as { keyTimes: number[] }).keyTimes);
  } finally {
    await page.context().close();
  }
}

async function main(): Promise<void> {
  console.log('building the harness (vite build of bench/harness)…');
  const served = await serveHarness(await buildHarness());
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: chromiumArgs });
  const load = loadavg()[0]!.toFixed(2);
  try {
    // Alternating which goes first, so neither always meets a warmer machine.
    const open: Record<Kind, { cold: number[]; warm: number[] }> = { kit: { cold: [], warm: [] }, plain: { cold: [], warm: [] } };
    for (let i = 0; i < OPENS; i++) {
      for (const kind of (i % 2 === 0 ? ['plain', 'kit'] : ['kit', 'plain']) as Kind[]) {
        const { cold, warm } = await opens(browser, served.url, kind);
        open[kind].cold.push(cold);
        open[kind].warm.push(warm);
      }
    }
    const keys: Record<Kind, number[]> = { kit: [], plain: [] };
    for (const kind of ['plain', 'kit', 'kit', 'plain'] as Kind[]) keys[kind].push(...(await keystrokes(browser, served.url, kind)));

    const page = await freshPage(browser, served.url);
    const merge = await page.evaluate(({ components, runs }) => (window as unknown as { harness: Harness }).harness.mergeTimes(components, runs), { components: COMPONENTS, runs: MERGES });
    const size = await page.evaluate((components) => (window as unknown as { harness: Harness }).harness.texts(components).base.length, COMPONENTS);
    await page.context().close();

    const spread = (v: readonly number[]) => `${ms(Math.min(...v))}–${ms(Math.max(...v))}`;
    console.log(`config-editor on ${machine()}, ${browser.version()} (headless, software rendering), load average ${load}`);
    console.log(`  text: ${COMPONENTS.toLocaleString('en')} components, ${(size / 1_048_576).toFixed(2)} MiB`);
    console.log(`  open, cold (fresh page), median of ${OPENS}: ConfigEditor ${ms(median(open.kit.cold))} (${spread(open.kit.cold)}); plain CodeMirror ${ms(median(open.plain.cold))} (${spread(open.plain.cold)})`);
    console.log(`  open, warm (again in the page), median of ${OPENS}: ConfigEditor ${ms(median(open.kit.warm))} (${spread(open.kit.warm)}); plain CodeMirror ${ms(median(open.plain.warm))} (${spread(open.plain.warm)})`);
    console.log(`  keystroke frames (${keys.kit.length} / ${keys.plain.length}): ConfigEditor p50 ${ms(percentile(keys.kit, 50))}, p95 ${ms(percentile(keys.kit, 95))}, max ${ms(Math.max(...keys.kit))}; plain p50 ${ms(percentile(keys.plain, 50))}, p95 ${ms(percentile(keys.plain, 95))}, max ${ms(Math.max(...keys.plain))}`);
    console.log(`  three-way merge, median of ${MERGES}: ${ms(median(merge.merge))} (${spread(merge.merge)}), ${merge.conflicts} conflict; JSON.parse ${ms(median(merge.parse))} (${spread(merge.parse)})`);
    const ok = [
      verdict('opening the editor on 1 MiB (cold)', median(open.kit.cold), TARGETS.openMs, median(open.plain.cold), 'baseline: CodeMirror alone with the same text, cold'),
      verdict('opening the editor on 1 MiB (warm)', median(open.kit.warm), TARGETS.openMs, median(open.plain.warm), 'baseline: CodeMirror alone with the same text, warm'),
      verdict('a keystroke frame, p95', percentile(keys.kit, 95), TARGETS.keyFrameP95Ms, percentile(keys.plain, 95), 'baseline: the same typing in plain CodeMirror'),
      verdict('a three-way merge of two edited 1 MiB versions', median(merge.merge), TARGETS.mergeMs, median(merge.parse), 'baseline: JSON.parse of the same text'),
    ].every(Boolean);
    process.exitCode = ok ? 0 : 1;
  } finally {
    await browser.close();
    await served.close();
  }
}

await main();
