/**
 * Issue #8: a module file at the service's size bound uploaded by the app at ≥ 85 % of the
 * throughput of a raw grpc-js client stream of the same bytes and chunk size (same run, same
 * service); the main process's RSS growth < 100 MB while it uploads; a cancel takes effect in
 * < 200 ms; after the service is killed mid-upload, at most one chunk is sent twice.
 *
 * - The file: a real gzipped tarball of random bytes (incompressible), just under 512 MiB.
 * - Baseline: a bare grpc-js client streams the file, read from disk in the app's chunk size, to
 *   one version of a module; nothing else (no hashing, no progress). It runs after the app's upload
 *   (both read the file from the page cache), so the app's RSS is measured from a clean start.
 * - Measured: the app's backend in this process (a remote profile on that service) uploads the same
 *   file as another version through the bridge, as the UI does: `registry.inspect` when the file is
 *   dropped (its checks, meta.json, its SHA-256; timed apart, it happens while the user confirms
 *   version and platform), then `registry.upload`: its checks, GetModuleFileUpload, reading and
 *   streaming, progress events. Time from the upload call to `done`.
 * - Cancel: a third upload is cancelled a second in; the time the bridge call takes to answer
 *   `cancelled`, and whether any byte was written to the stream after it answered.
 * - Kill: a fourth upload; the service is killed (SIGKILL) at ~40 % and started again on the same
 *   port and data; the upload resumes by itself. Sent twice = bytes the app's streams passed to
 *   the HTTP/2 transport in all (their write callbacks) minus the file's size.
 *
 *   npm run bench -- upload
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream, createWriteStream, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { randomBytes } from 'node:crypto';
import { credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import { create as createTar } from 'tar';
import type { Upload } from '../common/registry';
import { Backend } from '../main/backend/backend';
import { createRouter } from '../main/backend/router';
import { MemoryKeychain } from '../main/keychain/keychain';
import { UPLOAD_CHUNK_BYTES } from '../main/registry/uploads';
import { AppServiceClient } from '../proto/gen/fleet/app/v1/app';
import { AuthServiceClient } from '../proto/gen/fleet/auth/v1/auth';
import type { UploadModuleFileRequest } from '../proto/gen/fleet/app/v1/registry';
import { machine, report, repoRoot } from './lib';

const PAYLOAD_BYTES = Number(process.env.UPLOAD_BENCH_MIB ?? 510) * 1024 * 1024;
const MiB = 1024 * 1024;
/** The app's chunk size unless UPLOAD_BENCH_CHUNK_KIB says otherwise (the raw stream uses the same). */
const CHUNK = Number(process.env.UPLOAD_BENCH_CHUNK_KIB ?? UPLOAD_CHUNK_BYTES / 1024) * 1024;

async function token(address: string, keyId: string, key: string): Promise<Metadata> {
  const auth = new AuthServiceClient(address, credentials.createInsecure());
  const accessToken = await new Promise<string>((resolve, reject) =>
    auth.authenticate({ entity: keyId, credentials: { type: 'api-key', payload: key } }, (e, r) => (e ? reject(e) : resolve(r.accessToken))),
  );
  auth.close();
  const md = new Metadata();
  md.set('authorization', `Bearer ${accessToken}`);
  return md;
}

interface Service {
  address: string;
  apiKeyId: string;
  apiKey: string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

async function startService(dataDir: string, listen: string, demo: boolean): Promise<Service> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'service', 'main.ts'), '--listen', listen, '--data-dir', dataDir, ...(demo ? ['--demo'] : [])], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
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
    async kill(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const done = once(child, 'exit');
      child.kill(signal);
      await done;
    },
  };
}

/** The raw baseline: one client stream of the file, chunk by chunk from disk, with backpressure. */
async function rawUpload(address: string, md: Metadata, info: { moduleId: string; version: string; platform: string }, path: string, bytes?: number): Promise<number> {
  const client = new AppServiceClient(address, credentials.createInsecure(), { 'grpc-node.flow_control_window': 2 * MiB });
  const started = performance.now();
  await new Promise<void>((resolve, reject) => {
    const call = client.uploadModuleFile(md, {}, (e: ServiceError | null) => (e ? reject(e) : resolve()));
    call.write({ moduleFile: { $case: 'moduleFileInfo', value: info }, writeOffset: 0 } satisfies UploadModuleFileRequest);
    const file = createReadStream(path, { highWaterMark: CHUNK, ...(bytes ? { end: bytes - 1 } : {}) });
    file.on('data', (chunk) => {
      if (!call.write({ moduleFile: { $case: 'file', value: chunk as Buffer }, writeOffset: 0 } satisfies UploadModuleFileRequest)) {
        file.pause();
        call.once('drain', () => file.resume());
      }
    });
    file.on('end', () => call.end());
    file.on('error', reject);
  });
  const seconds = (performance.now() - started) / 1000;
  client.close();
  return seconds;
}

