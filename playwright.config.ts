import { defineConfig } from '@playwright/test';

/**
 * One set of specs, two ways to run the app: `browser` serves the built app in browser mode to Debian's
 * Chromium; `electron` launches the real desktop app where Electron's binary is installed.
 */
export default defineConfig({
  testDir: 'test/e2e',
  testMatch: '**/*.spec.ts',
  timeout: 90_000,
  expect: { timeout: 15_000 },
  // Spec files run two at a time (a file's tests stay in order, in one worker): each test has its
  // own app, service, data dir and ports, and the apps wait on their services and the browser more
  // than they compute, so two share 2 cores well (all passed so, at a load average of 15–20).
  // FLEET_DESK_E2E_WORKERS=1 runs them one at a time.
  fullyParallel: false,
  workers: Number(process.env.FLEET_DESK_E2E_WORKERS) || 2,
  retries: 0,
  reporter: 'list',
  outputDir: '.cache/playwright-results',
  use: {
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
  },
  projects: [
    { name: 'browser', metadata: { host: 'browser' } },
    { name: 'electron', metadata: { host: 'electron' } },
  ],
});
