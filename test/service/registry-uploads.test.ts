// What the service promises about uploads under concurrency and abuse (docs/PROTOCOL.md sections 8
// and 9): completion is atomic with respect to every other stream of the same file, a refused
// stream removes only its own bytes, idle streams and dead peers release what they hold, and one
// key cannot hold more than its share of upload streams. Each over a real socket.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, readlinkSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { credentials, status, type Metadata, type ServiceError } from '@grpc/grpc-js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppServiceClient } from '../../proto/gen/fleet/app/v1/app';
import type { UploadModuleFileRequest } from '../../proto/gen/fleet/app/v1/registry';
import { startService } from '../../service/server';
import { startHoldProxy } from '../helpers/hold-proxy';
import { canMount } from '../helpers/mount';
import { appCall, bearer, createKeyWithOrg, ownerMetadata, startTestService, tokenFor, uploadFile, type TestService } from './helpers';

let t: TestService;
let owner: Metadata;
let orgId: string;
let names = 0;

beforeAll(async () => {
  // An idle bound long enough that a loaded machine's pauses never end a live stream, short enough for the idle test.
  t = await startTestService({ uploads: { idleMs: 2000, perKey: 4, total: 6 } });
  owner = await ownerMetadata(t);
  orgId = (await appCall(t, 'createOrganization', { name: 'Uploads Co' }, owner)).organization!.id;
});
afterAll(async () => {
  await t.stop();
});

async function module(): Promise<string> {
  const { moduleId } = await appCall(t, 'createModule', { orgId, name: `up-${++names}` }, owner);
  await appCall(t, 'updateModule', { moduleId, url: 'https://example.com/m', description: 'd', models: [], entrypoint: 'run.sh' }, owner);
  return moduleId;
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An open upload stream whose answer is kept, to write to at the test's pace. */
function openStream(info: { moduleId: string; version: string; platform: string }, writeOffset = 0, metadata: Metadata = owner) {
  let answer: { error: ServiceError | null; sha256?: string; sizeBytes?: number } | null = null;
  let settle: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (settle = resolve));
  const call = t.app.uploadModuleFile(metadata, (error, response) => {
    answer = { error, sha256: response?.sha256, sizeBytes: response?.sizeBytes };
    settle();
  });
  call.write({ moduleFile: { $case: 'moduleFileInfo', value: info }, writeOffset } satisfies UploadModuleFileRequest);
  return {
    call,
    done,
    answer: () => answer,
    send: (chunk: Buffer) => call.write({ moduleFile: { $case: 'file', value: chunk }, writeOffset: 0 } satisfies UploadModuleFileRequest),
  };
}

/** The bytes on disk of a registry file the service lists, as ListRegistryItemVersions lists it. */
async function listedFile(moduleId: string, version: string, platform: string) {
  const { versions } = await appCall(t, 'listRegistryItemVersions', { itemId: moduleId }, owner);
  return versions.find((v) => v.version === version)?.files.find((f) => f.platform === platform);
}

function diskPath(moduleId: string, version: string, platform: string): string {
  const id = t.db().prepare('SELECT id FROM registry_items WHERE organization_id = ? AND name = ?').pluck().get(orgId, moduleId.split(':')[1]) as string;
  return join(t.dataDir, 'registry', 'files', id, version, platform.replace('/', '-'));
}

