/**
 * Browser mode's HTTP and WebSocket layer against hostile input, on a real server with the real
 * backend: nothing a client sends may take the process down or reach outside the renderer folder.
 * Requests are written on raw TCP sockets where a client library would normalise them first.
 */
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { WS_PATH, type WireFrame } from '../../common/bridge';
import { StagingError } from '../../main/web/staging';
import { startWebServer, type WebServer, type WebServerLimits } from '../../main/web/server';
import { openTestBackend, tempDir, type TestBackend } from '../helpers/backend';
import { canMount } from '../helpers/mount';

const TOKEN = 'web-server-test-token';
const SECRET = 'outside-the-renderer-folder';

let dir: ReturnType<typeof tempDir>;
let app: TestBackend;
let server: WebServer;
const logs: string[] = [];
/** The session cookie (`name=value`) the launch token was exchanged for. */
let cookie: string;

beforeAll(async () => {
  dir = tempDir('fleet-desk-web-server-');
  // The backend is real but its service is never started: these tests are about the transport.
  app = await openTestBackend(join(dir.path, 'user-data'));
  const rendererDir = join(dir.path, 'renderer');
  mkdirSync(join(rendererDir, 'assets'), { recursive: true });
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>Fleet Desk</title>');
  writeFileSync(join(rendererDir, 'assets', 'app.js'), 'console.log("app");');
  // What a traversal would be after: a file beside the renderer folder.
  writeFileSync(join(dir.path, 'secret.txt'), SECRET);
  server = await startWebServer({ handlers: app.backend.handlers, events: app.backend.events, rendererDir, token: TOKEN, log: (m) => logs.push(m), stageUpload: (name, body, size) => app.backend.uploads.stage(name, body, size) });
  const first = await fetch(server.url);
  expect(first.status).toBe(200);
  cookie = (first.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
});
afterAll(async () => {
  await server.close();
  await app.close();
  dir.remove();
});

/** Writes `request` as is on a new TCP connection and returns everything the server sends back. */
async function raw(request: string): Promise<{ status: number; text: string }> {
  const { port } = new URL(server.origin);
  const socket = connect(Number(port), '127.0.0.1');
  await once(socket, 'connect');
  socket.write(request);
  // A server that died or hung never answers: give up rather than wait for the test timeout.
  socket.setTimeout(5_000, () => socket.destroy());
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  await once(socket, 'close');
  const text = Buffer.concat(chunks).toString('utf8');
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text };
}

const get = (target: string, extra = '') => raw(`GET ${target} HTTP/1.1\r\nHost: ${new URL(server.origin).host}\r\n${extra}Connection: close\r\n\r\n`);

async function stillServing(): Promise<void> {
  expect((await fetch(`${server.origin}/`, { headers: { cookie } })).status).toBe(200);
}

