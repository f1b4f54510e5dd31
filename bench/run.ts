/**
 * `npm run bench [-- NAME…]`: runs every benchmark of bench/ (or the named ones), one after the
 * other, each in a process of its own so none warms the JIT or the caches of the next. Each prints
 * its figures and a PASS/FAIL line against its target; the exit code is non-zero if any failed.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const here = import.meta.dirname;
const helpers = new Set(['lib.ts', 'run.ts', 'browser.ts', 'log-seed.ts']);
const all = readdirSync(here)
  .filter((f) => f.endsWith('.ts') && !helpers.has(f) && !f.endsWith('.test.ts'))
  .map((f) => f.slice(0, -3))
  .sort();
const asked = process.argv.slice(2);
const unknown = asked.filter((name) => !all.includes(name));
if (unknown.length > 0) {
  console.error(`No benchmark named ${unknown.join(', ')}; there are: ${all.join(', ')}`);
  process.exit(2);
}
let failed = 0;
for (const name of asked.length > 0 ? asked : all) {
  console.log(`\n== ${name}`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(here, `${name}.ts`)], { stdio: 'inherit' });
  if (result.status !== 0) failed += 1;
}
process.exit(failed > 0 ? 1 : 0);