describe('completion is atomic', () => {
  it('a stream started while another completes the same file never touches the committed file, and GetModuleFileUpload never answers 0 meanwhile', async () => {
    const moduleId = await module();
    const info = { moduleId, version: '1.0.0', platform: 'linux/amd64' };
    // Large enough that hashing it takes a while: the window the race needs.
    const file = Buffer.alloc(96 * 1024 * 1024);
    for (let i = 0; i < file.length; i += 4096) file.writeUInt32LE((i ^ 0x9e3779b9) >>> 0, i);
    const a = openStream(info);
    for (let off = 0; off < file.length; off += 1024 * 1024) a.send(file.subarray(off, off + 1024 * 1024));
    a.call.end();
    // Ask the way a resuming client asks, until the file is complete. The moment the service says it is completing (or says "0"
    // after it held bytes, as it did), a second stream starts from 0: what a client that read "0" does.
    const seen: { committedBytes: number; complete: boolean; completing: boolean }[] = [];
    let b: ReturnType<typeof openStream> | null = null;
    for (let i = 0; i < 2000; i++) {
      const held = await appCall(t, 'getModuleFileUpload', { moduleFileInfo: info }, owner);
      seen.push({ committedBytes: held.committedBytes, complete: held.complete, completing: held.completing });
      if (b === null && !held.complete && (held.completing || (held.committedBytes === 0 && seen.some((s) => s.committedBytes > 0)))) {
        b = openStream(info, 0);
        b.send(Buffer.from('hello'));
        b.call.end();
      }
      if (held.complete) break;
      await sleep(2);
    }
    await a.done;
    if (b) await (b as ReturnType<typeof openStream>).done;
    expect(a.answer()?.error ?? null).toBeNull();
    expect(a.answer()?.sha256).toBe(sha(file));
    expect(b).not.toBeNull();
    expect(seen.some((s) => s.completing && s.committedBytes === file.length)).toBe(true);
    expect((b as unknown as ReturnType<typeof openStream>).answer()?.error).toMatchObject({ code: status.ALREADY_EXISTS });
    const listed = await listedFile(moduleId, '1.0.0', 'linux/amd64');
    expect(listed).toMatchObject({ sizeBytes: file.length, sha256: sha(file) });
    const path = diskPath(moduleId, '1.0.0', 'linux/amd64');
    expect(existsSync(path)).toBe(true);
    expect(statSync(path).size).toBe(file.length);
    expect(sha(readFileSync(path))).toBe(sha(file));
    expect(readdirSync(join(t.dataDir, 'registry', 'uploads'))).toEqual([]);
    // Once any bytes were held, no answer said "nothing held, start again" while the file was not complete.
    const firstHeld = seen.findIndex((s) => s.committedBytes > 0);
    expect(seen.slice(firstHeld).filter((s) => !s.complete && !s.completing && s.committedBytes === 0)).toEqual([]);
  }, 60_000);
});

/** One stream of the property test: where it starts, which of two contents it sends, how many chunks, and how it ends. */
interface StreamPlan {
  /** Starts this long after the test starts, or after the stream before it half-closed or cancelled (`afterPrevious`). */
  readonly delayMs: number;
  readonly afterPrevious: boolean;
  /** Start from 0, or continue from what GetModuleFileUpload says is held. */
  readonly from: 'zero' | 'held';
  /** Which of the two contents it sends (clients that disagree on the file). */
  readonly content: 0 | 1;
  /** Chunks sent before it ends (of the rest of the file from its offset). */
  readonly chunks: number;
  readonly end: 'half-close' | 'cancel';
}

const CHUNK = 256 * 1024;
const planArb: fc.Arbitrary<StreamPlan> = fc.record({
  delayMs: fc.integer({ min: 0, max: 30 }),
  afterPrevious: fc.boolean(),
  from: fc.constantFrom('zero' as const, 'held' as const),
  content: fc.constantFrom(0 as const, 1 as const),
  chunks: fc.integer({ min: 0, max: 12 }),
  end: fc.constantFrom('half-close' as const, 'half-close' as const, 'cancel' as const),
});

