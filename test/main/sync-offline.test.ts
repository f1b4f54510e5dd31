/**
 * Sync, then offline reads with the service gone, then back online — through the real backend, a real
 * fleet service on a loopback port, real SQLite caches and the real keychain (or its session fallback).
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../service/server';
import { DEMO_ORGANIZATIONS } from '../../service/demo';
import { MemoryKeychain } from '../../main/keychain/keychain';
import { openTestBackend, repoRoot, tempDir, type TestBackend } from '../helpers/backend';

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('first launch on the embedded local service', () => {
  let dir: ReturnType<typeof tempDir>;
  let app: TestBackend;

  beforeEach(async () => {
    dir = tempDir('fleet-desk-main-');
    app = await openTestBackend(dir.path);
  });
  afterEach(async () => {
    await app.close();
    dir.remove();
  });

  it('creates the local demo profile, starts the service with the demo fleet, and syncs it', async () => {
    await app.backend.start();
    const profiles = await app.value('profiles.list', {});
    expect(profiles.profiles).toHaveLength(1);
    expect(profiles.profiles[0]).toMatchObject({ id: 'local', name: 'Local demo', kind: 'local', tls: false });
    expect(profiles.profiles[0]!.address).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(profiles.activeId).toBe('local');

    const connection = await app.value('connection.get', {});
    expect(connection.status).toBe('online');
    expect(connection.lastSyncedAt).not.toBeNull();

    const { orgs, syncedAt } = await app.value('orgs.list', {});
    expect(orgs.map((o) => o.name).sort()).toEqual(DEMO_ORGANIZATIONS.map((o) => o.name).sort());
    expect(syncedAt).not.toBeNull();
  });

  it('answers from the cache with the local service stopped, and comes back online when it restarts', async () => {
    await app.backend.start();
    const before = await app.value('orgs.list', {});
    const syncedAt = (await app.value('connection.get', {})).lastSyncedAt;

    const offline = app.next('connection.changed', (s) => s.status === 'offline');
    const stopped = await app.value('localService.stop', {});
    expect(stopped.status).toBe('stopped');
    const state = await offline;
    expect(state.offlineSince).not.toBeNull();
    expect(state.lastSyncedAt).toBe(syncedAt);
    expect(state.error?.kind).toBe('offline');

    // Reads keep answering, from the cache, exactly as synced.
    expect(await app.value('orgs.list', {})).toEqual(before);
    const first = before.orgs[0]!;
    expect(await app.value('orgs.get', { orgId: first.id })).toEqual(first);
    // Writes say why they cannot happen.
    const create = await app.call('orgs.create', { name: 'While offline' });
    expect(create.ok).toBe(false);
    if (!create.ok) expect(create.error.kind).toBe('offline');

    const started = await app.value('localService.start', {});
    expect(started.status).toBe('running');
    const online = await app.value('connection.get', {});
    expect(online.status).toBe('online');
    expect(online.offlineSince).toBeNull();
    expect(online.lastSyncedAt! > syncedAt!).toBe(true);
  });

  it('keeps the cache across restarts of the app and reads it before the service answers', async () => {
    await app.backend.start();
    const synced = await app.value('orgs.list', {});
    await app.close();

    const again = await openTestBackend(dir.path);
    try {
      // Before start(): no service started or contacted yet, the cache of the active profile answers.
      expect((await again.value('orgs.list', {})).orgs).toEqual(synced.orgs);
      expect((await again.value('connection.get', {})).status).toBe('connecting');
      await again.backend.start();
      expect((await again.value('connection.get', {})).status).toBe('online');
      expect((await again.value('profiles.list', {})).profiles).toHaveLength(1);
    } finally {
      await again.close();
    }
  });

  it('creates an organization through the service and caches it', async () => {
    await app.backend.start();
    const created = await app.value('orgs.create', { name: '  Riverside Mowers  ' });
    expect(created.name).toBe('Riverside Mowers');
    expect((await app.value('orgs.list', {})).orgs.map((o) => o.id)).toContain(created.id);
    const invalid = await app.call('orgs.create', { name: '   ' });
    expect(invalid.ok).toBe(false);
    if (!invalid.ok) expect(invalid.error.kind).toBe('invalid');
  });

  it('never writes the API key to a file under user data', async () => {
    await app.backend.start();
    const key = JSON.parse(readFileSync(join(dir.path, 'local-service', 'bootstrap-credentials.json'), 'utf8')) as { api_key: string };
    // The service's own bootstrap file is the one place the spec puts it (mode 0600); nothing of the app's may hold it.
    const appFiles = filesUnder(dir.path).filter((f) => !f.startsWith(join(dir.path, 'local-service')));
    expect(appFiles.length).toBeGreaterThan(0);
    for (const file of appFiles) expect(readFileSync(file).includes(key.api_key), file).toBe(false);
    expect(app.logs.join('\n')).not.toContain(key.api_key);
  });
});

describe('a remote profile', () => {
  let dir: ReturnType<typeof tempDir>;
  let serviceDir: ReturnType<typeof tempDir>;
  let service: RunningService;
  let app: TestBackend;

  beforeEach(async () => {
    dir = tempDir('fleet-desk-main-');
    serviceDir = tempDir('fleet-desk-remote-');
    service = await startService({ listen: '127.0.0.1:0', dataDir: serviceDir.path, log: () => undefined });
    app = await openTestBackend(dir.path);
    await app.backend.start();
  });
  afterEach(async () => {
    await app.close();
    await service.close();
    dir.remove();
    serviceDir.remove();
  });

  const addRemote = (apiKey: string) =>
    app.call('profiles.add', { name: 'Remote', address: service.address, tls: false, apiKeyId: service.bootstrap.apiKeyId, apiKey });

  it('is checked before it is saved: a wrong key is rejected and nothing is kept', async () => {
    const result = await addRemote('not-the-key');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.kind).toBe('unauthenticated');
    expect((await app.value('profiles.list', {})).profiles.map((p) => p.name)).toEqual(['Local demo']);
    const unreachable = await app.call('profiles.add', { name: 'Nowhere', address: '127.0.0.1:1', tls: false, apiKeyId: 'x', apiKey: 'y' });
    expect(unreachable.ok).toBe(false);
    if (!unreachable.ok) expect(unreachable.error.kind).toBe('offline');
  });

  it('with TLS off, is sent only to this machine unasked: any other host needs the cleartext confirmed', async () => {
    const remote = { name: 'Plain', address: 'fleet.invalid:50051', tls: false, apiKeyId: 'x', apiKey: 'y' };
    const refused = await app.call('profiles.add', remote);
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.error.kind).toBe('invalid');
      expect(refused.error.message).toMatch(/TLS is off.*fleet\.invalid unencrypted/);
    }
    expect((await app.value('profiles.list', {})).profiles.map((p) => p.name)).toEqual(['Local demo']);
    // Confirmed, it goes on to reach the host (which does not exist, so it fails there, not at the gate).
    const confirmed = await app.call('profiles.add', { ...remote, cleartextConfirmed: true });
    expect(confirmed.ok).toBe(false);
    if (!confirmed.ok) expect(confirmed.error.kind).not.toBe('invalid');
    // With TLS on, no confirmation is asked for, whatever the host.
    const tls = await app.call('profiles.add', { ...remote, name: 'Secure', tls: true });
    if (!tls.ok) expect(tls.error.kind).not.toBe('invalid');
  });

  it('syncs, goes offline when its service stops, serves the cache, and recovers on the same address', async () => {
    const added = await addRemote(service.bootstrap.apiKey);
    expect(added.ok).toBe(true);
    const state = await app.value('profiles.list', {});
    const remote = state.profiles.find((p) => p.name === 'Remote')!;
    expect(state.activeId).toBe(remote.id);
    expect(remote.keyStorage).toMatch(/keychain|session/);
    const synced = await app.value('orgs.list', {});
    expect(synced.orgs.map((o) => o.name)).toEqual(['Local Fleet']);

    const address = service.address;
    await service.close();
    const offline = await app.value('connection.retry', {});
    expect(offline.status).toBe('offline');
    expect(offline.error?.kind).toBe('offline');
    expect(offline.nextRetryAt).not.toBeNull();
    expect((await app.value('orgs.list', {})).orgs).toEqual(synced.orgs);

    service = await startService({ listen: address, dataDir: serviceDir.path, log: () => undefined });
    // Recovery needs no user action: the backoff retry finds the service again.
    const online = await app.next('connection.changed', (s) => s.status === 'online');
    expect(online.offlineSince).toBeNull();
  });

  it('switching profiles switches caches', async () => {
    await addRemote(service.bootstrap.apiKey);
    const remoteOrgs = (await app.value('orgs.list', {})).orgs;
    await app.value('profiles.switch', { profileId: 'local' });
    const localOrgs = (await app.value('orgs.list', {})).orgs;
    expect(localOrgs.map((o) => o.name)).not.toEqual(remoteOrgs.map((o) => o.name));
    expect(localOrgs.length).toBe(DEMO_ORGANIZATIONS.length);
  });
});

describe('without a keychain', () => {
  it('keeps keys for the session only and says so', async () => {
    const dir = tempDir('fleet-desk-main-');
    const app = await openTestBackend(dir.path, { keychain: { store: new MemoryKeychain(), status: { available: false, reason: 'no desktop session bus (D-Bus) to reach a keychain' } } });
    try {
      await app.backend.start();
      const state = await app.value('profiles.list', {});
      expect(state.keychain).toEqual({ available: false, reason: 'no desktop session bus (D-Bus) to reach a keychain' });
      expect(state.profiles[0]!.keyStorage).toBe('session');
      expect((await app.value('connection.get', {})).status).toBe('online');
    } finally {
      await app.close();
      dir.remove();
    }
  });
});

describe('one backend per data folder', () => {
  it('a second app on the same folder is refused with a message that says what to do', async () => {
    const dir = tempDir('fleet-desk-main-');
    const app = await openTestBackend(dir.path);
    try {
      const { spawnSync } = await import('node:child_process');
      const script = `
        import { Backend } from './main/backend/backend.ts';
        try {
          await Backend.open({ userDataDir: ${JSON.stringify(dir.path)}, serviceEntry: 'unused' });
          console.log('opened');
        } catch (e) { console.log(e.message); }
      `;
      const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: repoRoot, encoding: 'utf8' });
      expect(child.stdout).toContain(`Another Fleet Desk is using ${dir.path} (pid ${process.pid})`);
      await app.close();
      // Released on close: the folder is free again.
      const again = await openTestBackend(dir.path);
      await again.close();
    } finally {
      await app.close();
      dir.remove();
    }
  });
});
