/**
 * Browser mode's HTTP and WebSocket layer against hostile input, on a real server with the real
 * backend: nothing a client sends may take the process down or reach outside the renderer folder.
 * Requests are written on raw TCP sockets where a client library would normalise them first.
 */
import { once } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { WS_PATH, type WireFrame } from '../../common/bridge';
import { startWebServer, type WebServer } from '../../main/web/server';
import { openTestBackend, tempDir, type TestBackend } from '../helpers/backend';

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
