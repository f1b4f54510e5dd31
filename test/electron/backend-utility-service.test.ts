/**
 * The desktop app's way of starting the local service, end to end short of Electron itself: the real
 * Backend given the shell's utilityProcess spawner (main/shell/utility-service.ts) runs the real
 * service through it, the fake `utilityProcess` backing it with a node child that has no IPC channel,
 * as a utility process has none. The demo fleet syncs, a stop is a clean SIGTERM, and closing the
 * backend leaves no service behind.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryKeychain } from '../../main/keychain/keychain';
import { spawnServiceInUtilityProcess } from '../../main/shell/utility-service';
import { DEMO_ORGANIZATIONS } from '../../service/demo';
import { openTestBackend, tempDir, type TestBackend } from '../helpers/backend';
import { fake, FakeUtilityProcess, resetFakeElectron } from './fake-electron';

vi.mock('electron', async () => (await import('./fake-electron')).electronModule);

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('the Backend with the shell’s utility-process spawner', () => {
  let dir: ReturnType<typeof tempDir>;
  let app: TestBackend;

  beforeEach(async () => {
    resetFakeElectron();
    fake.utilityProcess.runWithNode = true;
    dir = tempDir('fleet-desk-utility-backend-');
    app = await openTestBackend(dir.path, {
      spawnService: spawnServiceInUtilityProcess,
      keychain: { store: new MemoryKeychain(), status: { available: false, reason: 'no keychain in this test' } },
    });
  });
  afterEach(async () => {
    await app.close();
    dir.remove();
  });

  it('starts the local service in a utility process, syncs the demo fleet, and stops it cleanly', async () => {
    await app.backend.start();
    expect(fake.utilityProcess.fork).toHaveBeenCalledOnce();
    expect(fake.utilityProcess.fork.mock.calls[0]?.[2]).toMatchObject({ stdio: 'pipe', serviceName: 'Fleet Desk service' });
    const { orgs } = await app.value('orgs.list', {});
    expect(orgs.map((o) => o.name).sort()).toEqual(DEMO_ORGANIZATIONS.map((o) => o.name).sort());

    const child = FakeUtilityProcess.instances[0];
    const pid = child?.pid;
    expect(pid).toBeTypeOf('number');
    expect((await app.value('localService.stop', {})).status).toBe('stopped');
    expect(child?.kill).toHaveBeenCalledOnce();
    expect(isAlive(pid ?? 0)).toBe(false);
    expect(app.logs.join('\n')).toContain('SIGTERM: shutting down');
  });

  it('closing the backend stops the service it started', async () => {
    await app.backend.start();
    const pid = FakeUtilityProcess.instances[0]?.pid ?? 0;
    expect(isAlive(pid)).toBe(true);
    await app.close();
    expect(isAlive(pid)).toBe(false);
  });
});
