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
  fullyParallel: false,
  workers: 1,
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
