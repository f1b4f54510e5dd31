import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

const root = import.meta.dirname;

/**
 * In dev only, drop the page's strict CSP <meta>: Vite injects styles inline there, and a meta policy
 * cannot be loosened by a header (both apply). The Electron shell sends the dev policy as a header
 * (main/security/csp.ts devContentSecurityPolicy). The build keeps the strict meta tag.
 */
const devCspFromHeader: Plugin = {
  name: 'fleet-desk:dev-csp-from-header',
  apply: 'serve',
  transformIndexHtml: (html) => html.replace(/\s*<meta http-equiv="Content-Security-Policy"[^>]*>/, ''),
};

export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      lib: {
        // index: the Electron shell; web: the same backend in browser mode; service: the
        // embedded fleet service, started as a child process by both; cache-worker: the thread
        // that does the profile cache's heavy SQLite work off the main thread.
        entry: {
          index: resolve(root, 'main/index.ts'),
          web: resolve(root, 'main/web.ts'),
          service: resolve(root, 'service/main.ts'),
          'cache-worker': resolve(root, 'main/cache/worker.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      lib: { entry: { index: resolve(root, 'preload/index.ts') } },
      // A sandboxed preload can require nothing but 'electron': bundle its dependencies (zod, via common/).
      externalizeDeps: false,
      // A sandboxed preload cannot be an ES module.
      rolldownOptions: { output: { format: 'cjs', entryFileNames: '[name].cjs' } },
    },
  },
  renderer: {
    root: resolve(root, 'renderer'),
    // The renderer root is renderer/, so the plugin would not find svelte.config.js on its own.
    plugins: [svelte({ configFile: resolve(root, 'svelte.config.js') }), devCspFromHeader],
    // In the page, `zod` is zod configured for the page's CSP (renderer/src/zod-config.ts, which
    // imports the real one as `zod/v4`): set before any schema is built, whichever chunk loads it first.
    resolve: { alias: [{ find: /^zod$/, replacement: resolve(root, 'renderer/src/zod-config.ts') }] },
    build: {
      outDir: resolve(root, 'out/renderer'),
      // The window parses every byte on its boot path before its first paint: ship it minified
      // (electron-vite's preset turns minifying off; `electron-vite dev` serves unbundled code anyway).
      minify: true,
      rolldownOptions: { input: { index: resolve(root, 'renderer/index.html') } },
    },
  },
});
