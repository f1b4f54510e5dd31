/**
 * The local service in an Electron utility process: the adapter against the fake `utilityProcess`
 * (scripted as Electron's own UtilityProcess behaves), then the supervisor starting and stopping the
 * real service through it (the fake backs the utility process with a real node child, without IPC).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LocalServiceState } from '../../common/local-service';
import { fake, FakeUtilityProcess, resetFakeElectron } from '../../test/electron/fake-electron';
import { serviceEntry, serviceExecArgv } from '../../test/helpers/backend';
import { LocalServiceSupervisor, type ServiceProcess } from '../local-service/supervisor';
import { createUtilityServiceSpawner, OUTPUT_DRAIN_MS, SERVICE_NAME, spawnServiceInUtilityProcess } from './utility-service';

vi.mock('electron', async () => (await import('../../test/electron/fake-electron')).electronModule);

const cleanups: (() => Promise<void> | void)[] = [];
beforeEach(resetFakeElectron);
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function collect(stream: Readable): () => string {
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return () => text;
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

function started(options: Parameters<typeof createUtilityServiceSpawner>[0] = {}) {
  const service: ServiceProcess = createUtilityServiceSpawner(options)('/app/out/main/service.js', ['--listen', '127.0.0.1:0'], { execArgv: [] });
  const child = FakeUtilityProcess.instances.at(-1);
  if (!child) throw new Error('utilityProcess.fork was not called');
  return { service, child };
}

describe('the utilityProcess adapter', () => {
  it('forks the entry with piped output and its own name', () => {
    spawnServiceInUtilityProcess('/app/out/main/service.js', ['--data-dir', '/d'], { execArgv: ['--trace-warnings'] });
    expect(fake.utilityProcess.fork).toHaveBeenCalledExactlyOnceWith('/app/out/main/service.js', ['--data-dir', '/d'], {
      stdio: 'pipe',
      serviceName: SERVICE_NAME,
      execArgv: ['--trace-warnings'],
    });
    expect(SERVICE_NAME).toBe('Fleet Desk service');
  });

  it("passes the child's output on and takes its pid once spawned", async () => {
    const { service, child } = started();
    const out = collect(service.stdout);
    const err = collect(service.stderr);
    expect(service.pid).toBeUndefined();
    child.spawned(321);
    expect(service.pid).toBe(321);
    child.stdout?.write('{"address":"127.0.0.1:1"}\n');
    child.stderr?.write('starting\n');
    await turn();
    expect(out()).toBe('{"address":"127.0.0.1:1"}\n');
    expect(err()).toBe('starting\n');
    expect(service.exitCode).toBeNull();
  });

  it('SIGTERM is kill(); SIGKILL goes to the pid on POSIX', () => {
    const killPid = vi.fn();
    const { service, child } = started({ platform: 'linux', killPid });
    child.spawned(321);
    service.kill('SIGTERM');
    expect(child.kill).toHaveBeenCalledOnce();
    expect(killPid).not.toHaveBeenCalled();
    expect(service.kill('SIGKILL')).toBe(true);
    expect(killPid).toHaveBeenCalledExactlyOnceWith(321, 'SIGKILL');
    expect(child.kill).toHaveBeenCalledOnce();
  });

  it('SIGKILL of a process already gone reports false', () => {
    const killPid = vi.fn(() => {
      throw Object.assign(new Error('kill ESRCH'), { code: 'ESRCH' });
    });
    const { service, child } = started({ platform: 'darwin', killPid });
    child.spawned(321);
    expect(service.kill('SIGKILL')).toBe(false);
  });

  it('on Windows, SIGTERM and SIGKILL are both kill() (TerminateProcess)', () => {
    const killPid = vi.fn();
    const { service, child } = started({ platform: 'win32', killPid });
    child.spawned(321);
    service.kill('SIGTERM');
    service.kill('SIGKILL');
    expect(child.kill).toHaveBeenCalledTimes(2);
    expect(killPid).not.toHaveBeenCalled();
  });

  it('holds a kill asked before the process has spawned until it has', () => {
    const killPid = vi.fn();
    const { service, child } = started({ platform: 'linux', killPid });
    service.kill('SIGTERM');
    service.kill('SIGKILL');
    expect(child.kill).not.toHaveBeenCalled();
    expect(killPid).not.toHaveBeenCalled();
    child.spawned(55);
    // The stronger request wins.
    expect(killPid).toHaveBeenCalledExactlyOnceWith(55, 'SIGKILL');
  });

  it("reports 'exit' once, after the output that was still on its way, though Electron drops its listeners", async () => {
    const { service, child } = started();
    const err = collect(service.stderr);
    const exits: unknown[][] = [];
    service.once('exit', (...args) => exits.push(args));
    child.spawned(9);
    const { stdout, stderr } = child;
    if (!stdout || !stderr) throw new Error('no output streams');
    stderr.write('first line\n');
    child.exited(3);
    expect(child.stderr).toBeNull(); // as Electron does: forgotten, every listener removed
    expect(stderr.listenerCount('data')).toBe(1); // ours, put back
    expect(exits).toEqual([]); // not yet: the last output may still come
    stderr.write('the reason it crashed\n');
    await turn();
    expect(exits).toEqual([]);
    stderr.end();
    stdout.end();
    await new Promise((resolve) => service.stderr.once('end', resolve));
    await turn();
    expect(err()).toBe('first line\nthe reason it crashed\n');
    expect(exits).toEqual([[3, null]]);
    expect(service.exitCode).toBe(3);
    expect(service.signalCode).toBeNull();
    expect(service.kill('SIGTERM')).toBe(false);
    expect(child.kill).not.toHaveBeenCalled();
  });

  it(`reports 'exit' after ${OUTPUT_DRAIN_MS} ms when the output never ends`, async () => {
    const { service, child } = started();
    const exits: unknown[][] = [];
    service.once('exit', (...args) => exits.push(args));
    const outputEnded = new Promise((resolve) => service.stdout.once('end', resolve).resume());
    child.spawned(9);
    child.exited(0);
    await new Promise((resolve) => setTimeout(resolve, OUTPUT_DRAIN_MS / 2));
    expect(exits).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, OUTPUT_DRAIN_MS));
    expect(exits).toEqual([[0, null]]);
    await outputEnded; // the streams handed out are ended, so their readers close
  });

  it("writes Electron's fatal 'error' to stderr, where the supervisor's failure message finds it", async () => {
    const { service, child } = started();
    const err = collect(service.stderr);
    child.spawned(9);
    child.emit('error', 'FatalError', 'v8::Isolate::Foo', '{}');
    await turn();
    expect(err()).toContain('FatalError at v8::Isolate::Foo');
  });
});

describe('the supervisor with the utilityProcess adapter', () => {
  function harness(entry = serviceEntry, execArgv = serviceExecArgv) {
    fake.utilityProcess.runWithNode = true;
    const dir = mkdtempSync(join(tmpdir(), 'fleet-utility-service-'));
    const states: LocalServiceState[] = [];
    const logs: string[] = [];
    const supervisor = new LocalServiceSupervisor({
      entry,
      execArgv,
      spawn: spawnServiceInUtilityProcess,
      dataDir: join(dir, 'local-service'),
      onChange: (state) => states.push(state),
      log: (m) => logs.push(m),
    });
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }), () => supervisor.stop());
    return { supervisor, dir, states, logs };
  }

  it('starts the real service, reads its ready line, and stops it with SIGTERM', async () => {
    const h = harness();
    const credentials = await h.supervisor.start();
    expect(credentials.address).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(fake.utilityProcess.fork).toHaveBeenCalledOnce();
    const child = FakeUtilityProcess.instances[0];
    expect(child?.options).toMatchObject({ stdio: 'pipe', serviceName: SERVICE_NAME });
    const pid = h.supervisor.pid;
    expect(pid).toBeTypeOf('number');

    await h.supervisor.stop();
    expect(h.states.map((s) => s.status)).toEqual(['starting', 'running', 'stopping', 'stopped']);
    expect(child?.kill).toHaveBeenCalledOnce();
    expect(() => process.kill(pid ?? 0, 0)).toThrow();
    // It shut down cleanly (SIGTERM, not a kill), and said so on stderr.
    expect(h.logs.some((m) => m.includes('SIGTERM: shutting down'))).toBe(true);
  });

  it("a service that crashes at start fails with its stderr's last words", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleet-utility-crash-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const entry = join(dir, 'crash.mjs');
    writeFileSync(entry, `process.stderr.write('fixture: the database is on fire\\n'); process.exit(3);\n`);
    const h = harness(entry, []);
    await expect(h.supervisor.start()).rejects.toThrow(/exited with code 3: .*the database is on fire/);
    expect(h.states.map((s) => s.status)).toEqual(['starting', 'failed']);
  });
});
