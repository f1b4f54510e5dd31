/**
 * A launch with a cache lets the window draw it before the service is reached (`firstViewGraceMs`,
 * `ui.restored`): the real backend, its cache worker, the local service forked for real.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestBackend, tempDir, type TestBackend } from '../helpers/backend';

/** Whether the forked service said anything yet (it logs its start on stderr, which the supervisor relays). */
const serviceSpoke = (app: TestBackend) => app.logs.some((line) => line.startsWith('local service:'));

describe('a launch draws the cached view before it reaches the service', () => {
  let dir: ReturnType<typeof tempDir>;
  let app: TestBackend | null = null;

  beforeEach(async () => {
    dir = tempDir('fleet-desk-launch-');
    // The first launch: no profile, no cache, nothing to draw — it connects at once even with a long grace.
    const first = await openTestBackend(dir.path, { firstViewGraceMs: 60_000 });
    const started = Date.now();
    await first.backend.start();
    expect(Date.now() - started).toBeLessThan(30_000);
    expect((await first.value('connection.get', {})).status).toBe('online');
    await first.close();
  });
  afterEach(async () => {
    await app?.close();
    app = null;
    dir.remove();
  });

  it('answers from the cache, shows the local service as starting and forks it only once the window says it drew its first view', async () => {
    app = await openTestBackend(dir.path, { firstViewGraceMs: 60_000 });
    let settled = false;
    const start = app.backend.start().then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(settled).toBe(false);
    expect(serviceSpoke(app)).toBe(false);
    expect(await app.value('localService.get', {})).toMatchObject({ status: 'starting', address: null });
    expect((await app.value('connection.get', {})).status).toBe('connecting');
    // The cache answers meanwhile: what the window draws.
    const cached = await app.value('orgs.list', {});
    expect(cached.orgs.length).toBeGreaterThan(0);
    expect(await app.value('locations.treeColumns', { orgId: cached.orgs[0]!.id, parts: false })).toMatchObject({ orgId: cached.orgs[0]!.id });

    expect(await app.value('ui.restored', {})).toEqual({});
    await start;
    expect(serviceSpoke(app)).toBe(true);
    expect(await app.value('localService.get', {})).toMatchObject({ status: 'running' });
    expect((await app.value('connection.get', {})).status).toBe('online');
    // Said again (another page, a reload): nothing changes.
    expect(await app.value('ui.restored', {})).toEqual({});
    expect((await app.value('connection.get', {})).status).toBe('online');
  });

  it('reaches the service after the grace period when no window says so', async () => {
    app = await openTestBackend(dir.path, { firstViewGraceMs: 3_000 });
    const started = Date.now();
    const start = app.backend.start();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(serviceSpoke(app)).toBe(false);
    await start;
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_950);
    expect((await app.value('connection.get', {})).status).toBe('online');
  });

  it('connects at once without a grace period (hosts without a window)', async () => {
    app = await openTestBackend(dir.path);
    const start = app.backend.start();
    // The fork is under way before any window could have said anything.
    await expect.poll(() => serviceSpoke(app!), { timeout: 15_000 }).toBe(true);
    await start;
    expect((await app.value('connection.get', {})).status).toBe('online');
  });

  it('a stop asked while the start waits for the window ends the wait: nothing is forked, the stop answers at once, the connection says why', async () => {
    app = await openTestBackend(dir.path, { firstViewGraceMs: 60_000 });
    const start = app.backend.start();
    await expect.poll(async () => (await app!.value('localService.get', {})).status).toBe('starting');
    const asked = Date.now();
    expect(await app.value('localService.stop', {})).toMatchObject({ status: 'stopped' });
    await start;
    expect(Date.now() - asked).toBeLessThan(5_000);
    expect(serviceSpoke(app)).toBe(false);
    expect(await app.value('connection.get', {})).toMatchObject({ status: 'offline', error: { kind: 'offline', message: expect.stringContaining('Start it from the status bar') } });
    // A window that says it drew its view later starts nothing.
    await app.value('ui.restored', {});
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(serviceSpoke(app)).toBe(false);
    // Started again on purpose, it runs.
    expect(await app.value('localService.start', {})).toMatchObject({ status: 'running' });
  });

  it('a stop and a start asked back to back while the launch waits: the stop cancels the launch’s start, the new start runs the service and reconnects', async () => {
    app = await openTestBackend(dir.path, { firstViewGraceMs: 60_000 });
    const launch = app.backend.start();
    await expect.poll(async () => (await app!.value('localService.get', {})).status).toBe('starting');
    const [stopped, started] = await Promise.all([app.value('localService.stop', {}), app.value('localService.start', {})]);
    expect(stopped.status).toBe('stopped');
    expect(started).toMatchObject({ status: 'running' });
    await launch;
    await expect.poll(async () => (await app!.value('connection.get', {})).status, { timeout: 15_000 }).toBe('online');
    expect(await app.value('localService.get', {})).toMatchObject({ status: 'running' });
  });

  it('a switch to another profile and back while the launch waits: the launch’s own connect does not run again once the window says it drew', async () => {
    // A second profile, remote, whose key is not in the keychain: switched to, it only asks for it.
    const file = join(dir.path, 'profiles.json');
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { profiles: unknown[] };
    stored.profiles.push({ id: 'elsewhere', name: 'Elsewhere', kind: 'remote', address: '127.0.0.1:9', tls: false, apiKeyId: 'elsewhere-key' });
    writeFileSync(file, JSON.stringify(stored));
    app = await openTestBackend(dir.path, { firstViewGraceMs: 60_000 });
    const launch = app.backend.start();
    await expect.poll(async () => (await app!.value('localService.get', {})).status).toBe('starting');
    await app.value('profiles.switch', { profileId: 'elsewhere' });
    await app.value('profiles.switch', { profileId: 'local' });
    // Both connects wait for the window (the launch's, and the switch's start of the same service).
    await app.value('ui.restored', {});
    await launch;
    await expect.poll(async () => (await app!.value('connection.get', {})).status, { timeout: 15_000 }).toBe('online');
    await expect.poll(async () => (await app!.value('connection.get', {})).sync, { timeout: 15_000 }).toBeNull();
    // The launch's connect, superseded by the switches, went no further: a second connect would have
    // run a second sync beside the first, which fails ("a fleet replacement is already under way").
    expect(app.logs.filter((line) => line.startsWith('sync:'))).toEqual([]);
    expect((await app.value('connection.get', {})).status).toBe('online');
  });

  it('closing the app while the start waits for the window closes at once, forking nothing', async () => {
    app = await openTestBackend(dir.path, { firstViewGraceMs: 60_000 });
    void app.backend.start();
    await expect.poll(async () => (await app!.value('localService.get', {})).status).toBe('starting');
    const asked = Date.now();
    await app.close();
    expect(Date.now() - asked).toBeLessThan(5_000);
    expect(serviceSpoke(app)).toBe(false);
    app = null;
  });
});