describe('any order of streams, cancels and resumes of one file', () => {
  it('ends with the registry and the disk agreeing, and every listed file holding the SHA-256 its upload was told', async () => {
    let run = 0;
    await fc.assert(
      // Files up to 3 MiB: large enough that a completion (hashing) takes a few milliseconds, the window other streams can land in.
      fc.asyncProperty(fc.array(planArb, { minLength: 1, maxLength: 5 }), fc.integer({ min: 1, max: 3 * 1024 * 1024 }), async (plans, size) => {
        const moduleId = await module();
        const version = `9.${run++}.0`;
        const info = { moduleId, version, platform: 'linux/amd64' };
        const contents = [bytes(size, 1), bytes(size, 2)] as const;
        const told: { sha256: string; sizeBytes: number }[] = [];
        const ended = plans.map(() => {
          let resolve: () => void = () => undefined;
          const promise = new Promise<void>((r) => (resolve = r));
          return { promise, resolve };
        });
        await Promise.all(
          plans.map(async (plan, i) => {
            if (plan.afterPrevious && i > 0) await ended[i - 1]!.promise;
            await sleep(plan.delayMs);
            const offset = plan.from === 'zero' ? 0 : (await appCall(t, 'getModuleFileUpload', { moduleFileInfo: info }, owner)).committedBytes;
            const rest = contents[plan.content].subarray(Math.min(offset, size));
            const stream = openStream(info, offset);
            for (let c = 0; c < plan.chunks && c * CHUNK < rest.length; c++) stream.send(rest.subarray(c * CHUNK, (c + 1) * CHUNK));
            if (plan.end === 'cancel') {
              await sleep(5);
              stream.call.cancel();
            } else stream.call.end();
            ended[i]!.resolve();
            await stream.done;
            const answer = stream.answer();
            if (answer && answer.error === null) told.push({ sha256: answer.sha256!, sizeBytes: answer.sizeBytes! });
            // Anything else is one of the protocol's answers for a stream that lost, was cut off or was refused (five streams of one
            // key are over its bound of 4 when none of them replaces a receiving one: RESOURCE_EXHAUSTED); never INTERNAL.
            else expect([status.ALREADY_EXISTS, status.ABORTED, status.CANCELLED, status.FAILED_PRECONDITION, status.INVALID_ARGUMENT, status.RESOURCE_EXHAUSTED], t.logs.slice(-3).join("\n")).toContain(answer?.error?.code);
          }),
        );
        const listed = await listedFile(moduleId, version, 'linux/amd64');
        const path = diskPath(moduleId, version, 'linux/amd64');
        if (listed === undefined) {
          expect(told).toEqual([]);
          expect(existsSync(path)).toBe(false);
        } else {
          // One stream committed it, and the disk holds exactly what that stream was told.
          expect(told).toEqual([{ sha256: listed.sha256, sizeBytes: listed.sizeBytes }]);
          expect(statSync(path).size).toBe(listed.sizeBytes);
          expect(sha(readFileSync(path))).toBe(listed.sha256);
        }
        // An upload row and its `.part` go together; what GetModuleFileUpload says is held is on disk.
        const held = await heldSettled(info);
        const part = join(t.dataDir, 'registry', 'uploads', `${diskPath(moduleId, version, 'linux/amd64').split('/').at(-3)}_${version}_linux-amd64.part`);
        if (listed !== undefined) expect(held.complete).toBe(true);
        else expect(existsSync(part) ? statSync(part).size : 0).toBe(held.committedBytes);
        expect(openParts()).toEqual([]);
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});

/** GetModuleFileUpload once no stream of the file is left running (cut-off streams are noticed asynchronously). */
async function heldSettled(info: { moduleId: string; version: string; platform: string }) {
  for (let i = 0; ; i++) {
    const held = await appCall(t, 'getModuleFileUpload', { moduleFileInfo: info }, owner);
    if ((openParts().length === 0 && !held.completing) || i > 200) return held;
    await sleep(10);
  }
}

/** GetModuleFileUpload once the service holds at least `expected` bytes (a cut-off stream is noticed asynchronously). */
async function heldEventually(info: { moduleId: string; version: string; platform: string }, expected: number, metadata: Metadata = owner) {
  const until = Date.now() + 5000;
  for (;;) {
    const held = await appCall(t, 'getModuleFileUpload', { moduleFileInfo: info }, metadata);
    if (held.committedBytes >= expected || Date.now() > until) return held;
    await sleep(25);
  }
}

/** Descriptors this process (the service runs in it) holds open on an upload's `.part` files. */
function openParts(dataDir = t.dataDir): string[] {
  const parts: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(join(dataDir, 'registry', 'uploads'))) parts.push(target);
    } catch {
      // Closed while listed.
    }
  }
  return parts;
}

const bytes = (n: number, seed = 1) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + seed) % 251));
const mebibytes = (b: Buffer) => Array.from({ length: Math.ceil(b.length / 1048576) }, (_, i) => b.subarray(i * 1048576, (i + 1) * 1048576));

