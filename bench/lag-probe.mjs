/**
 * Preloaded into browser mode's backend by bench/tree.ts (NODE_OPTIONS=--import): samples the main
 * thread's event-loop delay for the process's whole life and, as it exits, writes p50/p99/max (ms)
 * as JSON to FLEET_BENCH_LAG_FILE. The app itself knows nothing of it.
 */
import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';

const file = process.env.FLEET_BENCH_LAG_FILE;
if (isMainThread && file) {
  const sampler = monitorEventLoopDelay({ resolution: 5 });
  sampler.enable();
  process.on('exit', () => {
    sampler.disable();
    const ms = (ns) => ns / 1e6;
    writeFileSync(file, JSON.stringify({ p50: ms(sampler.percentile(50)), p99: ms(sampler.percentile(99)), max: ms(sampler.max) }));
  });
}