describe('the upload staging endpoint (browser mode)', () => {
  const post = (headers: Record<string, string>, body: Uint8Array<ArrayBuffer>, name = 'mod-1.0.0-linux-amd64.tar.gz') =>
    fetch(`${server.origin}/uploads?name=${encodeURIComponent(name)}`, { method: 'POST', headers, body: new Blob([body]) });

  it("takes a file from the page's own session and origin, streams it to disk, and answers its staged id", async () => {
    const bytes = new Uint8Array(300_000).map((_, i) => i % 251);
    const response = await post({ cookie, origin: server.origin, 'content-type': 'application/octet-stream' }, bytes);
    expect(response.status).toBe(200);
    const staged = (await response.json()) as { stagedId: string; fileName: string };
    expect(staged.fileName).toBe('mod-1.0.0-linux-amd64.tar.gz');
    const resolved = app.backend.uploads.resolveSource({ stagedId: staged.stagedId });
    expect(new Uint8Array(readFileSync(resolved.path))).toEqual(bytes);
  });

  it('refuses another origin, no session, a wrong method, and a body over the bound, without staging anything', async () => {
    const bytes = new Uint8Array(10);
    expect((await post({ origin: server.origin }, bytes)).status).toBe(403);
    expect((await post({ cookie, origin: 'http://evil.example' }, bytes)).status).toBe(403);
    expect((await fetch(`${server.origin}/uploads`, { headers: { cookie } })).status).toBe(405);
    const huge = await raw(
      `POST /uploads?name=x.tar.gz HTTP/1.1\r\nHost: ${new URL(server.origin).host}\r\nOrigin: ${server.origin}\r\nCookie: ${cookie}\r\nContent-Length: ${600 * 1024 * 1024}\r\nConnection: close\r\n\r\n`,
    );
    expect(huge.status).toBe(413);
    expect(huge.text).toContain('512 MiB');
    await stillServing();
  });

  it('keeps only the base name of what the page calls the file', async () => {
    const response = await post({ cookie, origin: server.origin }, new Uint8Array(5), '../../etc/passwd');
    const staged = (await response.json()) as { stagedId: string; fileName: string };
    expect(staged.fileName).toBe('passwd');
    expect(app.backend.uploads.resolveSource({ stagedId: staged.stagedId }).path.startsWith(join(dir.path, 'user-data', 'staging'))).toBe(true);
  });
});

const MiB = 1024 * 1024;