describe('a refused stream removes only its own bytes', () => {
  it('a resumed stream refused for its contents leaves what earlier streams committed', async () => {
    const moduleId = await module();
    const info = { moduleId, version: '2.0.0', platform: 'linux/arm64' };
    const file = bytes(3000, 7);
    const first = openStream(info);
    first.send(file.subarray(0, 1000));
    await heldEventually(info, 1000);
    first.call.cancel();
    await first.done;
    expect((await heldEventually(info, 1000)).committedBytes).toBe(1000);
    // A resumed stream sends a chunk over the bound: refused, and only its own bytes go.
    const refused = openStream(info, 1000);
    refused.send(file.subarray(1000, 1500));
    refused.send(Buffer.alloc(1024 * 1024 + 1));
    refused.call.end();
    await refused.done;
    expect(refused.answer()?.error).toMatchObject({ code: status.INVALID_ARGUMENT });
    expect((await appCall(t, 'getModuleFileUpload', { moduleFileInfo: info }, owner)).committedBytes).toBe(1000);
    expect(await uploadFile(t, info, [file.subarray(1000)], owner, { writeOffset: 1000 })).toMatchObject({ sizeBytes: 3000, sha256: sha(file) });
  });
});

describe('what one client can hold', () => {
  it('an upload stream that sends nothing for the idle timeout ends ABORTED (UPLOAD_IDLE), lets go of its file, and keeps its bytes for a resume', async () => {
    const moduleId = await module();
    const info = { moduleId, version: '3.0.0', platform: 'linux/amd64' };
    const file = bytes(5000, 3);
    const quiet = openStream(info);
    quiet.send(file.subarray(0, 2000));
    await heldEventually(info, 2000);
    expect(openParts()).toHaveLength(1);
    await quiet.done;
    expect(quiet.answer()?.error).toMatchObject({ code: status.ABORTED, details: expect.stringMatching(/no chunk arrived for 2 s.*2000 bytes received are kept/) });
    expect(quiet.answer()?.error?.metadata.get('fleet-error-reason')).toEqual(['UPLOAD_IDLE']);
    expect(openParts()).toEqual([]);
    expect((await appCall(t, 'getModuleFileUpload', { moduleFileInfo: info }, owner)).committedBytes).toBe(2000);
    expect(await uploadFile(t, info, [file.subarray(2000)], owner, { writeOffset: 2000 })).toMatchObject({ sizeBytes: 5000, sha256: sha(file) });
  });

  it('one key holds at most its bound of upload streams (RESOURCE_EXHAUSTED, UPLOAD_LIMIT), a resume of its own file is let in, and the service bounds all keys together', async () => {
    const moduleId = await module();
    const info = (i: number) => ({ moduleId, version: `4.0.${i}`, platform: 'linux/amd64' });
    const open: ReturnType<typeof openStream>[] = [];
    // Streams that keep sending a byte now and then, so the idle timeout does not end them during the test.
    const quiet = new Set<ReturnType<typeof openStream>>();
    const alive = setInterval(() => open.forEach((s) => s.answer() === null && !quiet.has(s) && s.send(Buffer.from([1]))), 100);
    try {
      for (let i = 0; i < 4; i++) {
        open.push(openStream(info(i)));
        open[i]!.send(bytes(100));
      }
      for (let i = 0; i < 4; i++) await heldEventually(info(i), 100);
      const fifth = openStream(info(4));
      fifth.send(bytes(10));
      fifth.call.end();
      await fifth.done;
      expect(fifth.answer()?.error).toMatchObject({ code: status.RESOURCE_EXHAUSTED, details: expect.stringMatching(/this API key has 4 uploads streaming already/) });
      expect(fifth.answer()?.error?.metadata.get('fleet-error-reason')).toEqual(['UPLOAD_LIMIT']);
      // A stream that continues one of the key's own files replaces that stream: let in at the bound. (The older one stops
      // sending first, and what it sent has landed, so the offset read is the one the service holds.)
      quiet.add(open[0]!);
      let held = -1;
      for (;;) {
        const now = (await appCall(t, 'getModuleFileUpload', { moduleFileInfo: info(0) }, owner)).committedBytes;
        if (now === held) break;
        held = now;
        await sleep(150);
      }
      const resumed = openStream(info(0), held);
      resumed.call.end();
      await resumed.done;
      expect(resumed.answer()?.error ?? null).toBeNull();
      await open[0]!.done;
      expect(open[0]!.answer()?.error).toMatchObject({ code: status.ABORTED });
      // Another key may stream while this one is at its bound, up to the service's bound (6 in all here).
      const other = await createKeyWithOrg(t, 'Other uploads');
      const otherOwner = bearer(await tokenFor(t, other.keyId, other.secret));
      const { moduleId: otherModule } = await appCall(t, 'createModule', { orgId: other.orgId, name: 'theirs' }, otherOwner);
      await appCall(t, 'updateModule', { moduleId: otherModule, url: 'https://example.com/m', description: 'd', models: [], entrypoint: 'run.sh' }, otherOwner);
      const theirs = (i: number) => ({ moduleId: otherModule, version: `1.0.${i}`, platform: 'linux/amd64' });
      // This key streams 3 now (the 4th ended when its resume took over): the other key gets 3 more, then the service is full.
      for (let i = 0; i < 3; i++) {
        open.push(openStream(theirs(i), 0, otherOwner));
        open.at(-1)!.send(bytes(10));
        expect((await heldEventually(theirs(i), 10, otherOwner)).committedBytes).toBeGreaterThanOrEqual(10);
      }
      const overAll = openStream(theirs(3), 0, otherOwner);
      overAll.send(bytes(10));
      overAll.call.end();
      await overAll.done;
      expect(overAll.answer()?.error).toMatchObject({ code: status.RESOURCE_EXHAUSTED, details: expect.stringMatching(/the service is taking 6 uploads at once/) });
    } finally {
      clearInterval(alive);
      for (const s of open) s.call.cancel();
      await Promise.all(open.map((s) => s.done));
    }
  });
});

