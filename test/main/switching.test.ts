/**
 * Profile switches while work is in flight, through the real backend, a real local service and a real
 * remote service behind a proxy that can hold its traffic. Each case is a race a user can hit by
 * switching profiles at the wrong moment.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../service/server';
import { DEMO_ORGANIZATIONS } from '../../service/demo';
import type { OrgsSnapshot } from '../../common/orgs';
import { MemoryKeychain } from '../../main/keychain/keychain';
import { openTestBackend, tempDir, type TestBackend } from '../helpers/backend';
import { startHoldProxy, type HoldProxy } from '../helpers/hold-proxy';

let dir: ReturnType<typeof tempDir>;
let serviceDir: ReturnType<typeof tempDir>;
let service: RunningService;
let proxy: HoldProxy;
let app: TestBackend;

beforeEach(async () => {
  dir = tempDir('fleet-desk-switch-');
  serviceDir = tempDir('fleet-desk-switch-remote-');
  service = await startService({ listen: '127.0.0.1:0', dataDir: serviceDir.path, log: () => undefined });
  proxy = await startHoldProxy(service.address);
});
afterEach(async () => {
  proxy.release();
  await app?.close();
  await proxy.close();
  await service.close();
  dir.remove();
  serviceDir.remove();
});

async function withRemote(): Promise<string> {
  app = await openTestBackend(dir.path);
  await app.backend.start();
  const state = await app.value('profiles.add', { name: 'Remote', address: proxy.address, tls: false, apiKeyId: service.bootstrap.apiKeyId, apiKey: service.bootstrap.apiKey });
  return state.profiles.find((p) => p.name === 'Remote')!.id;
}

describe('switching profiles', () => {
  it('answers at once and connects the new profile even while the old one is mid-sync', async () => {
    await withRemote();
    proxy.hold();
    const stalled = app.call('connection.retry', {}); // a sync round of the remote profile, stuck in the proxy
    const online = app.next('connection.changed', (s) => s.profileId === 'local' && s.status === 'online');
    const switched = await app.value('profiles.switch', { profileId: 'local' });
    expect(switched.activeId).toBe('local');
    // The cache answers before the local service is even asked.
    expect((await app.value('orgs.list', {})).orgs).toHaveLength(DEMO_ORGANIZATIONS.length);
    await online;
    const published: string[][] = [];
    const stop = app.backend.events.subscribe((event, payload) => {
      if (event === 'orgs.changed') published.push((payload as unknown as OrgsSnapshot).orgs.map((o) => o.name));
    });
    proxy.release();
    await stalled;
    stop();
    // The old round, finishing late, must not touch the local profile's state nor put its list on screen.
    expect(await app.value('connection.get', {})).toMatchObject({ profileId: 'local', status: 'online' });
    expect(published.filter((names) => names.includes('Local Fleet'))).toEqual([]);
  });

  it('a write in flight completes, into the cache of the profile it was made on', async () => {
    const remoteId = await withRemote();
    proxy.hold();
    const creating = app.call('orgs.create', { name: 'Made Before Switching' });
    await app.value('profiles.switch', { profileId: 'local' });
    proxy.release();
    const created = await creating;
    expect(created.ok).toBe(true);
    expect((await app.value('orgs.list', {})).orgs.map((o) => o.name)).not.toContain('Made Before Switching');
    await app.value('profiles.switch', { profileId: remoteId });
    expect((await app.value('orgs.list', {})).orgs.map((o) => o.name)).toContain('Made Before Switching');
  });

  it("a local service that fails to start does not knock out the profile the user switched to", async () => {
    const remoteId = await withRemote();
    await app.value('localService.stop', {});
    // Break the local service's data dir: it refuses to start without its bootstrap credentials file.
    writeFileSync(join(dir.path, 'local-service', 'bootstrap-credentials.json'), '{ not json');
    const failed = app.next('localService.changed', (s) => s.status === 'failed');
    await app.value('profiles.switch', { profileId: 'local' }); // starts the local service in the background
    await app.value('profiles.switch', { profileId: remoteId });
    await failed;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await app.value('connection.get', {})).toMatchObject({ profileId: remoteId, status: 'online', error: null });
    // Two services start and one fails here: seconds on a loaded machine (20 s ran out at a load average of 14).
  }, 60_000);
});

describe('recovering', () => {
  it('a corrupt cache is set aside and the app starts', async () => {
    mkdirSync(join(dir.path, 'profiles', 'local'), { recursive: true });
    writeFileSync(join(dir.path, 'profiles', 'local', 'cache.sqlite'), 'garbage '.repeat(200));
    writeFileSync(join(dir.path, 'profiles.json'), JSON.stringify({ version: 1, activeId: 'local', profiles: [{ id: 'local', name: 'Local demo', kind: 'local', address: '', tls: false, apiKeyId: '' }] }));
    app = await openTestBackend(dir.path);
    await app.backend.start();
    expect((await app.value('connection.get', {})).status).toBe('online');
    expect((await app.value('orgs.list', {})).orgs).toHaveLength(DEMO_ORGANIZATIONS.length);
    expect(app.logs.join('\n')).toMatch(/cache: .*could not be opened/);
  });

  it('a remote profile whose key is gone says so, and takes its key again', async () => {
    const remoteId = await withRemote();
    await app.close();
    // A new run without a keychain: the key was only ever in this run's memory.
    app = await openTestBackend(dir.path, { keychain: { store: new MemoryKeychain(), status: { available: false, reason: 'no keychain in this test' } } });
    await app.backend.start();
    const state = await app.value('profiles.list', {});
    expect(state.profiles.find((p) => p.id === remoteId)?.keyStorage).toBe('missing');
    expect(state.profiles.find((p) => p.id === 'local')?.keyStorage).toBe('session');
    expect(state.profiles.map((p) => p.id)).toEqual(['local', remoteId]);

    const offline = app.next('connection.changed', (s) => s.profileId === remoteId && s.status === 'offline');
    await app.value('profiles.switch', { profileId: remoteId });
    expect((await offline).error?.kind).toBe('unauthenticated');

    const wrong = await app.call('profiles.setKey', { profileId: remoteId, apiKey: 'wrong' });
    expect(wrong.ok).toBe(false);
    if (!wrong.ok) expect(wrong.error.kind).toBe('unauthenticated');
    const fixed = await app.value('profiles.setKey', { profileId: remoteId, apiKey: service.bootstrap.apiKey });
    expect(fixed.profiles.find((p) => p.id === remoteId)?.keyStorage).toBe('session');
    expect(await app.value('connection.get', {})).toMatchObject({ profileId: remoteId, status: 'online' });
    const local = await app.call('profiles.setKey', { profileId: 'local', apiKey: 'x' });
    expect(local.ok).toBe(false);
  });

  it('removing the active remote profile falls back to the local one', async () => {
    const remoteId = await withRemote();
    const state = await app.value('profiles.remove', { profileId: remoteId });
    expect(state.activeId).toBe('local');
    expect(state.profiles.map((p) => p.id)).toEqual(['local']);
    expect((await app.value('orgs.list', {})).orgs).toHaveLength(DEMO_ORGANIZATIONS.length);
  });
});
