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
  // Tests run two at a time: each has its own app, service, data dir and ports, and the apps wait
  // on their services and the browser more than they compute, so two share 2 cores well (all
  // passed so, at a load average of 15–20). Test by test rather than file by file: a long file
  // (fleet, training: 85–90 s) taken last kept one worker busy 40 s after the other was done.
  // FLEET_DESK_E2E_WORKERS=1 runs them one at a time.
  fullyParallel: true,
  workers: Number(process.env.FLEET_DESK_E2E_WORKERS) || 2,
  retries: 0,
  reporter: 'list',
  outputDir: '.cache/playwright-results',
  use: {
    screenshot: 'only-on-failure',
    // A failed test keeps a screenshot of its end and the page's ARIA snapshot (error-context.md).
    // No trace by default: recording one for every test, failing or not, took a third of the run's
    // CPU with its screencast (112 s → 73 s wall for fleet + navigation on 2 cores) and ~6% with
    // DOM snapshots alone, and CI's fresh machine keeps none. To look at a failure step by step:
    // `npx playwright test <spec> --project=browser --trace retain-on-failure`.
    trace: 'off',
  },
  projects: [
    { name: 'browser', metadata: { host: 'browser' } },
    { name: 'electron', metadata: { host: 'electron' } },
  ],
});