describe('races the review found', () => {
  it('a stream of a file whose item is deleted meanwhile answers NOT_FOUND, half-closed or cut off, never INTERNAL', async () => {
    for (const ending of ['half-close', 'cancel'] as const) {
      const moduleId = await module();
      const info = { moduleId, version: '6.0.0', platform: 'linux/amd64' };
      const stream = openStream(info);
      stream.send(bytes(5000));
      await heldEventually(info, 5000);
      await appCall(t, 'deleteRegistryItem', { itemId: moduleId }, owner);
      const before = t.logs.filter((l) => l.includes('failed unexpectedly')).length;
      if (ending === 'half-close') stream.call.end();
      else stream.call.cancel();
      await stream.done;
      if (ending === 'half-close') expect(stream.answer()?.error).toMatchObject({ code: status.NOT_FOUND });
      await sleep(200);
      expect(t.logs.filter((l) => l.includes('failed unexpectedly')).length).toBe(before);
    }
  });

  it('streams waiting on a completing file count against the key: they cannot get past its bound', async () => {
    const moduleId = await module();
    const info = { moduleId, version: '7.0.0', platform: 'linux/amd64' };
    const file = Buffer.alloc(64 * 1024 * 1024, 5);
    const first = openStream(info);
    for (let at = 0; at < file.length; at += 1024 * 1024) first.send(file.subarray(at, at + 1024 * 1024));
    first.call.end();
    for (let i = 0; i < 500 && !(await appCall(t, 'getModuleFileUpload', { moduleFileInfo: info }, owner)).completing; i++) await sleep(5);
    // Five more of the same file from the same key while it completes: the key's bound (4) stops them, the first in.
    const more = Array.from({ length: 5 }, () => {
      const s = openStream(info);
      s.send(bytes(10));
      s.call.end();
      return s;
    });
    await Promise.all([first.done, ...more.map((m) => m.done)]);
    const limited = more.filter((m) => m.answer()?.error?.code === status.RESOURCE_EXHAUSTED);
    expect(limited.length).toBeGreaterThanOrEqual(2);
    expect(more.every((m) => [status.RESOURCE_EXHAUSTED, status.ALREADY_EXISTS].includes(m.answer()!.error!.code))).toBe(true);
    expect(first.answer()?.error ?? null).toBeNull();
  });

  it('a second instance serving the same data dir refuses uploads (UNAVAILABLE, UPLOADS_ELSEWHERE); the first keeps taking them', async () => {
    const second = await startService({ listen: '127.0.0.1:0', dataDir: t.dataDir, simulate: false, log: () => undefined });
    const app2 = new AppServiceClient(second.address, credentials.createInsecure());
    try {
      const moduleId = await module();
      const info = { moduleId, version: '8.0.0', platform: 'linux/amd64' };
      const refused = await new Promise<ServiceError | null>((resolve) => {
        const c = app2.uploadModuleFile(owner, (e) => resolve(e));
        c.write({ moduleFile: { $case: 'moduleFileInfo', value: info }, writeOffset: 0 });
        c.write({ moduleFile: { $case: 'file', value: bytes(10) }, writeOffset: 0 });
        c.end();
      });
      expect(refused).toMatchObject({ code: status.UNAVAILABLE, details: expect.stringMatching(new RegExp(`another instance of the fleet service \\(pid ${process.pid}\\) serving this data dir takes its uploads`)) });
      expect(refused?.metadata.get('fleet-error-reason')).toEqual(['UPLOADS_ELSEWHERE']);
      // The first still takes them.
      expect(await uploadFile(t, info, [bytes(10)], owner)).toMatchObject({ sizeBytes: 10 });
    } finally {
      app2.close();
      await second.close();
    }
  });
});

