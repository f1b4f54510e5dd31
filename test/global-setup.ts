/**
 * vitest's global setup, once per project before any test file starts: the entries the tests start
 * as processes and threads are bundled from the source of this run (test/helpers/entries.ts), so
 * that no test starts code older than the tree it runs in; in watch mode, again before each rerun.
 */
import type { TestProject } from 'vitest/node';
import { buildEntries } from './helpers/entries';

export async function setup(project: TestProject): Promise<void> {
  await buildEntries();
  project.onTestsRerun(buildEntries);
}
