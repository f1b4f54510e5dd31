/**
 * What the window evaluates before its first frame: the page's entry chunk and every chunk it
 * imports statically (the sandboxed preload is checked in test/electron/preload-bundle.test.ts).
 * zod and common/'s request schemas stay off that path: they were ~100 KB of code the page parsed
 * and ran (every schema of every domain built at load) before it could draw the tree. The forms
 * that check input with them load it when first shown. Built with the project's electron-vite
 * config, so a static import that drags them back in fails here.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { resolveConfig } from 'electron-vite';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
/** A string zod's core code carries whatever the minifier does: its schemas' constructor names. */
const ZOD_MARK = '$ZodType';

let outDir: string;
/** The chunks the page loads before it runs (paths under outDir), and the code of each. */
const boot = new Map<string, string>();
/** Every chunk the build wrote, with its code. */
const all = new Map<string, string>();
/** The start page's chunk (the fleet page: what a launch with nothing selected shows) and the chunks it imports statically, beyond the boot's. */
const startPage = new Map<string, string>();

/** Relative chunks a chunk imports statically (`import … from "./x.js"`, `export … from`, `import "./x.js"`), not `import("./x.js")`. */
function staticImports(code: string): string[] {
  return [...code.matchAll(/(?:\bfrom\s*|\bimport\s*)["'](\.\/[^"']+\.js)["']/g)].map((m) => m[1]!);
}

beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), 'fleet-renderer-'));
  const resolved = await resolveConfig({ configFile: join(root, 'electron.vite.config.ts'), logLevel: 'silent' }, 'build', 'production');
  const renderer = resolved.config?.renderer;
  if (!renderer) throw new Error('electron.vite.config.ts has no renderer section');
  const output = await build({ ...renderer, logLevel: 'silent', build: { ...renderer.build, outDir, emptyOutDir: true } });
  for (const result of Array.isArray(output) ? output : [output]) {
    if (!('output' in result)) throw new Error('the renderer build did not return its chunks');
    for (const chunk of result.output) {
      if (chunk.type !== 'chunk') continue;
      all.set(chunk.fileName, chunk.code);
      if (chunk.facadeModuleId?.endsWith('/features/fleet/FleetPage.svelte')) startPage.set(chunk.fileName, chunk.code);
    }
  }
  const html = readFileSync(join(outDir, 'index.html'), 'utf8');
  const entries = [...html.matchAll(/<(?:script type="module"[^>]*\bsrc|link rel="modulepreload"[^>]*\bhref)="\.\/([^"]+)"/g)].map((m) => m[1]!);
  const visit = (file: string) => {
    if (boot.has(file)) return;
    const code = all.get(file);
    if (code === undefined) throw new Error(`the page loads ${file}, which the build did not write`);
    boot.set(file, code);
    for (const name of staticImports(code)) visit(posix.join(posix.dirname(file), name));
  };
  for (const entry of entries) visit(entry);
  const more = (file: string) => {
    for (const name of staticImports(all.get(file) ?? '')) {
      const next = posix.join(posix.dirname(file), name);
      if (boot.has(next) || startPage.has(next)) continue;
      startPage.set(next, all.get(next) ?? '');
      more(next);
    }
  };
  for (const file of [...startPage.keys()]) more(file);
}, 120_000);

afterAll(() => {
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

describe("the window's boot path", () => {
  it('is found: an entry chunk and the chunks it imports statically', () => {
    expect(boot.size).toBeGreaterThanOrEqual(1);
    expect([...boot.values()].some((code) => code.includes('fleet'))).toBe(true);
  });

  it('loads no zod and no request schema', () => {
    const withZod = [...boot].filter(([, code]) => code.includes(ZOD_MARK)).map(([file]) => file);
    expect(withZod).toEqual([]);
    // Not a vacuous check: zod is in the build, in a chunk loaded later.
    expect([...all].some(([file, code]) => !boot.has(file) && code.includes(ZOD_MARK))).toBe(true);
  });

  it("is followed by the start page's chunk, which loads no zod either (its dialogs load theirs when opened)", () => {
    // The fleet page loads as soon as the app routes, beside the tree's first answers.
    expect(startPage.size).toBeGreaterThanOrEqual(1);
    expect([...startPage].filter(([, code]) => code.includes(ZOD_MARK) || code.includes('must not be empty')).map(([file]) => file)).toEqual([]);
  });

  it('configures zod for the CSP before any schema is built, in the chunk that loads it', () => {
    // renderer/src/zod-config.ts (the page's `zod`): jitless, so zod never probes for eval.
    const withZod = [...all.values()].filter((code) => code.includes(ZOD_MARK));
    expect(withZod).toHaveLength(1);
    const code = withZod[0]!;
    const config = code.search(/\(\{jitless:!0\}\)/);
    expect(config).toBeGreaterThan(0);
    // The first schema common/ builds: `id` (common/schemas.ts), "must not be empty".
    expect(code.indexOf('must not be empty')).toBeGreaterThan(config);
  });
});
