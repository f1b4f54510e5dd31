/**
 * What every benchmark shares: starting the real fleet service in its own process, percentiles, and
 * printing a result as a ratio to the baseline measured in the same run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
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
/**
 * CPU seconds (user + system) that each of `roots` and its descendants have used so far, read from
 * /proc (Linux; zeros elsewhere). Where the cores went is what a throughput figure on a small machine
 * needs beside it. Assumes the usual 100 clock ticks a second.
 */
export function cpuSeconds(roots: readonly number[]): number[] {
  const parent = new Map<number, number>();
  const ticks = new Map<number, number>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return roots.map(() => 0);
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces): state, ppid, …; utime and stime are the 12th and 13th.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parent.set(Number(name), Number(fields[1]));
      ticks.set(Number(name), Number(fields[11]) + Number(fields[12]));
    } catch {
      // gone meanwhile
    }
  }
  const rootOf = (pid: number): number | undefined => {
    for (let p: number | undefined = pid; p !== undefined && p > 1; p = parent.get(p)) if (roots.includes(p)) return p;
    return undefined;
  };
  const sums = new Map<number, number>();
  for (const [pid, t] of ticks) {
    const root = rootOf(pid);
    if (root !== undefined) sums.set(root, (sums.get(root) ?? 0) + t);
  }
  return roots.map((r) => (sums.get(r) ?? 0) / 100);
}

/** Direct children of `pid` and their command names, from /proc (Linux; none elsewhere). */
export function childProcesses(pid: number): { pid: number; name: string }[] {
  try {
    return readdirSync('/proc')
      .filter((n) => /^\d+$/.test(n))
      .flatMap((n) => {
        try {
          const stat = readFileSync(`/proc/${n}/stat`, 'utf8');
          const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
          return ppid === pid ? [{ pid: Number(n), name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) }] : [];
        } catch {
          return [];
        }
      });
  } catch {
    return [];
  }
}

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
