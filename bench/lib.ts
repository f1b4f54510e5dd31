/**
 * What every benchmark shares: starting the real fleet service in its own process, percentiles, and
 * printing a result as a ratio to the baseline measured in the same run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export const repoRoot = join(import.meta.dirname, '..');

export interface ServiceProcess {
  readonly address: string;
  readonly apiKeyId: string;
  readonly apiKey: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * The fleet service (service/main.ts through tsx) in a child process, on a fresh data dir (removed
 * when it stops) or on `options.dataDir` (kept).
 */
export async function startServiceProcess(extraArgs: readonly string[] = [], options: { dataDir?: string } = {}): Promise<ServiceProcess> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'fleet-bench-'));
  const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'service', 'main.ts'), '--listen', '127.0.0.1:0', '--data-dir', dataDir, ...extraArgs], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = once(child, 'exit').then(() => {
    throw new Error(`the service exited before it was ready:\n${stderr}`);
  });
  const [line] = (await Promise.race([once(createInterface({ input: child.stdout! }), 'line'), exited])) as [string];
  const ready = JSON.parse(line) as { address: string; api_key_id: string; api_key: string };
  return {
    address: ready.address,
    apiKeyId: ready.api_key_id,
    apiKey: ready.api_key,
    child,
    async stop() {
      if (child.exitCode === null) {
        const done = once(child, 'exit');
        child.kill('SIGTERM');
        await done;
      }
      if (options.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export const ms = (n: number) => `${n.toFixed(n < 10 ? 2 : 1)} ms`;

/** The machine line every result starts with (docs/BENCHMARKS.md records it). */
export function machine(): string {
  const cpu = cpus();
  return `${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}`;
}

export interface Verdict {
  readonly name: string;
  /** The measured figure divided by its baseline. */
  readonly ratio: number;
  /** The ratio the issue allows (pass when ratio ≤ limit). */
  readonly limit: number;
  readonly detail: string;
}

/** Prints one result line; returns whether it met its target. */
export function report(verdict: Verdict): boolean {
  const pass = verdict.ratio <= verdict.limit;
  console.log(`${pass ? 'PASS' : 'FAIL'}  ${verdict.name}: ${verdict.ratio.toFixed(2)}× baseline (target ≤ ${verdict.limit}×) — ${verdict.detail}`);
  return pass;
}
