/**
 * What the benchmarks that drive the app in Chromium share: browser mode's backend as a child
 * process, a page on it, the app's build, and frame timing measured in the page ("after next
 * paint": a task posted from an animation frame runs once that frame's style, layout and paint are
 * done, which is what must fit in 16.7 ms for no frame to drop).
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import type { Browser, Page } from '@playwright/test';
import { startWeb as startBrowserMode } from '../test/e2e/fixtures';
import { ms, repoRoot } from './lib';

export interface Web {
  readonly child: ChildProcess;
  readonly url: string;
  stop(): Promise<void>;
}

/** `electron-vite build`: browser mode serves the built renderer. */
export function buildApp(): void {
  console.log('building the app (electron-vite build)…');
  const build = spawnSync(process.execPath, [join(repoRoot, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
  if (build.status !== 0) throw new Error('the build failed');
}

/** Browser mode's backend on `userDataDir` (the E2E fixture's), with a way to stop it; `env` adds to its environment. */
export async function startWeb(userDataDir: string, env: Record<string, string> = {}): Promise<Web> {
  const { child, url } = await startBrowserMode(userDataDir, env);
  return {
    child,
    url,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const done = once(child, 'exit');
      child.kill('SIGTERM');
      await done;
    },
  };
}

export async function openApp(browser: Browser, url: string): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
  // tsx (esbuild, keepNames) wraps named functions in the callbacks passed to page.evaluate in __name().
  await page.addInitScript({ content: 'globalThis.__name = (f) => f;' });
  await page.goto(url);
  return page;
}

/** Scroll `selector` by `step` px per frame for `frames` frames; per-frame main-thread time. */
export async function scrollFrames(page: Page, selector: string, frames: number, step: number): Promise<number[]> {
  return page.evaluate(
    ({ selector, frames, step }) =>
      new Promise<number[]>((resolve) => {
        const el = document.querySelector<HTMLElement>(selector)!;
        el.scrollTop = 0;
        const times: number[] = [];
        let scrolledAt = 0;
        const onScroll = () => (scrolledAt = performance.now());
        // Capture: runs before the virtualizer's own scroll listener.
        el.addEventListener('scroll', onScroll, { capture: true });
        let left = frames;
        const frame = () => {
          if (scrolledAt > 0) {
            const start = scrolledAt;
            const channel = new MessageChannel();
            channel.port1.onmessage = () => times.push(performance.now() - start);
            channel.port2.postMessage(null);
            scrolledAt = 0;
          }
          if (left-- <= 0) {
            el.removeEventListener('scroll', onScroll, { capture: true });
            setTimeout(() => resolve(times), 50);
            return;
          }
          el.scrollTop += step;
          requestAnimationFrame(frame);
        };
        requestAnimationFrame(frame);
      }),
    { selector, frames, step },
  );
}

/** A plain list of `rows` rows of `rowPx` (the browser scrolling plain DOM: the scrolling baseline), in a fixed box on top of the page. */
export async function addPlainList(page: Page, id: string, rows: number, rowPx: number, box: { width: number; height: number }): Promise<void> {
  await page.evaluate(
    ({ id, rows, rowPx, box }) => {
      const host = document.createElement('div');
      host.id = id;
      host.style.cssText = `position:fixed;left:0;top:0;width:${box.width}px;height:${box.height}px;overflow-y:auto;background:Canvas;z-index:9999`;
      const list = document.createElement('ul');
      list.style.cssText = 'margin:0;padding:0;list-style:none';
      const item = document.createElement('li');
      item.style.cssText = `height:${rowPx}px;line-height:${rowPx}px;white-space:nowrap`;
      for (let i = 0; i < rows; i++) {
        const li = item.cloneNode() as HTMLLIElement;
        li.textContent = `picker-${String(i).padStart(4, '0')}`;
        list.append(li);
      }
      host.append(list);
      document.body.append(host);
    },
    { id, rows, rowPx, box },
  );
}

/** Prints one figure against its target (less than) with its ratio to the baseline; returns whether it met the target. */
export function verdict(name: string, value: number, target: number, baseline: number, detail: string): boolean {
  const pass = value < target;
  console.log(`${pass ? 'PASS' : 'FAIL'}  ${name}: ${ms(value)} (target < ${target} ms), ${(value / baseline).toFixed(2)}× baseline ${ms(baseline)} — ${detail}`);
  return pass;
}
