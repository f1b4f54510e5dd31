import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { svelte } from '@sveltejs/vite-plugin-svelte';

// Unit tests beside their code, cross-process tests in test/. Playwright specs (*.spec.ts) are not vitest's.
const unitFiles = ['{main,preload,common,service,renderer,db,fleetconfig}/**/*.test.ts'];
// Unit files that replace modules, globals or the environment (vi.mock, vi.stubGlobal, process.env writes),
// or start dynamic imports that may outlive a test (app.test.ts: the pages its routes load): they keep
// a process of their own, as every cross-process test does.
const ownProcess = [
  'main/cache/cache-race.test.ts',
  'main/fs/atomic.test.ts',
  'main/shell/*.test.ts',
  'preload/index.test.ts',
  'renderer/src/app.test.ts',
  'renderer/src/features/registry/draft-checks-load.test.ts',
  'renderer/src/lib/state/registry.test.ts',
  'renderer/src/lib/shell/boot-frame.test.ts',
  'renderer/src/lib/ui/after-paint.test.ts',
];
const exclude = ['test/e2e/**', 'node_modules/**', 'out/**'];

export default defineConfig({
  plugins: [svelte()],
  test: {
    // The service and the cache worker the tests start, bundled from this run's source.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: one file at a time on 2 cores, though most
    // cross-process files wait (on child processes, sockets, timers) more than they compute. Two at a
    // time kept 2 cores 76% busy (350 s of CPU in 229 s); three at a time, 192–200 s in 3 of 3 runs
    // with every test passing. Four on 2 cores once made timing-bound service tests time out. On
    // more cores, one file per core.
    maxWorkers: Math.max(3, availableParallelism()),
    projects: [
      {
        extends: true,
        // Pure units share their worker processes: no fresh module graph per file.
        test: { name: 'unit', include: unitFiles, exclude: [...exclude, ...ownProcess], isolate: false },
      },
      {
        extends: true,
        test: { name: 'integration', include: ['test/**/*.test.ts', ...ownProcess], exclude },
      },
    ],
  },
});
