/**
 * Builds the preload with the project's electron-vite config and runs the bundle the way a
 * sandboxed renderer would: `require` knows only 'electron' (and the few built-ins Electron's
 * sandbox offers). A dependency left external, e.g. `require("zod")`, throws in a real sandboxed
 * preload, leaving the page with no `window.fleet`; this catches it without an Electron binary.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileFunction } from 'node:vm';
import { resolveConfig } from 'electron-vite';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
// What `require` offers a sandboxed preload besides 'electron' (Electron docs, "Process Sandboxing").
const SANDBOX_MODULES = new Set(['events', 'timers', 'url', 'node:events', 'node:timers', 'node:url']);

let outDir: string;
let code: string;

beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), 'fleet-preload-'));
  const resolved = await resolveConfig({ configFile: join(root, 'electron.vite.config.ts'), logLevel: 'silent' }, 'build', 'production');
  const preload = resolved.config?.preload;
  if (!preload) throw new Error('electron.vite.config.ts has no preload section');
  await build({ ...preload, logLevel: 'silent', build: { ...preload.build, outDir, emptyOutDir: true } });
  const files = readdirSync(outDir);
  if (!files.includes('index.cjs')) throw new Error(`the preload did not build to index.cjs (got ${files.join(', ')})`);
  code = readFileSync(join(outDir, 'index.cjs'), 'utf8');
}, 60_000);

afterAll(() => {
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

describe('the bundled preload', () => {
  it('is one CommonJS file that requires only what a sandboxed preload can', () => {
    expect(readdirSync(outDir)).toEqual(['index.cjs']);
    const required = [...code.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]);
    expect(required.filter((id) => id !== 'electron' && !SANDBOX_MODULES.has(id ?? ''))).toEqual([]);
  });

  it('carries no zod: it checks channel names only (main parses every payload), and it runs before the page on every load', () => {
    expect(code).not.toContain('$ZodType');
    expect(code.length).toBeLessThan(20_000);
  });

  it('runs with a sandbox-only require and exposes the bridge as window.fleet', () => {
    const exposed: [string, unknown][] = [];
    const electron = {
      contextBridge: { exposeInMainWorld: (key: string, api: unknown) => void exposed.push([key, api]) },
      ipcRenderer: { invoke: async () => ({ ok: true, value: null }), on: () => {}, removeListener: () => {} },
    };
    const sandboxRequire = (id: string): unknown => {
      if (id === 'electron') return electron;
      throw new Error(`module not found: ${id} (a sandboxed preload can only require 'electron')`);
    };
    const module = { exports: {} };
    compileFunction(code, ['require', 'module', 'exports'])(sandboxRequire, module, module.exports);
    expect(exposed.map(([key]) => key)).toEqual(['fleet']);
    expect(Object.keys(exposed[0]?.[1] ?? {}).sort()).toEqual(['invoke', 'on', 'pathForFile']);
  });
});
