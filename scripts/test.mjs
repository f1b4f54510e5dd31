// `npm test`: every check the project has, in one run, with one total at the end.
//   proto freshness, lint, typecheck (tsc per process + svelte-check), build, unit + integration
//   tests (vitest), E2E (Playwright: browser mode in Chromium; Electron where its binary exists).
// The last line is the total, alone on a line: `N passed, N failed, N skipped`. Gates (proto, lint,
// typecheck, build) count as one check each; test suites count their tests.
//
// Keychain tests need a real Secret Service: when this machine has dbus-run-session and
// gnome-keyring-daemon and we are not inside such a session yet, the run re-executes itself inside one.
import { spawn, spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installedElectron } from './electron-binary.mjs';
import { playwrightFailures, vitestFailures } from './test-failures.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const which = (name) => spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim() || null;

if (!process.env.FLEET_DESK_TEST_KEYRING && which('dbus-run-session') && which('gnome-keyring-daemon')) {
  const result = spawnSync('dbus-run-session', ['--', join(root, 'scripts', 'with-keyring.sh'), process.execPath, ...process.argv.slice(1)], {
    cwd: root,
    stdio: 'inherit',
  });
  process.exit(result.status ?? 1);
}

const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(`Fleet Desk needs Node 24 or newer (Electron 45's runtime); this is ${process.version}. .ci/run provisions it.`);
  process.exit(1);
}

const reports = join(root, '.cache', 'test-reports');
rmSync(reports, { recursive: true, force: true });
mkdirSync(reports, { recursive: true });

const started = Date.now();
const rows = [];
let passed = 0;
let failed = 0;
let skipped = 0;
/** What failed, by name: printed last, beside the total, so that a run's tail says which test to look at. */
const failures = [];

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const timings = [];

function run(command, args, env = {}) {
  console.log(`\n$ ${[command, ...args].join(' ')}`);
  const start = Date.now();
  const ok = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } }).status === 0;
  console.log(`(${seconds(Date.now() - start)})`);
  return ok;
}

/** One command with its output kept aside, so that commands running side by side print whole. */
function runBuffered(command, args) {
  const start = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: process.stdout.isTTY ? '1' : '0' } });
    const chunks = [];
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    const done = (ok, extra = '') => {
      const output = Buffer.concat(chunks).toString() + extra;
      console.log(`\n$ ${[command, ...args].join(' ')}\n${output.replace(/\n?$/, '\n')}(${seconds(Date.now() - start)})`);
      resolve(ok);
    };
    child.once('error', (e) => done(false, `\n${e.message}`));
    child.once('close', (code) => done(code === 0));
  });
}

/**
 * The gates: each is one check however many commands it takes, and none depends on another, so
 * their commands run side by side, as many at a time as the machine has cores (the slowest first).
 */
async function gates(list) {
  const start = Date.now();
  const jobs = list.flatMap(({ name, steps }) => steps.map(([command, args, weight]) => ({ name, command, args, weight })));
  jobs.sort((a, b) => b.weight - a.weight);
  const results = new Map(list.map(({ name }) => [name, true]));
  const queue = [...jobs];
  const worker = async () => {
    for (let job = queue.shift(); job; job = queue.shift()) {
      if (!(await runBuffered(job.command, job.args))) results.set(job.name, false);
    }
  };
  const width = Math.max(1, Math.min(jobs.length, Number(process.env.FLEET_DESK_TEST_JOBS) || availableParallelism()));
  await Promise.all(Array.from({ length: width }, worker));
  timings.push([`gates (${width} at a time)`, Date.now() - start]);
  for (const { name } of list) {
    const ok = results.get(name);
    rows.push([name, ok ? '1 passed' : '1 failed']);
    if (ok) passed += 1;
    else failed += 1;
  }
  return results;
}

// Weights: about the seconds each took alone on 2 cores, so that the slowest start first.
const gateResults = await gates([
  { name: 'proto up to date', steps: [[process.execPath, [join(root, 'scripts', 'gen-proto.mjs'), '--check'], 1]] },
  { name: 'lint', steps: [[bin('eslint'), ['--max-warnings', '0', '.'], 16]] },
  {
    name: 'typecheck',
    steps: [
      ...['main', 'preload', 'service', 'tools'].map((p) => [bin('tsc'), ['-p', `tsconfig.${p}.json`], { main: 8, preload: 3, service: 7, tools: 17 }[p]]),
      [bin('svelte-check'), ['--tsconfig', './tsconfig.web.json', '--fail-on-warnings', '--output', 'human'], 15],
    ],
  },
  { name: 'build', steps: [[bin('electron-vite'), ['build'], 4]] },
]);
const built = gateResults.get('build');

// Unit and integration tests.
const vitestReport = join(reports, 'vitest.json');
const vitestStart = Date.now();
run(bin('vitest'), ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestReport}`]);
timings.push(['unit + integration (vitest)', Date.now() - vitestStart]);
if (existsSync(vitestReport)) {
  const r = JSON.parse(readFileSync(vitestReport, 'utf8'));
  // A suite that fails to load counts as a failure even though it ran no test.
  const broken = r.testResults.filter((f) => f.status === 'failed' && f.assertionResults.length === 0).length;
  failures.push(...vitestFailures(r, root));
  const s = { passed: r.numPassedTests, failed: r.numFailedTests + broken, skipped: r.numPendingTests + r.numTodoTests };
  rows.push(['unit + integration (vitest)', `${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped`]);
  passed += s.passed;
  failed += s.failed;
  skipped += s.skipped;
} else {
  rows.push(['unit + integration (vitest)', 'did not report: 1 failed']);
  failed += 1;
}

// End to end.
if (built) {
  const e2eReport = join(reports, 'playwright.json');
  const electron = installedElectron();
  const display = !process.env.DISPLAY && electron && which('xvfb-run');
  const args = ['test', '--reporter=list,json'];
  const env = { PLAYWRIGHT_JSON_OUTPUT_NAME: e2eReport };
  const e2eStart = Date.now();
  if (display) run('xvfb-run', ['-a', bin('playwright'), ...args], env);
  else run(bin('playwright'), args, env);
  timings.push(['end to end (playwright)', Date.now() - e2eStart]);
  if (existsSync(e2eReport)) {
    const report = JSON.parse(readFileSync(e2eReport, 'utf8'));
    const { stats } = report;
    failures.push(...playwrightFailures(report));
    const s = { passed: stats.expected + stats.flaky, failed: stats.unexpected, skipped: stats.skipped };
    rows.push(['end to end (playwright)', `${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped${electron ? '' : ' (Electron binary not installed: Electron project skipped)'}`]);
    passed += s.passed;
    failed += s.failed;
    skipped += s.skipped;
  } else {
    rows.push(['end to end (playwright)', 'did not report: 1 failed']);
    failed += 1;
  }
} else {
  rows.push(['end to end (playwright)', 'not run: the build failed (1 failed)']);
  failed += 1;
}

console.log('\nTime');
for (const [name, ms] of timings) console.log(`  ${name.padEnd(30)} ${seconds(ms)}`);
console.log(`  ${'total'.padEnd(30)} ${seconds(Date.now() - started)}`);

if (failures.length > 0) {
  console.log('\nFailed');
  for (const line of failures) console.log(`  ${line}`);
}

console.log('\nSummary');
for (const [name, result] of rows) console.log(`  ${name.padEnd(30)} ${result}`);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 ? 1 : 0);
