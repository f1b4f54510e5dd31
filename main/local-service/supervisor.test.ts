/**
 * The supervisor against the real service (service/main.ts bundled for the run, as every
 * cross-process test forks it: test/helpers/entries.ts) and, for the failure paths a healthy
 * service never takes, tiny real child programs.
 * What it must guarantee: one child at a time whatever the order of start/stop calls, no `failed`
 * that is not a failure, each failure published once.
 */
import { EventEmitter } from 'node:events';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LocalServiceState } from '../../common/local-service';
import { serviceEntry, serviceExecArgv, tempDir } from '../../test/helpers/backend';
import { LocalServiceSupervisor, type ServiceProcess, type SpawnService, type SupervisorOptions } from './supervisor';

interface Harness {
  readonly supervisor: LocalServiceSupervisor;
  readonly dataDir: string;
  /** Every published state, in order. */
  readonly states: LocalServiceState[];
  readonly logs: string[];
  statuses(): string[];
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function harness(options: Partial<SupervisorOptions> = {}): Harness {
  const dir = tempDir('fleet-desk-supervisor-');
  const states: LocalServiceState[] = [];
  const logs: string[] = [];
  const dataDir = join(dir.path, 'local-service');
  const supervisor = new LocalServiceSupervisor({
    entry: serviceEntry,
    execArgv: serviceExecArgv,
    dataDir,
    onChange: (state) => states.push(state),
    log: (m) => logs.push(m),
    ...options,
  });
  cleanups.push(dir.remove, () => supervisor.stop());
  return { supervisor, dataDir, states, logs, statuses: () => states.map((s) => s.status) };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Every live process on this machine whose command line names `dataDir` (Linux /proc). */
function processesUsing(dataDir: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    if (cmdline.split('\0').includes(dataDir)) pids.push(Number(name));
  }
  return pids;
}

function portOf(address: string | null): number {
  expect(address).not.toBeNull();
  return Number(address?.slice(address.lastIndexOf(':') + 1));
}

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Waits until the child is gone and its exit has been handled, so a late second `failed` would show. */
async function settledAfterExit(dataDir: string): Promise<void> {
  await until(() => processesUsing(dataDir).length === 0);
  await new Promise((resolve) => setTimeout(resolve, 200));
}

/** A real child program for the paths the real service never takes. */
function program(source: string): string {
  const dir = tempDir('fleet-desk-supervisor-program-');
  cleanups.push(dir.remove);
  const path = join(dir.path, 'child.mjs');
  writeFileSync(path, source);
  return path;
}

describe('LocalServiceSupervisor', () => {
  it('stop then start back to back: the old child is gone first, one child runs, no `failed` on the way', async () => {
    const h = harness();
    await h.supervisor.start();
    const oldPid = h.supervisor.pid;
    expect(oldPid).not.toBeNull();
    h.states.length = 0;

    const stopping = h.supervisor.stop();
    const starting = h.supervisor.start();
    await Promise.all([stopping, starting]);

    expect(h.statuses()).toEqual(['stopping', 'stopped', 'starting', 'running']);
    const newPid = h.supervisor.pid;
    expect(newPid).not.toBeNull();
    expect(newPid).not.toBe(oldPid);
    expect(() => process.kill(oldPid ?? 0, 0)).toThrow();
    expect(processesUsing(h.dataDir)).toEqual([newPid]);

    // Nothing late flips it: a start now is answered by the running child.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.supervisor.state.status).toBe('running');
    await h.supervisor.start();
    expect(h.supervisor.pid).toBe(newPid);
    expect(processesUsing(h.dataDir)).toEqual([newPid]);
    expect(h.statuses()).not.toContain('failed');
  });

  it('start, stop, start, stop in one go ends stopped with no child left', async () => {
    const h = harness();
    const calls = [h.supervisor.start(), h.supervisor.stop(), h.supervisor.start(), h.supervisor.stop()];
    await Promise.all(calls);
    expect(h.supervisor.state.status).toBe('stopped');
    expect(h.statuses()).toEqual(['starting', 'running', 'stopping', 'stopped', 'starting', 'running', 'stopping', 'stopped']);
    expect(processesUsing(h.dataDir)).toEqual([]);
  });

  it('two concurrent starts share one child', async () => {
    const h = harness();
    const [a, b] = await Promise.all([h.supervisor.start(), h.supervisor.start()]);
    expect(a).toEqual(b);
    expect(h.statuses()).toEqual(['starting', 'running']);
    expect(processesUsing(h.dataDir)).toEqual([h.supervisor.pid]);
  });

  it('falls back to a free port when the remembered one is taken, without publishing `failed`', async () => {
    const h = harness();
    const first = await h.supervisor.start();
    const port = portOf(first.address);
    await h.supervisor.stop();

    const squatter: Server = createServer();
    await new Promise<void>((resolve, reject) => {
      squatter.once('error', reject);
      squatter.listen(port, '127.0.0.1', resolve);
    });
    cleanups.push(() => new Promise<void>((resolve) => squatter.close(() => resolve())));
    h.states.length = 0;

    const second = await h.supervisor.start();
    expect(portOf(second.address)).not.toBe(port);
    expect(h.statuses()).toEqual(['starting', 'running']);
    expect(h.logs.some((m) => m.includes(`could not start on port ${port} again`))).toBe(true);
    expect(processesUsing(h.dataDir)).toEqual([h.supervisor.pid]);
  });

  it('a service that exits on its own turns `failed`, with the tail of its stderr', async () => {
    const h = harness();
    await h.supervisor.start();
    const pid = h.supervisor.pid ?? 0;
    process.kill(pid, 'SIGTERM'); // from outside: the service shuts down cleanly and exits 0
    await until(() => h.supervisor.state.status === 'failed');
    const { error } = h.supervisor.state;
    expect(error).toMatch(/exited unexpectedly with code 0/);
    expect(error).toContain('SIGTERM: shutting down');
    expect(h.statuses().filter((s) => s === 'failed')).toHaveLength(1);
    expect(isAlive(pid)).toBe(false);

    // And it starts again from there.
    await h.supervisor.start();
    expect(h.supervisor.state.status).toBe('running');
  });

  it('a bad ready line is one `failed`, with the reason and the stderr tail, and the child is killed', async () => {
    const entry = program(`process.stderr.write('fixture: about to misbehave\\n'); process.stdout.write('hello\\n'); setInterval(() => {}, 1000);\n`);
    const h = harness({ entry, execArgv: [] });
    await expect(h.supervisor.start()).rejects.toThrow(/printed something other than its ready line/);
    await settledAfterExit(h.dataDir);
    expect(h.statuses()).toEqual(['starting', 'failed']);
    expect(h.supervisor.state.error).toContain('fixture: about to misbehave');
    expect(processesUsing(h.dataDir)).toEqual([]);
  });

  it('a service that never reports ready is one `failed` at the timeout, and the child is killed', async () => {
    const entry = program(`setInterval(() => {}, 1000);\n`);
    const h = harness({ entry, execArgv: [], startTimeoutMs: 300 });
    await expect(h.supervisor.start()).rejects.toThrow(/did not report ready within 0.3 s/);
    await settledAfterExit(h.dataDir);
    expect(h.statuses()).toEqual(['starting', 'failed']);
    expect(processesUsing(h.dataDir)).toEqual([]);
  });
});

/** A scripted ServiceProcess, for a spawn function that is not node's fork (the shell's utility process). */
class ScriptedProcess extends EventEmitter implements ServiceProcess {
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  readonly kill = vi.fn((signal: 'SIGTERM' | 'SIGKILL'): boolean => {
    if (signal === 'SIGKILL' || !this.ignoresSigterm) setImmediate(() => this.end(signal === 'SIGKILL' ? null : 0, signal === 'SIGKILL' ? 'SIGKILL' : null));
    return true;
  });
  constructor(
    readonly pid: number,
    readonly ignoresSigterm = false,
  ) {
    super();
  }
  ready(): void {
    this.stdout.write(`${JSON.stringify({ address: '127.0.0.1:40000', org_id: 'o', api_key_id: 'k', api_key: 's' })}\n`);
  }
  end(code: number | null, signal: NodeJS.Signals | null): void {
    this.exitCode = code;
    this.signalCode = signal;
    this.emit('exit', code, signal);
  }
}

describe('LocalServiceSupervisor with an injected spawn', () => {
  function scripted(options: { ignoresSigterm?: boolean; stopGraceMs?: number } = {}) {
    const children: ScriptedProcess[] = [];
    const spawn = vi.fn<SpawnService>(() => {
      const child = new ScriptedProcess(1000 + children.length, options.ignoresSigterm);
      children.push(child);
      setImmediate(() => child.ready());
      return child;
    });
    const entry = program('// never run: the injected spawn stands in for it\n');
    const h = harness({ entry, execArgv: ['--flag'], spawn, stopGraceMs: options.stopGraceMs });
    return { ...h, spawn, children };
  }

  it('starts the service through it, with the entry, the arguments and the node flags, and stops it with SIGTERM', async () => {
    const h = scripted();
    const credentials = await h.supervisor.start();
    expect(credentials).toEqual({ address: '127.0.0.1:40000', apiKeyId: 'k', apiKey: 's' });
    expect(h.spawn).toHaveBeenCalledOnce();
    const [entry, args, options] = h.spawn.mock.calls[0]!;
    expect(entry).toMatch(/child\.mjs$/);
    expect(args).toEqual(['--listen', '127.0.0.1:0', '--data-dir', h.dataDir, '--demo']);
    expect(options).toEqual({ execArgv: ['--flag'] });
    expect(h.supervisor.pid).toBe(1000);

    await h.supervisor.stop();
    expect(h.children[0]!.kill.mock.calls).toEqual([['SIGTERM']]);
    expect(h.statuses()).toEqual(['starting', 'running', 'stopping', 'stopped']);
  });

  it('kills a service that ignores SIGTERM with SIGKILL after the grace period', async () => {
    const h = scripted({ ignoresSigterm: true, stopGraceMs: 50 });
    await h.supervisor.start();
    await h.supervisor.stop();
    expect(h.children[0]!.kill.mock.calls).toEqual([['SIGTERM'], ['SIGKILL']]);
    expect(h.statuses()).toEqual(['starting', 'running', 'stopping', 'stopped']);
  });

  it('a spawned process that exits unexpectedly turns `failed` and starts again through the same spawn', async () => {
    const h = scripted();
    await h.supervisor.start();
    h.children[0]!.stderr.write('fixture: lost the database\n');
    await new Promise((resolve) => setImmediate(resolve));
    h.children[0]!.end(7, null);
    expect(h.supervisor.state).toMatchObject({ status: 'failed', error: expect.stringMatching(/exited unexpectedly with code 7 \(fixture: lost the database\)/) });
    await h.supervisor.start();
    expect(h.spawn).toHaveBeenCalledTimes(2);
    expect(h.supervisor.state.status).toBe('running');
  });
});
