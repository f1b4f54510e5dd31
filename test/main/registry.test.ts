/**
 * The registry through the backend, as the renderer calls it, against the real local service (its
 * demo registry): browsing and editing items and modules, inspecting files before upload, and the
 * upload queue — streamed from disk, cancelled and retried, cut off by a service restart and by an
 * app restart, each time resumed from what the service holds and checked against its SHA-256.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { create as createTar } from 'tar';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Upload } from '../../common/registry';
import { FleetClient } from '../../main/grpc/client';
import { encodeUploadRequest } from '../../main/grpc/upload-frames';
import { StagingError } from '../../main/web/staging';
import { startService, type RunningService } from '../../service/server';
import { openTestBackend, tempDir, type TestBackend } from '../helpers/backend';
import { startHoldProxy, type HoldProxy } from '../helpers/hold-proxy';

const CHUNK = 64 * 1024;
let dir: ReturnType<typeof tempDir>;
let app: TestBackend;
let orgId: string;
let files: string;

const timing = { retryMinMs: 100, retryMaxMs: 500, refreshMs: 60_000, deadlineMs: 5_000, uploadRetryMinMs: 100, uploadRetryMaxMs: 400, uploadChunkBytes: CHUNK };

beforeAll(async () => {
  dir = tempDir('fleet-desk-registry-');
  files = join(dir.path, 'files');
  mkdirSync(files);
  app = await openTestBackend(join(dir.path, 'app'), { timing });
  await app.backend.start();
  orgId = (await app.value('orgs.list', {})).orgs.find((o) => o.name === 'Acme Warehouse Robotics')!.id;
}, 60_000);
afterAll(async () => {
  await app.close();
  dir.remove();
});

const until = async (check: () => boolean | Promise<boolean>, timeoutMs = 20_000, what = 'condition') => {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

/** A module archive: meta.json (when given), an entrypoint, and `payloadBytes` of incompressible data. */
async function archive(name: string, payloadBytes: number, meta?: Record<string, unknown>): Promise<string> {
  const src = join(dir.path, `src-${name}`);
  mkdirSync(src, { recursive: true });
  const entries = ['run.sh', 'payload.bin'];
  writeFileSync(join(src, 'run.sh'), '#!/bin/sh\nexec ./payload.bin\n');
  writeFileSync(join(src, 'payload.bin'), randomBytes(payloadBytes));
  if (meta) {
    writeFileSync(join(src, 'meta.json'), JSON.stringify(meta));
    entries.unshift('meta.json');
  }
  const path = join(files, name);
  await createTar({ gzip: true, file: path, cwd: src }, entries);
  return path;
}

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
const upload = (id: string) => app.value('registry.uploads', {}).then((all) => all.find((u) => u.id === id)!);

async function newModule(name: string): Promise<string> {
  const { moduleId } = await app.value('registry.createModule', { orgId, name });
  await app.value('registry.updateModule', { moduleId, url: 'https://example.com/src', description: 'test', models: [{ api: 'rdk:component:motor', model: 'acme:test:m' }], entrypoint: 'run.sh', visibility: 'private', apps: [], firstRun: '' });
  return moduleId;
}