async function main(): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-bench-upload-'));
  const serviceDir = join(dir, 'service');
  mkdirSync(serviceDir);
  let service = await startService(serviceDir, '127.0.0.1:0', true);
  const listen = service.address;
  const log: string[] = [];
  const backend = await Backend.open({
    userDataDir: join(dir, 'user-data'),
    serviceEntry: join(repoRoot, 'service', 'main.ts'),
    cacheWorker: { entry: join(repoRoot, 'main', 'cache', 'worker.ts'), execArgv: ['--import', 'tsx'] },
    keychain: { store: new MemoryKeychain(), status: { available: false, reason: 'benchmark' } },
    timing: { refreshMs: 3_600_000, deadlineMs: 30_000, retryMinMs: 200, retryMaxMs: 1_000, uploadRetryMinMs: 200, uploadRetryMaxMs: 1_000, uploadChunkBytes: CHUNK },
    log: (m) => log.push(m),
  });
  const router = createRouter(backend.handlers, { isTrustedSender: () => true });
  const call = async <T>(channel: string, request: unknown): Promise<T> => {
    const result = await router.dispatch({ transport: 'ipc', url: 'bench', id: 1 }, channel, request);
    if (!result.ok) throw new Error(`${channel}: ${result.error.message}`);
    return result.value as T;
  };
  let latest: readonly Upload[] = [];
  backend.events.subscribe((event, payload) => {
    if (event === 'registry.uploads') latest = payload as readonly Upload[];
  });
  const state = (id: string) => latest.find((u) => u.id === id);
  const until = async (check: () => boolean, timeoutMs: number, what: string) => {
    const end = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}; log:\n${log.slice(-10).join('\n')}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  };

  try {
    // The file.
    const src = join(dir, 'src');
    mkdirSync(src);
    const payload = createWriteStream(join(src, 'payload.bin'));
    for (let left = PAYLOAD_BYTES; left > 0; left -= 8 * MiB) {
      if (!payload.write(randomBytes(Math.min(8 * MiB, left)))) await once(payload, 'drain');
    }
    payload.end();
    await once(payload, 'finish');
    const path = join(dir, 'module.tar.gz');
    await createTar({ gzip: { level: 1 }, file: path, cwd: src }, ['payload.bin']);
    rmSync(src, { recursive: true, force: true });
    const size = statSync(path).size;

    await call('profiles.add', { name: 'Bench', address: service.address, tls: false, apiKeyId: service.apiKeyId, apiKey: service.apiKey });
    const orgId = (await call<{ orgs: { id: string; name: string }[] }>('orgs.list', {})).orgs[0]!.id;
    const { moduleId } = await call<{ moduleId: string }>('registry.createModule', { orgId, name: 'bench-upload' });
    await call('registry.updateModule', { moduleId, url: '', description: 'benchmark', models: [], entrypoint: 'payload.bin', visibility: 'private', apps: [], firstRun: '' });
    const platform = 'linux/amd64';

    // Warm-up: the service's and this process's code paths run once (a raw upload of the file's first 64 MiB), so neither measured upload pays for JIT.
    const md = await token(service.address, service.apiKeyId, service.apiKey);
    await rawUpload(service.address, md, { moduleId, version: '0.0.0', platform }, path, 64 * MiB);

    // The app.
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const rssTimer = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 50);
    // As the app does it: the file is inspected when dropped (its checks, meta.json, its SHA-256), then queued.
    const inspectStarted = performance.now();
    await call('registry.inspect', { sources: [{ path }] });
    const inspectSeconds = (performance.now() - inspectStarted) / 1000;
    const started = performance.now();
    const queued = await call<Upload>('registry.upload', { moduleId, version: '0.0.2', platform, source: { path } });
    await until(() => state(queued.id)?.state === 'done' || state(queued.id)?.state === 'failed', 600_000, 'the upload');
    const appSeconds = (performance.now() - started) / 1000;
    clearInterval(rssTimer);
    if (state(queued.id)?.state !== 'done') throw new Error(`the upload failed: ${state(queued.id)?.error?.message}`);
    const appRate = size / appSeconds;
    const growth = (rssPeak - rssBefore) / MiB;

    // Baseline.
    const rawSeconds = await rawUpload(service.address, md, { moduleId, version: '0.0.1', platform }, path);
    const rawRate = size / rawSeconds;

    // Cancel.
    const toCancel = await call<Upload>('registry.upload', { moduleId, version: '0.0.3', platform, source: { path } });
    await until(() => (state(toCancel.id)?.sentBytes ?? 0) > 32 * MiB, 60_000, 'bytes on their way');
    const cancelStarted = performance.now();
    const cancelled = await call<Upload>('registry.cancelUpload', { uploadId: toCancel.id });
    const cancelMs = performance.now() - cancelStarted;
    const writtenAtCancel = backend.uploads.stats.bytesWritten;
    await new Promise((r) => setTimeout(r, 500));
    const writtenAfterCancel = backend.uploads.stats.bytesWritten - writtenAtCancel;

    // Kill.
    const toKill = await call<Upload>('registry.upload', { moduleId, version: '0.0.4', platform, source: { path } });
    const sentBefore = backend.uploads.stats.bytesSent;
    await until(() => (state(toKill.id)?.sentBytes ?? 0) > size * 0.4, 300_000, '40 % of the file');
    await service.kill('SIGKILL');
    await until(() => state(toKill.id)?.state === 'waiting', 30_000, 'the upload to notice');
    service = await startService(serviceDir, listen, false);
    await until(() => state(toKill.id)?.state === 'done' || state(toKill.id)?.state === 'failed', 600_000, 'the resumed upload');
    const killed = state(toKill.id)!;
    if (killed.state !== 'done') throw new Error(`the resumed upload failed: ${killed.error?.message}`);
    const resent = backend.uploads.stats.bytesSent - sentBefore - size;

    const mbps = (bytesPerSecond: number) => `${(bytesPerSecond / MiB).toFixed(1)} MiB/s`;
    console.log(`upload on ${machine()}`);
    console.log(`  file: ${(size / MiB).toFixed(1)} MiB gzipped tarball (random bytes); chunks of ${CHUNK / 1024} KiB`);
    console.log(`  raw grpc-js client stream: ${rawSeconds.toFixed(2)} s, ${mbps(rawRate)}`);
    console.log(`  the app: inspected (gunzip + tar headers + SHA-256) in ${inspectSeconds.toFixed(2)} s when dropped; then queued → done (checks, GetModuleFileUpload, read + stream, progress events): ${appSeconds.toFixed(2)} s, ${mbps(appRate)}; main RSS ${Math.round(rssBefore / MiB)} → peak ${Math.round(rssPeak / MiB)} MB`);
    console.log(`  cancel: answered in ${cancelMs.toFixed(1)} ms (state ${cancelled.state}); bytes written after: ${writtenAfterCancel}`);
    console.log(`  kill at ${((killed.resumedFrom / size) * 100).toFixed(0)} % (resumed from ${(killed.resumedFrom / MiB).toFixed(1)} MiB): sent twice ${(resent / 1024).toFixed(0)} KiB (${(resent / CHUNK).toFixed(2)} chunks); SHA-256 ${killed.result?.sha256.slice(0, 16)}…`);
    return [
      report({ name: 'upload throughput (vs raw grpc-js stream)', ratio: rawRate / appRate, limit: 1 / 0.85, detail: `${mbps(appRate)} vs ${mbps(rawRate)} raw (${((appRate / rawRate) * 100).toFixed(0)} %, target ≥ 85 %)` }),
      report({ name: 'main RSS growth while uploading (vs 100 MB)', ratio: growth / 100, limit: 1, detail: `${growth.toFixed(1)} MB` }),
      report({ name: 'cancel takes effect (vs 200 ms)', ratio: writtenAfterCancel > 0 ? Infinity : cancelMs / 200, limit: 1, detail: `${cancelMs.toFixed(1)} ms, ${writtenAfterCancel} bytes written after` }),
      report({ name: 'sent twice after a kill (vs one chunk)', ratio: Math.max(0, resent) / CHUNK, limit: 1, detail: `${(resent / 1024).toFixed(0)} KiB` }),
    ].every(Boolean);
  } finally {
    await backend.close();
    await service.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  (ok) => process.exit(ok ? 0 : 1),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
