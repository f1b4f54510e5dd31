/**
 * The processes and threads the cross-process tests start — the local fleet service and the
 * profile cache's worker — as JavaScript bundled from the source at the start of each vitest run
 * (test/global-setup.ts), the way the app runs them (electron-vite bundles the same two entries
 * into out/main). Starting them through tsx instead cost ~0.6 s of CPU per start, a third of the
 * unit and integration run's CPU on 2 cores. `service/main.ts` through tsx's loader, as
 * `npm run service` runs it, keeps its own test (test/service/cli.test.ts).
 */
import { join } from 'node:path';

export const repoRoot = join(import.meta.dirname, '..', '..');
/** Where the bundles go: inside the repository, so that their imports of packages resolve to node_modules. */
export const entriesDir = join(repoRoot, '.cache', 'test-entries');
/** The sources bundled, relative to the repository (each lands at the same path under entriesDir, as .js). */
export const entrySources = ['service/main.ts', 'main/cache/worker.ts'] as const;
/** The fleet service's CLI (service/main.ts), to fork or spawn with node alone. */
export const serviceEntry = join(entriesDir, 'service', 'main.js');
/** The profile cache's worker thread (main/cache/worker.ts). */
export const cacheWorkerEntry = join(entriesDir, 'main', 'cache', 'worker.js');