const until = async (check: () => boolean, what: string, timeoutMs = 10_000) => {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

/** A server of its own over `backend`, with its session cookie, for tests that need other limits. */
async function ownServer(backend: TestBackend, limits: WebServerLimits, log: (m: string) => void = () => undefined): Promise<{ server: WebServer; cookie: string; close: () => Promise<void> }> {
  const own = await startWebServer({ handlers: backend.backend.handlers, events: backend.backend.events, rendererDir: join(dir.path, 'renderer'), token: 'own-token', log, limits, stageUpload: (name, body, size) => backend.backend.uploads.stage(name, body, size) });
  const session = ((await fetch(own.url)).headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  return { server: own, cookie: session, close: () => own.close() };
}

/**
 * An upload on a raw socket: the headers (announcing `length` bytes) and `first` bytes of the body,
 * then whatever the test does. `answer` resolves with what the server sent once it closes.
 */
async function rawUpload(target: WebServer, session: string, length: number, first: number): Promise<{ socket: Socket; answer: Promise<{ status: number; text: string }> }> {
  const socket = connect(Number(new URL(target.origin).port), '127.0.0.1');
  await once(socket, 'connect');
  socket.on('error', () => undefined);
  // A server that never answers fails the test here, not at its timeout (which would skip the unmounting).
  socket.setTimeout(10_000, () => socket.destroy());
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  const answer = once(socket, 'close').then(() => {
    const text = Buffer.concat(chunks).toString('utf8');
    return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text };
  });
  socket.write(`POST /uploads?name=slow.tar.gz HTTP/1.1\r\nHost: ${new URL(target.origin).host}\r\nOrigin: ${target.origin}\r\nCookie: ${session}\r\nContent-Length: ${length}\r\n\r\n`);
  if (first > 0) socket.write(Buffer.alloc(first, 7));
  return { socket, answer };
}

describe('staging limits (browser mode)', () => {
  let limited: TestBackend;
  let staging: string;
  const files = () => readdirSync(staging);
  const parts = () => files().filter((f) => f.endsWith('.part'));
  const post = (target: { server: WebServer; cookie: string }, bytes: number) =>
    fetch(`${target.server.origin}/uploads?name=mod-${bytes}.tar.gz`, { method: 'POST', headers: { cookie: target.cookie, origin: target.server.origin }, body: new Blob([new Uint8Array(bytes)]) });

  beforeAll(async () => {
    // A 1 MiB bound, and no reserve: these tests are about the bound, not this machine's free space.
    limited = await openTestBackend(join(dir.path, 'limited'), { staging: { maxBytes: MiB, reserveBytes: 0 } });
    staging = join(dir.path, 'limited', 'staging');
  });
  afterAll(async () => {
    await limited.close();
  });

  it('refuses a file whose announced length would pass the bound with 507 before reading a byte of it, saying what to do', async () => {
    const own = await ownServer(limited, {});
    try {
      const first = await post(own, 600 * 1024);
      expect(first.status).toBe(200);
      const { stagedId } = (await first.json()) as { stagedId: string };
      // Headers only: the answer comes without the body ever being sent.
      const { socket, answer } = await rawUpload(own.server, own.cookie, 600 * 1024, 0);
      const refused = await answer;
      socket.destroy();
      expect(refused.status).toBe(507);
      expect(refused.text).toContain(
        '{"error":"Files waiting to be uploaded take 600 KiB of the 1 MiB this app keeps for them, so slow.tar.gz (600 KiB) was not taken. Upload or remove files in the upload queue, or discard files you added and did not upload, then add it again."}',
      );
      expect(files().sort()).toEqual([stagedId, `${stagedId}.json`].sort());
      // A file larger than the bound itself says so.
      const huge = await post(own, MiB + 1);
      expect(huge.status).toBe(507);
      expect(((await huge.json()) as { error: string }).error).toMatch(/is larger than the 1 MiB this app keeps for files waiting to be uploaded \(FLEET_DESK_STAGING_MAX_BYTES/);
      // Room again once the page discards what it will not upload.
      await limited.value('registry.discardStaged', { stagedId });
      const again = await post(own, 600 * 1024);
      expect(again.status).toBe(200);
      await limited.value('registry.discardStaged', { stagedId: ((await again.json()) as { stagedId: string }).stagedId });
      expect(files()).toEqual([]);
    } finally {
      await own.close();
    }
  });

  it('cuts a body of unknown length, or one longer than announced, where it passes the line, and deletes what arrived', async () => {
    let pulled = 0;
    const body = () =>
      Readable.from(
        (function* () {
          for (let i = 0; i < 8; i++) {
            pulled += 1;
            yield Buffer.alloc(256 * 1024, i);
          }
        })(),
      );
    const unknown = await limited.backend.uploads.stage('unknown.tar.gz', body()).catch((e: unknown) => e);
    expect(unknown).toMatchObject({ refusal: 'no-room', message: expect.stringContaining('unknown.tar.gz was cut off when it went over') });
    expect(unknown).toBeInstanceOf(StagingError);
    // Cut at the fifth quarter MiB, not read to its end.
    expect(pulled).toBeLessThan(8);
    pulled = 0;
    const longer = await limited.backend.uploads.stage('longer.tar.gz', body(), 300 * 1024).catch((e: unknown) => e);
    expect(longer).toMatchObject({ refusal: 'incomplete', message: 'longer.tar.gz is longer than the 307200 bytes it was announced with: add it again.' });
    expect(pulled).toBeLessThan(8);
    expect(files()).toEqual([]);
    // What they held is free again.
    const fine = await limited.backend.uploads.stage('fine.tar.gz', Readable.from([Buffer.alloc(900 * 1024)]), 900 * 1024);
    await limited.value('registry.discardStaged', { stagedId: fine.stagedId });
  });

  it('takes a few uploads at once: one more is answered 429 with Retry-After and a message, and is taken once they are through', async () => {
    const own = await ownServer(limited, { stagingConcurrency: 2 });
    try {
      const slow = [await rawUpload(own.server, own.cookie, 100 * 1024, 10), await rawUpload(own.server, own.cookie, 100 * 1024, 10)];
      await until(() => parts().length === 2, 'both uploads to be under way');
      const third = await post(own, 1000);
      expect(third.status).toBe(429);
      expect(third.headers.get('retry-after')).toBe('2');
      expect(await third.json()).toEqual({ error: '2 files are being handed to the app already, so mod-1000.tar.gz was not taken. Add it again once they are through.' });
      for (const { socket } of slow) socket.resetAndDestroy();
      await Promise.all(slow.map((s) => s.answer));
      await until(() => files().length === 0, 'the partial files to be deleted');
      const later = await post(own, 1000);
      expect(later.status).toBe(200);
      await limited.value('registry.discardStaged', { stagedId: ((await later.json()) as { stagedId: string }).stagedId });
    } finally {
      await own.close();
    }
  });

  it('cuts off an upload that stops sending: 408, and what arrived is deleted', async () => {
    const own = await ownServer(limited, { stagingIdleMs: 1500 });
    try {
      const { socket, answer } = await rawUpload(own.server, own.cookie, 100 * 1024, 1000);
      const cut = await answer;
      socket.destroy();
      expect(cut.status).toBe(408);
      expect(cut.text).toContain('No byte of slow.tar.gz arrived for 2 s, so the upload was stopped and what had arrived was deleted. Add the file again.');
      expect(files()).toEqual([]);
      // A body that keeps coming is no idle one, however slowly it started.
      const steady = await post(own, 200 * 1024);
      expect(steady.status).toBe(200);
      await limited.value('registry.discardStaged', { stagedId: ((await steady.json()) as { stagedId: string }).stagedId });
    } finally {
      await own.close();
    }
  });

  // Real disks: a tmpfs mounted over the staging folder (CI runs as root, as this machine does; without the right to mount, these cannot run).
  const root = canMount();
  async function onTmpfs<T>(name: string, size: string, staging: { maxBytes?: number; reserveBytes?: number }, run: (app: TestBackend, stagingDir: string) => Promise<T>): Promise<T> {
    const userData = join(dir.path, name);
    const stagingDir = join(userData, 'staging');
    mkdirSync(stagingDir, { recursive: true });
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', stagingDir]);
    expect(mounted.status, String(mounted.stderr)).toBe(0);
    const app = await openTestBackend(userData, { staging });
    try {
      return await run(app, stagingDir);
    } finally {
      await app.close();
      spawnSync('umount', [stagingDir]);
    }
  }

  it.runIf(root)('refuses a file that would leave its disk less free than the reserve, with 507 before reading it', async () => {
    await onTmpfs('reserve', '4m', { reserveBytes: MiB }, async (app) => {
      const logs: string[] = [];
      const own = await ownServer(app, {}, (m) => logs.push(m));
      try {
        for (let i = 0; i < 3; i++) {
          const { socket, answer } = await rawUpload(own.server, own.cookie, 3.5 * MiB, 0);
          const refused = await answer;
          socket.destroy();
          expect(refused.status).toBe(507);
          expect(refused.text).toMatch(/The disk holding this app's data \(.*staging\) has 4 MiB free; keeping slow\.tar\.gz \(3\.5 MiB\) would leave less than the 1 MiB the app keeps free there for its caches and the local service\. Free space on that disk \(delete files you no longer need, or remove files from the upload queue\), then add it again\./);
        }
        expect(app.logs.filter((l) => l.includes('staging refused files: the disk holding'))).toHaveLength(1);
        expect((await post(own, 2 * MiB)).status).toBe(200);
      } finally {
        await own.close();
      }
    });
  });

  it.runIf(root)('a disk another program fills while a file arrives answers 507 saying what to free, logged once; the partial file is deleted and staging works again once there is room', async () => {
    await onTmpfs('full', '2m', { reserveBytes: 0 }, async (app, stagingDir) => {
      const logs: string[] = [];
      const own = await ownServer(app, {}, (m) => logs.push(m));
      const filler = join(stagingDir, 'another-program.bin');
      try {
        for (let i = 0; i < 3; i++) {
          // 1.5 MiB fits when it is announced; then another program takes the disk, and the rest no longer does.
          const { socket, answer } = await rawUpload(own.server, own.cookie, 1.5 * MiB, 64 * 1024);
          await until(() => readdirSync(stagingDir).some((f) => f.endsWith('.part')), 'the upload to be under way');
          writeFileSync(filler, Buffer.alloc(1.5 * MiB, 1));
          socket.write(Buffer.alloc(1.5 * MiB - 64 * 1024, 2));
          const refused = await answer;
          expect(refused.status).toBe(507);
          expect(refused.text).toMatch(
            /"The disk holding this app's data \(.*staging\) is full, so slow\.tar\.gz could not be kept for upload; what had arrived of it was deleted\. Free space on that disk \(delete files you no longer need, or remove files from the upload queue\), then add it again\."/,
          );
          expect(readdirSync(stagingDir)).toEqual(['another-program.bin']);
          rmSync(filler);
        }
        expect(app.logs.filter((l) => l.includes('the disk is full at'))).toHaveLength(1);
        expect(logs.filter((l) => l.startsWith('web: an upload was not staged'))).toHaveLength(1);
        const fits = await post(own, MiB);
        expect(fits.status).toBe(200);
        expect(existsSync(join(stagingDir, ((await fits.json()) as { stagedId: string }).stagedId))).toBe(true);
      } finally {
        await own.close();
      }
    });
  });
});

describe('request targets that are no URL', () => {
  it('answers `GET //[` with 400 and keeps serving', async () => {
    const response = await get('//[');
    expect(response.status).toBe(400);
    await stillServing();
  });

  it('refuses a WebSocket upgrade to `//[` with 400 and keeps serving', async () => {
    const response = await get('//[', `Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nOrigin: ${server.origin}\r\nCookie: ${cookie}\r\nConnection: Upgrade\r\n`);
    expect(response.status).toBe(400);
    await stillServing();
  });
});

describe('paths that try to leave the renderer folder', () => {
  it('serves what is inside it', async () => {
    const response = await get('/assets/app.js');
    expect(response.status).toBe(200);
    expect(response.text).toContain('console.log("app")');
  });

  it.each(['/../secret.txt', '/../../secret.txt', '/%2e%2e/secret.txt', '/%2e%2e%2fsecret.txt', '/assets/..%2f..%2fsecret.txt', '/..%5csecret.txt', '/../../etc/passwd', '/%2e%2e/%2e%2e/%2e%2e/etc/passwd', '/%'])(
    '%s does not escape',
    async (target) => {
      const response = await get(target);
      expect([400, 403, 404]).toContain(response.status);
      expect(response.text).not.toContain(SECRET);
      expect(response.text).not.toContain('root:');
      await stillServing();
    },
  );
});

describe('bridge frames that are no invoke object', () => {
  async function openSocket(): Promise<{ ws: WebSocket; received: WireFrame[] }> {
    const ws = new WebSocket(`${server.origin.replace('http', 'ws')}${WS_PATH}`, { origin: server.origin, headers: { cookie } });
    const received: WireFrame[] = [];
    ws.on('message', (data: Buffer) => received.push(JSON.parse(data.toString('utf8')) as WireFrame));
    await once(ws, 'open');
    return { ws, received };
  }

  async function resultOf(ws: WebSocket, received: WireFrame[], id: number): Promise<WireFrame> {
    const end = Date.now() + 5_000;
    for (;;) {
      const frame = received.find((f) => f.type === 'result' && f.id === id);
      if (frame) return frame;
      if (Date.now() > end || ws.readyState !== ws.OPEN) throw new Error(`no result for ${id}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  it('drops null, numbers, strings, arrays and invokes without an id; the socket and the server keep working', async () => {
    const { ws, received } = await openSocket();
    const hostile = ['null', '42', '"invoke"', 'true', '[]', '[{"type":"invoke","id":1,"channel":"localService.get"}]', '{"type":"invoke","channel":"localService.get","request":{}}', '{"type":"invoke","id":"2","channel":"localService.get"}', '{}'];
    const dropsBefore = logs.filter((m) => m.includes('dropped a frame that is not an invoke')).length;
    for (const text of hostile) ws.send(text);
    ws.send(JSON.stringify({ type: 'invoke', id: 99, channel: 'localService.get', request: {} } satisfies WireFrame));

    const result = await resultOf(ws, received, 99);
    expect(result).toMatchObject({ type: 'result', id: 99, result: { ok: true, value: { status: 'stopped' } } });
    // Frames are handled in order: every hostile one was seen and dropped before the good one answered.
    expect(logs.filter((m) => m.includes('dropped a frame that is not an invoke')).length - dropsBefore).toBe(hostile.length);
    expect(received.filter((f) => f.type === 'result').map((f) => (f.type === 'result' ? f.id : null))).toEqual([99]);
    expect(ws.readyState).toBe(ws.OPEN);
    ws.close();
    await stillServing();
  });

  it('carries a config draft at its bounds (two 1.5 MiB texts, escaped twice their size) to the router', async () => {
    const { ws, received } = await openSocket();
    // Quotes inside strings: each is escaped on the wire, so the frame is about twice the texts.
    const text = `{"q": "${'\\"'.repeat(760 * 1024)}"}`;
    const request = { partId: 'p', configJson: text, baseConfigJson: text, baseLastUpdated: '2026-01-01T00:00:00.000Z' };
    const frame = JSON.stringify({ type: 'invoke', id: 7, channel: 'config.saveDraft', request } satisfies WireFrame);
    expect(frame.length).toBeGreaterThan(5 * 1024 * 1024);
    ws.send(frame);
    const result = await resultOf(ws, received, 7);
    // It reached the handler: no profile is active in this backend, so there is no cache to keep it in.
    expect(result).toMatchObject({ type: 'result', id: 7, result: { ok: false, error: { kind: 'not-found' } } });
    expect(ws.readyState).toBe(ws.OPEN);
    ws.close();
  });

  it('answers a call on the admitted socket through the router sender check', async () => {
    const { ws, received } = await openSocket();
    ws.send(JSON.stringify({ type: 'invoke', id: 1, channel: 'profiles.list', request: {} } satisfies WireFrame));
    const result = await resultOf(ws, received, 1);
    expect(result).toMatchObject({ type: 'result', id: 1, result: { ok: true } });
    ws.close();
  });
});

describe('the launch token', () => {
  /** A server of its own, so its token is unspent. */
  async function fresh(): Promise<WebServer> {
    return startWebServer({ handlers: app.backend.handlers, events: app.backend.events, rendererDir: join(dir.path, 'renderer'), token: 'fresh-token', log: () => undefined });
  }

  it('is exchanged once for an HttpOnly, SameSite=Strict session cookie; the same URL then admits no one', async () => {
    const own = await fresh();
    try {
      const first = await fetch(own.url);
      expect(first.status).toBe(200);
      const setCookie = first.headers.get('set-cookie') ?? '';
      expect(setCookie).toMatch(/^fleet_desk_session_\d+=[A-Za-z0-9_-]{43};/);
      expect(setCookie).toContain('HttpOnly');
      expect(setCookie).toContain('SameSite=Strict');
      expect(setCookie).not.toMatch(/Max-Age|Expires/i);
      expect(first.headers.get('cache-control')).toBe('no-store');

      const again = await fetch(own.url);
      expect(again.status).toBe(403);
      expect(await again.text()).toContain('used already');
      expect(again.headers.get('set-cookie')).toBeNull();

      // A reload (no token in the address any more) goes on with the cookie.
      const session = setCookie.split(';')[0] ?? '';
      expect((await fetch(`${own.origin}/`, { headers: { cookie: session } })).status).toBe(200);
      // …and only with the right one.
      expect((await fetch(`${own.origin}/`, { headers: { cookie: `${session.split('=')[0]}=forged` } })).status).toBe(403);
      expect((await fetch(`${own.origin}/`)).status).toBe(403);
    } finally {
      await own.close();
    }
  });

  it('a wrong token spends nothing', async () => {
    const own = await fresh();
    try {
      expect((await fetch(`${own.origin}/?token=fresh-tokeN`)).status).toBe(403);
      expect((await fetch(own.url)).status).toBe(200);
    } finally {
      await own.close();
    }
  });

  it('is no WebSocket credential: the bridge needs the session cookie', async () => {
    const refused = new WebSocket(`${server.origin.replace('http', 'ws')}${WS_PATH}?token=${TOKEN}`, { origin: server.origin });
    const [error] = (await once(refused, 'error')) as [Error];
    expect(error.message).toContain('403');
  });
});

describe('Host and Origin', () => {
  it('answers only to 127.0.0.1:PORT and localhost:PORT (DNS rebinding)', async () => {
    const { port } = new URL(server.origin);
    for (const host of [`evil.example:${port}`, `127.0.0.1.nip.io:${port}`, `127.0.0.1:${Number(port) + 1}`, '127.0.0.1', '']) {
      const response = await raw(`GET / HTTP/1.1\r\nHost: ${host}\r\nCookie: ${cookie}\r\nConnection: close\r\n\r\n`);
      expect(response.status, host).toBe(421);
      expect(response.text).not.toContain('<title>Fleet Desk');
    }
    const local = await raw(`GET / HTTP/1.1\r\nHost: localhost:${port}\r\nCookie: ${cookie}\r\nConnection: close\r\n\r\n`);
    expect(local.status).toBe(200);
  });

  it('refuses an upgrade whose Host is foreign, or whose Origin is not the address it came to', async () => {
    const { port } = new URL(server.origin);
    const upgrade = (hostHeader: string, originHeader: string) =>
      raw(`GET ${WS_PATH} HTTP/1.1\r\nHost: ${hostHeader}\r\nOrigin: ${originHeader}\r\nCookie: ${cookie}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`);
    expect((await upgrade(`evil.example:${port}`, `http://evil.example:${port}`)).status).toBe(421);
    expect((await upgrade(`127.0.0.1:${port}`, `http://localhost:${port}`)).status).toBe(403);
    expect((await upgrade(`127.0.0.1:${port}`, 'null')).status).toBe(403);
    expect((await upgrade(`127.0.0.1:${port}`, `https://127.0.0.1:${port}`)).status).toBe(403);
    const ok = await new Promise<number>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1', () =>
        socket.write(`GET ${WS_PATH} HTTP/1.1\r\nHost: localhost:${port}\r\nOrigin: http://localhost:${port}\r\nCookie: ${cookie}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`),
      );
      socket.once('data', (chunk: Buffer) => {
        resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(chunk.toString())?.[1] ?? 0));
        socket.destroy();
      });
    });
    expect(ok).toBe(101);
  });
});

