/**
 * vitest's global setup, once per project before any test file starts: the entries the tests start
 * as processes and threads (test/helpers/entries.ts) are bundled from the source of this run, so
 * that no test starts code older than the tree it runs in; in watch mode, again before each rerun.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { build } from 'esbuild';
import type { TestProject } from 'vitest/node';
import { entriesDir, entrySources, repoRoot } from './helpers/entries';

/**
 * Bundles the entries. Each file is written beside its place and renamed into it: both projects
 * run this, and a test of one may already be starting a bundle while the other writes the same bytes.
 */
async function buildEntries(): Promise<void> {
  const result = await build({
    absWorkingDir: repoRoot,
    entryPoints: [...entrySources],
    outbase: '.',
    outdir: entriesDir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    // Packages load from node_modules, as in the app's bundles (better-sqlite3 is native).
    packages: 'external',
    write: false,
    logLevel: 'silent',
  });
  for (const file of result.outputFiles) {
    mkdirSync(dirname(file.path), { recursive: true });
    const partial = `${file.path}.${process.pid}.tmp`;
    writeFileSync(partial, file.contents);
    renameSync(partial, file.path);
  }
}

export async function setup(project: TestProject): Promise<void> {
  await buildEntries();
  project.onTestsRerun(async () => {
    // A failed rebuild would leave the last bundles in place silently: say so, and fail the rerun.
    await buildEntries().catch((e: unknown) => {
      console.error(`test/global-setup.ts: bundling the test entries failed: ${String(e)}`);
      throw e;
    });
  });
}
