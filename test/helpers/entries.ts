/**
 * The processes and threads the cross-process tests start — the local fleet service and the
 * profile cache's worker — as JavaScript bundled from the source at the start of each vitest run
 * (test/global-setup.ts), the way the app runs them (electron-vite bundles the same two entries
 * into out/main). Starting them through tsx instead cost ~0.6 s of CPU per start, a third of the
 * unit and integration run's CPU on 2 cores. `service/main.ts` through tsx, as `npm run service`
 * starts it, keeps its own tests (test/service/cli.test.ts).
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';

export const repoRoot = join(import.meta.dirname, '..', '..');
/** Where the bundles go: inside the repository, so that their imports of packages resolve to node_modules. */
export const entriesDir = join(repoRoot, '.cache', 'test-entries');
/** The fleet service's CLI (service/main.ts), to fork or spawn with node alone. */
export const serviceEntry = join(entriesDir, 'service', 'main.js');
/** The profile cache's worker thread (main/cache/worker.ts). */
export const cacheWorkerEntry = join(entriesDir, 'main', 'cache', 'worker.js');

/**
 * Bundles both entries from the source. Each file is written beside its place and renamed into it:
 * vitest runs this once per project, and a test of one project may already be starting a bundle
 * while the other project writes the same bytes.
 */
export async function buildEntries(): Promise<void> {
  const result = await build({
    absWorkingDir: repoRoot,
    entryPoints: ['service/main.ts', 'main/cache/worker.ts'],
    outbase: '.',
    outdir: entriesDir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    // Packages load from node_modules, as in the app's bundles (better-sqlite3 is native).
    packages: 'external',
    sourcemap: 'inline',
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