describe('what is served', () => {
  it.each(['/index', '/index.html', '/index.html/', '/%69ndex.html', '/assets/../index.html', '/assets/%2e%2e/index.html', '/assets/', '/assets', '/favicon.ico', '/bridge', '//index.html'])(
    '%s is not the page, with or without a session',
    async (target) => {
      for (const extra of ['', `Cookie: ${cookie}\r\n`]) {
        const response = await get(`${target}?token=${TOKEN}`, extra);
        expect([400, 404], target).toContain(response.status);
        expect(response.text).not.toContain('<title>Fleet Desk');
      }
    },
  );

  it('serves built assets under /assets/ only', async () => {
    expect((await get('/assets/app.js')).status).toBe(200);
    expect((await get('/app.js')).status).toBe(404);
    expect((await get('/assets/app')).status).toBe(404);
  });
});

describe('refused upgrades are logged at a bounded rate', () => {
  it('fifty refusals in a row make at most two lines', async () => {
    const before = logs.filter((m) => m.startsWith('web: refused a bridge connection')).length;
    const { port } = new URL(server.origin);
    await Promise.all(
      Array.from({ length: 50 }, () =>
        raw(`GET ${WS_PATH} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nOrigin: ${server.origin}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`).then((r) => expect(r.status).toBe(403)),
      ),
    );
    const lines = logs.filter((m) => m.startsWith('web: refused a bridge connection')).slice(before);
    expect(lines.length).toBeGreaterThanOrEqual(0);
    expect(lines.length).toBeLessThanOrEqual(1);
    await server.close();
    // Closing writes the summary of the window that was still open.
    const all = logs.filter((m) => m.startsWith('web: refused a bridge connection')).slice(before);
    expect(all.length).toBeLessThanOrEqual(2);
    expect(all.join('\n')).toMatch(/\d+ more in the last 10 s \(No Session ×\d+\)|No Session/);
    server = await startWebServer({ handlers: app.backend.handlers, events: app.backend.events, rendererDir: join(dir.path, 'renderer'), token: 'reopened', log: (m) => logs.push(m) });
    cookie = ((await fetch(server.url)).headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  });
});

describe('index.html with the fleet tree drawn into its frame (Backend.indexPage)', () => {
  it('draws the active profile’s stored rows as text, serves the plain page without them, and the built page when drawing fails', async () => {
    const own = tempDir('fleet-desk-web-frame-');
    const backend = await openTestBackend(join(own.path, 'user-data'));
    const rendererDir = join(own.path, 'renderer');
    mkdirSync(rendererDir, { recursive: true });
    writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><div class="boot-sidebar"><!--fleet-frame--></div>');
    const frameLogs: string[] = [];
    let fail = false;
    const page = (html: string) => {
      if (fail) throw new Error('cache closed');
      return backend.backend.indexPage(html);
    };
    const web = await startWebServer({ handlers: backend.backend.handlers, events: backend.backend.events, rendererDir, token: 'frame-token', log: (m) => frameLogs.push(m), page });
    try {
      const first = await fetch(web.url);
      const session = (first.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      const index = async () => (await fetch(`${web.origin}/`, { headers: { cookie: session } })).text();
      // No profile active yet: nothing to draw.
      expect(await first.text()).toBe('<!doctype html><div class="boot-sidebar"><!--fleet-frame--></div>');

      // The first launch's profile (the local demo, its service started and synced): its cache keeps what the window saves.
      await backend.backend.start();
      const synced = backend.next('orgs.changed', (s) => s.orgs.length > 0, 30_000).catch(() => null);
      const listed = await backend.value('orgs.list', {});
      const orgId = (listed.orgs.length > 0 ? listed : await synced)?.orgs[0]?.id ?? '';
      expect(orgId).not.toBe('');
      expect(await index()).toContain('<!--fleet-frame-->');
      const refused = await backend.call('ui.set', { key: 'fleet.frame', value: { profileId: 'local', rows: [{ level: 0, kind: 'org', orgId, label: 'x', expandable: false, expanded: false }] } });
      expect(refused).toMatchObject({ ok: false, error: { kind: 'invalid' } });
      const row = { level: 1, kind: 'org', orgId, label: 'Plant <B>', expandable: true, expanded: true, count: 3 } as const;
      await backend.value('ui.set', { key: 'fleet.frame', value: { profileId: 'local', rows: [row] } });
      const drawn = await index();
      expect(drawn).toContain('<div class="boot-row" data-kind="org" data-name="Plant &lt;B&gt;" data-count="3">');
      expect(drawn).not.toContain('<B>');
      // Only to the page's own session: a request without it is told what it lacks, and nothing of the fleet.
      const stranger = await fetch(`${web.origin}/`);
      expect(stranger.status).toBe(403);
      expect(await stranger.text()).not.toContain('Plant');
      // Rows of an organization the profile's cache does not hold (another profile's, saved across a switch) are not drawn.
      await backend.value('ui.set', { key: 'fleet.frame', value: { profileId: 'local', rows: [{ ...row, orgId: 'not-in-this-cache' }] } });
      expect(await index()).toContain('<!--fleet-frame-->');

      fail = true;
      expect(await index()).toBe('<!doctype html><div class="boot-sidebar"><!--fleet-frame--></div>');
      expect(frameLogs.join('\n')).toContain('web: index.html was served without its fleet frame (cache closed)');
    } finally {
      await web.close();
      await backend.close();
      own.remove();
    }
  });
});