describe('browsing the registry', () => {
  it('lists the demo registry across organizations, filtered by type and search, a page at a time', async () => {
    const all = await app.value('registry.list', { pageSize: 1000 });
    expect(all.items.length).toBeGreaterThan(3);
    expect(new Set(all.items.map((i) => i.type)).size).toBeGreaterThan(1);
    const modules = await app.value('registry.list', { types: ['module'], pageSize: 1000 });
    expect(modules.items.length).toBeGreaterThan(0);
    expect(modules.items.every((i) => i.type === 'module')).toBe(true);
    const term = modules.items[0]!.name.slice(0, 4);
    const found = await app.value('registry.list', { search: term, pageSize: 1000 });
    expect(found.items.every((i) => `${i.name} ${i.description}`.toLowerCase().includes(term.toLowerCase()))).toBe(true);
    const first = await app.value('registry.list', { pageSize: 2 });
    expect(first.items).toHaveLength(2);
    expect(first.nextPageToken).not.toBe('');
    const second = await app.value('registry.list', { pageSize: 2, pageToken: first.nextPageToken });
    expect(second.items.map((i) => i.id)).not.toContain(first.items[0]!.id);
  });

  it('answers markdown documentation only when asked for it', async () => {
    const withDocs = (await app.value('registry.list', { pageSize: 1000 })).items;
    let documented: string | null = null;
    for (const item of withDocs) {
      const full = await app.value('registry.get', { itemId: item.id, markdown: true });
      if (full.markdown) {
        documented = item.id;
        expect(full.markdown.length).toBeGreaterThan(20);
        break;
      }
    }
    expect(documented).not.toBeNull();
    expect((await app.value('registry.get', { itemId: documented!, markdown: false })).markdown).toBeNull();
  });

  it('creates, updates and deletes an item; a second item of the same name is a conflict', async () => {
    const item = await app.value('registry.create', { orgId, name: 'test-model', type: 'ml_model' });
    expect(item).toMatchObject({ name: 'test-model', type: 'ml_model', status: 'in_development' });
    const again = await app.call('registry.create', { orgId, name: 'test-model', type: 'ml_model' });
    expect(again).toMatchObject({ ok: false, error: { kind: 'conflict' } });
    const updated = await app.value('registry.update', { itemId: item.id, type: 'ml_model', description: 'A detector', visibility: 'private', url: 'https://example.com/model' });
    expect(updated).toMatchObject({ description: 'A detector', url: 'https://example.com/model' });
    await app.value('registry.delete', { itemId: item.id });
    expect(await app.call('registry.get', { itemId: item.id })).toMatchObject({ ok: false, error: { kind: 'not-found' } });
  });

  it("answers an app's content and branding by public namespace and app name; an unknown app is not found", async () => {
    const withApp = (await app.value('registry.modules', { orgId, pageSize: 1000 })).items.find((m) => m.apps.length > 0)!;
    const appName = withApp.apps[0]!.name;
    const namespace = (await app.value('orgs.list', {})).orgs.find((o) => o.id === orgId)!.publicNamespace;
    const content = await app.value('registry.appContent', { publicNamespace: namespace, name: appName });
    expect(content).toMatchObject({ moduleId: withApp.id, entrypoint: withApp.apps[0]!.entrypoint, appType: withApp.apps[0]!.type });
    expect(content.blobPath).toMatch(/^https?:\/\//);
    const branding = await app.value('registry.appBranding', { publicNamespace: namespace, name: appName });
    expect(branding.logoPath).toBe(withApp.apps[0]!.logoPath);
    expect(Object.keys(branding.textCustomizations).length).toBeGreaterThan(0);
    expect(await app.call('registry.appContent', { publicNamespace: namespace, name: 'no-such-app' })).toMatchObject({ ok: false, error: { kind: 'not-found' } });
  });

  it('keeps an app’s text customizations, which the app does not edit, when a module is updated', async () => {
    const withApp = (await app.value('registry.modules', { orgId, pageSize: 1000 })).items.find((m) => m.apps.length > 0)!;
    // The manifest as the service holds it (the bridge's Module leaves customizations out).
    const credentials = JSON.parse(readFileSync(join(dir.path, 'app', 'local-service', 'bootstrap-credentials.json'), 'utf8')) as { api_key_id: string; api_key: string };
    const { address } = await app.value('connection.get', {});
    const client = new FleetClient({ address, tls: false, apiKeyId: credentials.api_key_id, apiKey: credentials.api_key });
    try {
      const customizations = async () => (await client.call('read', client.app.getModule, { moduleId: withApp.id })).module!.apps[0]!.customizations;
      const before = await customizations();
      expect(Object.keys(before).length).toBeGreaterThan(0);
      await app.value('registry.updateModule', { moduleId: withApp.id, url: withApp.url, description: `${withApp.description} (edited)`, models: [...withApp.models], entrypoint: withApp.entrypoint, visibility: withApp.visibility === 'public' ? 'public' : 'private', apps: withApp.apps.map((a) => ({ ...a, fragmentIds: [...a.fragmentIds] })), firstRun: withApp.firstRun });
      expect(await customizations()).toEqual(before);
    } finally {
      client.close();
    }
  });

  it('refuses a bad name or url at the bridge, before the service', async () => {
    expect(await app.call('registry.create', { orgId, name: 'Not OK', type: 'archive' })).toMatchObject({ ok: false, error: { kind: 'invalid' } });
    expect(await app.call('registry.updateModule', { moduleId: 'x:y', url: 'ftp://nope', entrypoint: 'run.sh', visibility: 'private' })).toMatchObject({ ok: false, error: { kind: 'invalid' } });
  });

  it('creates and edits a module, keeping what the app does not edit', async () => {
    const { moduleId, url } = await app.value('registry.createModule', { orgId, name: 'edit-me' });
    expect(url).toMatch(/^https?:\/\//);
    const edited = await app.value('registry.updateModule', {
      moduleId,
      url: 'https://example.com/edit-me',
      description: 'Edited',
      models: [{ api: 'rdk:component:arm', model: 'acme:arms:six' }],
      entrypoint: 'bin/run',
      visibility: 'private',
      apps: [],
      firstRun: 'setup.sh',
    });
    expect(edited).toMatchObject({ description: 'Edited', entrypoint: 'bin/run', firstRun: 'setup.sh', models: [{ api: 'rdk:component:arm', model: 'acme:arms:six' }] });
    const listed = await app.value('registry.modules', { orgId, pageSize: 1000 });
    expect(listed.items.map((m) => m.id)).toContain(moduleId);
  });
});

describe('inspecting files before upload', () => {
  it("proposes version and platform from meta.json, else from the file's name", async () => {
    const withMeta = await archive('a.tar.gz', 1000, { module_id: 'acme:a', version: '1.2.3', build: { os: 'linux', arch: 'arm64' }, entrypoint: 'run.sh' });
    const named = await archive('thing-2.0.1-darwin-amd64.tar.gz', 1000);
    const [a, b] = await app.value('registry.inspect', { sources: [{ path: withMeta }, { path: named }] });
    expect(a).toMatchObject({ problem: null, fileName: 'a.tar.gz', proposal: { version: '1.2.3', platform: 'linux/arm64', moduleId: 'acme:a', entrypoint: 'run.sh' } });
    expect(b).toMatchObject({ problem: null, proposal: { version: '2.0.1', platform: 'darwin/amd64', moduleId: null } });
  });

  it('says why a file cannot be uploaded: missing, empty, not gzip, gzip but not a tarball', async () => {
    writeFileSync(join(files, 'empty.tar.gz'), '');
    writeFileSync(join(files, 'plain.tar.gz'), 'just text');
    writeFileSync(join(files, 'text.gz'), gzipSync(Buffer.from('hello, this is not a tar archive at all '.repeat(40))));
    const answers = await app.value('registry.inspect', { sources: ['gone.tar.gz', 'empty.tar.gz', 'plain.tar.gz', 'text.gz'].map((n) => ({ path: join(files, n) })) });
    expect(answers.map((a) => a.problem)).toEqual([expect.stringContaining('no longer there'), expect.stringContaining('empty'), expect.stringContaining('not a gzipped tarball'), expect.stringContaining('not a valid tarball')]);
    const refused = await app.call('registry.upload', { moduleId: 'acme:x', version: '1.0.0', platform: 'linux/amd64', source: { path: join(files, 'plain.tar.gz') } });
    expect(refused).toMatchObject({ ok: false, error: { kind: 'invalid', message: expect.stringContaining('not a gzipped tarball') } });
  });
});

describe('uploading module files', () => {
  it('streams a file from disk; the SHA-256 the service records is the file’s, and the module lists the version', async () => {
    const moduleId = await newModule('upload-one');
    const path = await archive('one.tar.gz', 3 * 1024 * 1024);
    const queued = await app.value('registry.upload', { moduleId, version: '0.1.0', platform: 'linux/amd64', source: { path } });
    expect(queued.state).toMatch(/queued|uploading/);
    let seen: readonly Upload[] = [];
    const stop = app.backend.events.subscribe((event, payload) => {
      if (event === 'registry.uploads') seen = payload as readonly Upload[];
    });
    await until(async () => (await upload(queued.id)).state === 'done', 30_000, 'the upload');
    stop();
    const done = await upload(queued.id);
    expect(done.result).toMatchObject({ sha256: sha256(path), sizeBytes: done.sizeBytes });
    expect(done.result!.url).toMatch(/^https?:\/\//);
    expect(seen.find((u) => u.id === queued.id)?.state).toBe('done');
    const mod = await app.value('registry.module', { moduleId });
    const file = mod.versions.find((v) => v.version === '0.1.0')!.files.find((f) => f.platform === 'linux/amd64')!;
    expect(file).toMatchObject({ sha256: sha256(path), sizeBytes: done.sizeBytes });
    // Uploaded files never change: the same version and platform again is refused.
    const again = await app.value('registry.upload', { moduleId, version: '0.1.0', platform: 'linux/amd64', source: { path: await archive('other.tar.gz', 1000) } });
    await until(async () => (await upload(again.id)).state === 'failed', 20_000, 'the refusal');
    expect((await upload(again.id)).error).toMatchObject({ kind: 'conflict', message: expect.stringContaining('different file') });
  });

  it('uploads a file the page staged (browser mode), then deletes the staged copy', async () => {
    const moduleId = await newModule('upload-staged');
    const path = await archive('staged-1.4.0-linux-arm64.tar.gz', 512 * 1024);
    const bytes = readFileSync(path);
    const { stagedId, fileName } = await app.backend.uploads.stage('staged-1.4.0-linux-arm64.tar.gz', Readable.from([bytes]), bytes.length);
    const [candidate] = await app.value('registry.inspect', { sources: [{ stagedId }] });
    expect(candidate).toMatchObject({ fileName, sizeBytes: bytes.length, problem: null, proposal: { version: '1.4.0', platform: 'linux/arm64' } });
    const queued = await app.value('registry.upload', { moduleId, version: '1.4.0', platform: 'linux/arm64', source: { stagedId } });
    await until(async () => (await upload(queued.id)).state === 'done', 30_000, 'the staged upload');
    expect((await upload(queued.id)).result?.sha256).toBe(sha256(path));
    const staging = join(dir.path, 'app', 'staging');
    expect(existsSync(staging) ? readdirSync(staging) : []).not.toContain(stagedId);
    // A staged file that arrived short is refused, and nothing of it stays.
    await expect(app.backend.uploads.stage('short.tar.gz', Readable.from([bytes.subarray(0, 100)]), bytes.length)).rejects.toThrow(/incomplete/);
    await app.value('registry.removeUpload', { uploadId: queued.id });
    expect((await app.value('registry.uploads', {})).map((u) => u.id)).not.toContain(queued.id);
  });

  it('offline, an upload waits instead of failing', async () => {
    const moduleId = await newModule('upload-offline');
    const path = await archive('offline.tar.gz', 256 * 1024);
    await app.value('localService.stop', {});
    try {
      const queued = await app.value('registry.upload', { moduleId, version: '1.0.0', platform: 'linux/amd64', source: { path } });
      await until(async () => (await upload(queued.id)).state === 'waiting', 20_000, 'the upload to wait');
      await app.value('localService.start', {});
      await until(async () => (await upload(queued.id)).state === 'done', 60_000, 'the upload once back');
      expect((await upload(queued.id)).result?.sha256).toBe(sha256(path));
    } finally {
      await app.value('localService.start', {});
    }
  });
});

/**
 * Breaks need an upload provably in flight, and a loopback upload of a few MB is over in
 * milliseconds: here the app reaches its own service (in this process) through a proxy that can
 * hold the bytes on their way (the upload then sits in flight, stalled by HTTP/2 flow control),
 * drop every connection, or outlive a restart of the service on the same port.
 */
describe('what an upload will not do', () => {
  it('does not upload a file that changed after it was queued', async () => {
    const moduleId = await newModule('upload-changed');
    const path = await archive('changed.tar.gz', 256 * 1024);
    await app.value('localService.stop', {});
    try {
      const queued = await app.value('registry.upload', { moduleId, version: '1.0.0', platform: 'linux/amd64', source: { path } });
      await until(async () => (await upload(queued.id)).state === 'waiting', 20_000, 'the upload to wait');
      utimesSync(path, new Date(), new Date(Date.now() + 5_000));
      await app.value('localService.start', {});
      await until(async () => (await upload(queued.id)).state === 'failed', 30_000, 'the refusal');
      expect((await upload(queued.id)).error).toMatchObject({ kind: 'conflict', message: expect.stringContaining('changed since it was queued') });
      expect((await app.value('registry.module', { moduleId })).versions).toEqual([]);
    } finally {
      await app.value('localService.start', {});
    }
  });

  it('answers a staged file that is gone as that file’s problem, and forgets a staged file nobody uploads', async () => {
    const bytes = readFileSync(await archive('discard.tar.gz', 1000));
    const { stagedId } = await app.backend.uploads.stage('discard.tar.gz', Readable.from([bytes]), bytes.length);
    await app.value('registry.discardStaged', { stagedId });
    expect(readdirSync(join(dir.path, 'app', 'staging'))).not.toContain(stagedId);
    const [gone, fine] = await app.value('registry.inspect', { sources: [{ stagedId }, { path: join(files, 'discard.tar.gz') }] });
    expect(gone?.problem).toContain('no longer staged');
    expect(fine?.problem).toBeNull();
  });

  it('takes no paths where the page cannot have them (browser mode), nor relative ones', async () => {
    const browser = await openTestBackend(join(dir.path, 'browser-mode'), { timing, acceptUploadPaths: false });
    try {
      const [answer] = await browser.value('registry.inspect', { sources: [{ path: join(files, 'one.tar.gz') }] });
      expect(answer?.problem).toContain('not paths');
      expect(answer?.sizeBytes).toBe(0);
    } finally {
      await browser.close();
    }
    const [relative] = await app.value('registry.inspect', { sources: [{ path: 'files/one.tar.gz' }] });
    expect(relative?.problem).toContain('not an absolute path');
  });
});

describe('staged files (browser mode) while the app runs', { timeout: 60_000 }, () => {
  it('counts files an earlier run staged against the bound', async () => {
    const staging = { maxBytes: 1024 * 1024, reserveBytes: 0 };
    const first = await openTestBackend(join(dir.path, 'staged-earlier'), { timing, staging });
    const kept = await first.backend.uploads.stage('earlier.tar.gz', Readable.from([Buffer.alloc(700 * 1024)]), 700 * 1024);
    await first.close();
    const second = await openTestBackend(join(dir.path, 'staged-earlier'), { timing, staging });
    try {
      const refused = await second.backend.uploads.stage('later.tar.gz', Readable.from([Buffer.alloc(400 * 1024)]), 400 * 1024).catch((e: unknown) => e);
      expect((refused as StagingError).message).toContain('Files waiting to be uploaded take 700 KiB of the 1 MiB');
      expect(refused).toBeInstanceOf(StagingError);
      await second.value('registry.discardStaged', { stagedId: kept.stagedId });
      await second.backend.uploads.stage('later.tar.gz', Readable.from([Buffer.alloc(400 * 1024)]), 400 * 1024);
    } finally {
      await second.close();
    }
  });

  it('deletes a staged file no upload names within the window; one a queue needs stays, whichever profile queued it', async () => {
    const serviceDir = tempDir('fleet-desk-registry-sweep-');
    const service = await startService({ listen: '127.0.0.1:0', dataDir: serviceDir.path, demo: true, simulate: false, log: () => undefined });
    const proxy = await startHoldProxy(service.address);
    // The window is an hour of this clock; the sweep runs every 50 ms of real time.
    let clock = 1_000_000_000;
    const sweeper = await openTestBackend(join(dir.path, 'sweeper'), { timing, staging: { unclaimedMs: 3600_000, sweepEveryMs: 50, now: () => clock, reserveBytes: 0 } });
    const staging = join(dir.path, 'sweeper', 'staging');
    try {
      await sweeper.backend.start();
      const added = await sweeper.value('profiles.add', { name: 'Remote', address: proxy.address, tls: false, apiKeyId: service.bootstrap.apiKeyId, apiKey: service.bootstrap.apiKey });
      const remoteId = added.profiles.find((p) => p.name === 'Remote')!.id;
      await until(async () => (await sweeper.value('connection.get', {})).status === 'online', 20_000, 'the remote profile');
      const org = (await sweeper.value('orgs.list', {})).orgs[0]!.id;
      const { moduleId } = await sweeper.value('registry.createModule', { orgId: org, name: 'swept' });
      await sweeper.value('registry.updateModule', { moduleId, url: '', description: '', models: [], entrypoint: 'run.sh', visibility: 'private', apps: [], firstRun: '' });
      const path = await archive('sweep.tar.gz', 64 * 1024);
      const bytes = readFileSync(path);
      const stage = (name: string) => sweeper.backend.uploads.stage(name, Readable.from([bytes]), bytes.length);

      // Queued in the Remote profile and under way (held on the network) when the user switches away.
      const queuedFile = await stage('queued.tar.gz');
      proxy.hold();
      const queued = await sweeper.value('registry.upload', { moduleId, version: '1.0.0', platform: 'linux/amd64', source: { stagedId: queuedFile.stagedId } });
      await sweeper.value('profiles.switch', { profileId: 'local' });
      const abandoned = await stage('abandoned.tar.gz');
      clock += 3600_000;
      const young = await stage('young.tar.gz');

      await until(() => !existsSync(join(staging, abandoned.stagedId)), 10_000, 'the sweep to delete the abandoned file');
      const sweeps = sweeper.backend.uploads.stats.sweeps;
      await until(() => sweeper.backend.uploads.stats.sweeps >= sweeps + 3, 10_000, 'more sweeps');
      expect(readdirSync(staging).sort()).toEqual([queuedFile.stagedId, `${queuedFile.stagedId}.json`, young.stagedId, `${young.stagedId}.json`].sort());
      const [gone] = await sweeper.value('registry.inspect', { sources: [{ stagedId: abandoned.stagedId }] });
      expect(gone?.problem).toContain('no longer staged');

      // Back in the Remote profile, its upload goes on from the staged file it kept.
      await sweeper.value('profiles.switch', { profileId: remoteId });
      proxy.release();
      await until(async () => (await sweeper.value('registry.uploads', {})).find((u) => u.id === queued.id)?.state === 'done', 30_000, 'the queued upload');
      expect(existsSync(join(staging, queuedFile.stagedId))).toBe(false);
    } finally {
      proxy.release();
      await sweeper.close();
      await proxy.close();
      await service.close();
      serviceDir.remove();
    }
  });
});

describe('uploads across breaks', { timeout: 90_000 }, () => {
  let serviceDir: ReturnType<typeof tempDir>;
  let service: RunningService;
  let proxy: HoldProxy;
  let remote: TestBackend;
  let remoteOrg: string;
  const get = (id: string) => remote.value('registry.uploads', {}).then((all) => all.find((u) => u.id === id)!);
  const restartable = async () => {
    const port = Number(service.address.slice(service.address.lastIndexOf(':') + 1));
    return { listen: `127.0.0.1:${port}`, dataDir: serviceDir.path, simulate: false, log: () => undefined };
  };
  async function module(name: string): Promise<string> {
    const { moduleId } = await remote.value('registry.createModule', { orgId: remoteOrg, name });
    await remote.value('registry.updateModule', { moduleId, url: '', description: '', models: [], entrypoint: 'run.sh', visibility: 'private', apps: [], firstRun: '' });
    return moduleId;
  }
  /** Start an upload and hold it in flight: some bytes are through to the service, more stuck on their way. */
  async function inFlight(moduleId: string, version: string, path: string): Promise<Upload> {
    // The proxy lets the first 2 MiB through to the service, then holds: most of a 12 MiB file is
    // still to go, however fast this machine streams (a hold after polling for progress landed
    // wherever the stream had got to by then).
    proxy.holdAfter(2 * 1024 * 1024);
    const queued = await remote.value('registry.upload', { moduleId, version, platform: 'linux/amd64', source: { path } });
    await until(async () => (await get(queued.id)).sentBytes > 1024 * 1024, 20_000, 'the first bytes');
    // Flow control stalls the stream within a window (64 KiB: the service's) of the hold.
    await new Promise((r) => setTimeout(r, 300));
    const flying = await get(queued.id);
    expect(flying.state).toBe('uploading');
    expect(flying.sentBytes).toBeLessThan(flying.sizeBytes / 2);
    return flying;
  }

  beforeAll(async () => {
    serviceDir = tempDir('fleet-desk-registry-service-');
    service = await startService({ listen: '127.0.0.1:0', dataDir: serviceDir.path, demo: true, simulate: false, log: () => undefined });
    proxy = await startHoldProxy(service.address);
    remote = await openTestBackend(join(dir.path, 'remote'), { timing });
    await remote.backend.start();
    await remote.value('profiles.add', { name: 'Remote', address: proxy.address, tls: false, apiKeyId: service.bootstrap.apiKeyId, apiKey: service.bootstrap.apiKey });
    await until(async () => (await remote.value('connection.get', {})).status === 'online', 20_000, 'the remote profile');
    remoteOrg = (await remote.value('orgs.list', {})).orgs[0]!.id;
  }, 60_000);
  afterEach(() => proxy.release());
  afterAll(async () => {
    await remote.close();
    await proxy.close();
    await service.close();
    serviceDir.remove();
  });

  it('cancels at once while bytes are in flight, and a retry resumes from the bytes the service holds', async () => {
    const moduleId = await module('upload-cancel');
    const path = await archive('cancel.tar.gz', 12 * 1024 * 1024);
    const flying = await inFlight(moduleId, '1.0.0', path);
    const started = performance.now();
    const cancelled = await remote.value('registry.cancelUpload', { uploadId: flying.id });
    expect(performance.now() - started).toBeLessThan(200);
    expect(cancelled.state).toBe('cancelled');
    proxy.release();
    // Nothing is listed for a stream that did not complete.
    expect((await remote.value('registry.module', { moduleId })).versions).toEqual([]);
    const retried = await remote.value('registry.retryUpload', { uploadId: flying.id });
    expect(retried.state).toMatch(/queued|uploading/);
    await until(async () => (await get(flying.id)).state === 'done', 60_000, 'the resumed upload');
    const done = await get(flying.id);
    expect(done.resumedFrom).toBeGreaterThan(0);
    expect(done.resumedFrom).toBeLessThanOrEqual(cancelled.sentBytes);
    expect(done.result?.sha256).toBe(sha256(path));
    expect((await remote.value('registry.module', { moduleId })).versions[0]?.files[0]?.sha256).toBe(sha256(path));
  });

  it('never stitches another file onto bytes a cancelled upload left: a new upload of the version starts afresh', async () => {
    const moduleId = await module('upload-replace');
    const first = await archive('first.tar.gz', 12 * 1024 * 1024);
    const flying = await inFlight(moduleId, '1.0.0', first);
    await remote.value('registry.cancelUpload', { uploadId: flying.id });
    proxy.release();
    await remote.value('registry.removeUpload', { uploadId: flying.id });
    const second = await archive('second.tar.gz', 12 * 1024 * 1024);
    const queued = await remote.value('registry.upload', { moduleId, version: '1.0.0', platform: 'linux/amd64', source: { path: second } });
    await until(async () => (await get(queued.id)).state === 'done', 60_000, 'the new upload');
    const done = await get(queued.id);
    expect(done.resumedFrom).toBe(0);
    expect(done.result?.sha256).toBe(sha256(second));
    expect((await remote.value('registry.module', { moduleId })).versions[0]?.files[0]?.sha256).toBe(sha256(second));
  });

  it('rides out a network break: it waits, then resumes from the service’s offset', async () => {
    const moduleId = await module('upload-break');
    const path = await archive('break.tar.gz', 12 * 1024 * 1024);
    const size = readFileSync(path).length;
    const before = remote.backend.uploads.stats.bytesSent;
    const flying = await inFlight(moduleId, '2.0.0', path);
    proxy.cut();
    await until(async () => ['waiting', 'done'].includes((await get(flying.id)).state), 20_000, 'the upload to notice the break');
    await until(async () => (await get(flying.id)).state === 'done', 60_000, 'the resumed upload');
    const done = await get(flying.id);
    expect(done.resumedFrom).toBeGreaterThan(0);
    expect(done.result?.sha256).toBe(sha256(path));
    // Sent twice: what was in flight when the connection dropped (the proxy lost it), never the file again.
    const resent = remote.backend.uploads.stats.bytesSent - before - size;
    expect(resent).toBeLessThan(size / 4);
  });

  it('rides out a service restart, and says why it waits meanwhile', async () => {
    const moduleId = await module('upload-restart');
    const path = await archive('restart.tar.gz', 12 * 1024 * 1024);
    const flying = await inFlight(moduleId, '3.0.0', path);
    const options = await restartable();
    // The service stops with the upload still in flight (its shutdown cuts the stream off after its grace period).
    await service.close();
    proxy.cut();
    await until(async () => (await get(flying.id)).state === 'waiting', 20_000, 'the upload to wait');
    expect((await get(flying.id)).error?.message).toBeTruthy();
    service = await startService(options);
    await until(async () => (await get(flying.id)).state === 'done', 60_000, 'the resumed upload');
    const done = await get(flying.id);
    expect(done.resumedFrom).toBeGreaterThan(0);
    expect(done.result?.sha256).toBe(sha256(path));
  }, 60_000);

  it('resumes after an app restart, from the queue it saved, without sending again what the service holds', async () => {
    const moduleId = await module('upload-app-restart');
    const path = await archive('app-restart.tar.gz', 12 * 1024 * 1024);
    const flying = await inFlight(moduleId, '4.0.0', path);
    const { profileId } = await remote.value('connection.get', {});
    await remote.close();
    proxy.release();
    const saved = JSON.parse(readFileSync(join(dir.path, 'remote', 'profiles', profileId!, 'uploads.json'), 'utf8')) as { id: string; state: string }[];
    expect(saved.find((u) => u.id === flying.id)?.state).toMatch(/uploading|queued/);
    remote = await openTestBackend(join(dir.path, 'remote'), { timing });
    await remote.backend.start();
    // Without a keychain (a machine with no desktop session) the key lasted only the run: enter it again, as the app asks.
    const profile = (await remote.value('profiles.list', {})).profiles.find((p) => p.id === profileId)!;
    if (profile.keyStorage === 'missing') await remote.value('profiles.setKey', { profileId: profileId!, apiKey: service.bootstrap.apiKey });
    await until(async () => (await get(flying.id))?.state === 'done', 60_000, 'the upload to resume after the restart');
    const done = await get(flying.id);
    expect(done.resumedFrom).toBeGreaterThan(0);
    expect(done.result?.sha256).toBe(sha256(path));
  }, 90_000);

  it('asks again while the service completes the very file it is about to send, and ends done rather than sending it again or failing', async () => {
    const moduleId = await module('upload-completing');
    const path = await archive('completing.tar.gz', 128 * 1024 * 1024);
    const bytes = readFileSync(path);
    const info = { moduleId, version: '5.0.0', platform: 'linux/amd64' };
    // The app's first question is held on its way while another client (straight to the service) sends the whole file.
    proxy.hold();
    const queued = await remote.value('registry.upload', { ...info, source: { path } });
    const direct = new FleetClient({ address: service.address, tls: false, apiKeyId: service.bootstrap.apiKeyId, apiKey: service.bootstrap.apiKey });
    try {
      const answered = new Promise<void>((resolve, reject) => {
        void direct.uploadStream((error) => (error ? reject(error) : resolve())).then((call) => {
          call.write(encodeUploadRequest({ moduleFile: { $case: 'moduleFileInfo', value: info }, writeOffset: 0 }));
          for (let at = 0; at < bytes.length; at += 1024 * 1024) call.write(encodeUploadRequest({ moduleFile: { $case: 'file', value: bytes.subarray(at, at + 1024 * 1024) }, writeOffset: 0 }));
          call.end();
        });
      });
      // Once the service is hashing and recording it, the app's question goes through: it is answered "completing". (On a machine
      // so fast that the completion ends between two looks, the app is answered "complete": that path ends done as well.)
      await until(
        async () => {
          const held = await direct.call('ask', direct.app.getModuleFileUpload, { moduleFileInfo: info });
          return held.completing || held.complete;
        },
        30_000,
        'the completion',
      );
      proxy.release();
      await answered;
    } finally {
      direct.close();
    }
    await until(async () => ['done', 'failed'].includes((await get(queued.id)).state), 30_000, 'the upload to end');
    const done = await get(queued.id);
    expect(done.error).toBeNull();
    expect(done.state).toBe('done');
    expect(done.result?.sha256).toBe(sha256(path));
  }, 90_000);
});