describe('dead peers and full disks', () => {
  it('server keepalive drops a peer that stopped answering: its upload stream ends, lets go of its file, and keeps its bytes', async () => {
    const k = await startTestService({ keepalive: { timeMs: 300, timeoutMs: 300 } });
    const proxy = await startHoldProxy(k.service.address);
    const viaProxy = new AppServiceClient(proxy.address, credentials.createInsecure());
    try {
      const meta = await ownerMetadata(k);
      const org = (await appCall(k, 'createOrganization', { name: 'Keepalive Co' }, meta)).organization!.id;
      const { moduleId } = await appCall(k, 'createModule', { orgId: org, name: 'kept' }, meta);
      await appCall(k, 'updateModule', { moduleId, url: 'https://example.com/m', description: 'd', models: [], entrypoint: 'run.sh' }, meta);
      const info = { moduleId, version: '1.0.0', platform: 'linux/amd64' };
      const call = viaProxy.uploadModuleFile(meta, () => undefined);
      call.write({ moduleFile: { $case: 'moduleFileInfo', value: info }, writeOffset: 0 });
      call.write({ moduleFile: { $case: 'file', value: bytes(4096) }, writeOffset: 0 });
      const parts = () => openParts(k.dataDir);
      for (let i = 0; i < 100 && (await appCall(k, 'getModuleFileUpload', { moduleFileInfo: info }, meta)).committedBytes < 4096; i++) await sleep(20);
      expect(parts()).toHaveLength(1);
      // The peer goes silent: nothing it sends (its ping answers included) reaches the service any more.
      proxy.hold();
      for (let i = 0; i < 100 && parts().length > 0; i++) await sleep(50);
      expect(parts()).toEqual([]);
      expect((await appCall(k, 'getModuleFileUpload', { moduleFileInfo: info }, meta)).committedBytes).toBe(4096);
    } finally {
      viaProxy.close();
      await proxy.close();
      await k.stop();
    }
  });

  // A real full disk: a 1 MiB tmpfs mounted over the service's uploads folder (CI runs as root, as this machine does; where
  // mounting is not allowed, the test cannot make a full disk and does not run).
  it.runIf(canMount())('a full disk answers RESOURCE_EXHAUSTED (DISK_FULL) saying what to free, logged once, removes the refused bytes, and uploads work again once there is room', async () => {
    const moduleId = await module();
    const info = { moduleId, version: '5.0.0', platform: 'linux/amd64' };
    const uploads = join(t.dataDir, 'registry', 'uploads');
    mkdirSync(uploads, { recursive: true });
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', uploads]);
    expect(mounted.status, String(mounted.stderr)).toBe(0);
    const file = bytes(3 * 1024 * 1024, 11);
    const logged = () => t.logs.filter((l) => l.includes('disk is full')).length;
    const before = logged();
    try {
      for (let i = 0; i < 3; i++) {
        const refused = await uploadFile(t, info, mebibytes(file), owner).then(
          () => null,
          (e: ServiceError) => e,
        );
        expect(refused).toMatchObject({ code: status.RESOURCE_EXHAUSTED, details: expect.stringMatching(/disk is full: free space/) });
        expect(refused?.metadata.get('fleet-error-reason')).toEqual(['DISK_FULL']);
        expect(readdirSync(uploads)).toEqual([]);
      }
      expect(logged() - before).toBe(1);
    } finally {
      spawnSync('umount', [uploads]);
    }
    expect(await uploadFile(t, info, mebibytes(file), owner)).toMatchObject({ sizeBytes: file.length, sha256: sha(file) });
  });
});

