/**
 * Issue #20: the demo fleet now starts with a day of logs (service/logs/history.ts), written at setup;
 * a new demo data dir must still be ready within 2 s of `npm start` printing its URL (the backend
 * starts the service after printing it). Measured here, alternating in the same run:
 * - the service's start on a new demo data dir, from spawning it to its ready line, with the history
 *   (`--demo`) and without it (`--demo --log-rate 1`: at a benchmark's fixed log rate the parts write
 *   no history; the rate only changes the simulation, which runs after the ready line);
 * - the setup alone (ensureBootstrap in this process, on a new database), with and without.
 * The figure is the start with the history as a ratio to the start without: the history may cost at
 * most half of what a start costs (≤ 1.5×), which keeps a start that takes about a second under 2 s.
 *
 *   npm run bench -- demo-setup
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { migrate } from '../db/migrate';
import { ensureBootstrap } from '../service/bootstrap';
import { openDatabase } from '../service/db/open';
import { serviceMigrations } from '../service/db/migrations/index';
import { machine, ms, percentile, report, startServiceProcess } from './lib';

const ROUNDS = 5;

/** Spawn → ready line of the service on a new demo data dir. */
async function start(history: boolean): Promise<number> {
  const begin = performance.now();
  const service = await startServiceProcess(history ? ['--demo'] : ['--demo', '--log-rate', '1']);
  const took = performance.now() - begin;
  await service.stop();
  return took;
}

/** The demo setup alone, in this process, on a new database; answers its time and the log lines it wrote. */
async function setup(history: boolean): Promise<{ ms: number; lines: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-bench-'));
  const db = openDatabase(join(dir, 'fleet.db'));
  try {
    migrate(db, serviceMigrations);
    const begin = performance.now();
    await ensureBootstrap(db, dir, { demo: true, demoLogHistory: history, log: () => undefined });
    const took = performance.now() - begin;
    return { ms: took, lines: db.prepare('SELECT count(*) FROM part_logs').pluck().get() as number };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<boolean> {
  // One of each first, so neither pays for the first compile of the service's code.
  await start(false);
  await setup(false);
  const starts = { with: [] as number[], without: [] as number[] };
  const setups = { with: [] as number[], without: [] as number[] };
  let lines = 0;
  for (let i = 0; i < ROUNDS; i++) {
    starts.without.push(await start(false));
    starts.with.push(await start(true));
    setups.without.push((await setup(false)).ms);
    const withHistory = await setup(true);
    setups.with.push(withHistory.ms);
    lines = withHistory.lines;
  }
  const median = (values: number[]) => percentile(values, 50);
  const spread = (values: number[]) => `${ms(Math.min(...values))}–${ms(Math.max(...values))}`;
  console.log(`demo-setup on ${machine()}`);
  console.log(`  setup alone: ${ms(median(setups.without))} without history (${spread(setups.without)}), ${ms(median(setups.with))} with ${lines} lines of history (${spread(setups.with)})`);
  console.log(`  service start (spawn → ready): ${ms(median(starts.without))} without history (${spread(starts.without)}), ${ms(median(starts.with))} with (${spread(starts.with)})`);
  return report({
    name: 'a new demo data dir with a day of logs: service start',
    ratio: median(starts.with) / median(starts.without),
    limit: 1.5,
    detail: `${ms(median(starts.with))} vs ${ms(median(starts.without))} without the history (medians of ${ROUNDS}); the history adds ${ms(median(setups.with) - median(setups.without))} to the setup`,
  });
}

process.exitCode = (await main()) ? 0 : 1;
