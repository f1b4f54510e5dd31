/**
 * Builds and serves bench/harness (the config kit's page: index.html, main.ts) as the app is
 * built and served: Vite with the renderer's Svelte setup, then plain static files over loopback
 * http with the app's Content-Security-Policy header (main/security/csp.ts), so that what works
 * here works under the app's CSP (no eval, no inline styles).
 *
 *     const harness = await serveHarness(await buildHarness());  // harness.url, harness.close()
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import sirv from 'sirv';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { build } from 'vite';
import { CONTENT_SECURITY_POLICY } from '../../main/security/csp';

const root = join(import.meta.dirname, '..', '..');
const outDir = join(root, 'out', 'bench-harness');

/** `vite build` of the harness into out/bench-harness; answers the folder. */
export async function buildHarness(): Promise<string> {
  await build({
    root: import.meta.dirname,
    configFile: false,
    logLevel: 'warn',
    plugins: [svelte({ configFile: join(root, 'svelte.config.js') })],
    build: { outDir, emptyOutDir: true, rolldownOptions: { input: join(import.meta.dirname, 'index.html') } },
  });
  return outDir;
}

/** Serves `dir` on 127.0.0.1 with the app's CSP; `url` is the page. */
export async function serveHarness(dir: string): Promise<{ url: string; close(): Promise<void> }> {
  const assets = sirv(dir, { dev: false, dotfiles: false });
  const server = createServer((req, res) => {
    res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    assets(req, res, () => {
      res.statusCode = 404;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/index.html`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
