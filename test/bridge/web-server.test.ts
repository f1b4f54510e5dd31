/**
 * Browser mode's HTTP and WebSocket layer against hostile input, on a real server with the real
 * backend: nothing a client sends may take the process down or reach outside the renderer folder.
 * Requests are written on raw TCP sockets where a client library would normalise them first.
 */
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
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
  server = await startWebServer({ handlers: app.backend.handlers, events: app.backend.events, rendererDir, token: TOKEN, log: (m) => logs.push(m) });
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
  expect((await fetch(server.url)).status).toBe(200);
}

describe('request targets that are no URL', () => {
  it('answers `GET //[` with 400 and keeps serving', async () => {
    const response = await get('//[');
    expect(response.status).toBe(400);
    await stillServing();
  });

  it('refuses a WebSocket upgrade to `//[` with 400 and keeps serving', async () => {
    const response = await get('//[', `Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nOrigin: ${server.origin}\r\nConnection: Upgrade\r\n`);
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
    const ws = new WebSocket(`${server.origin.replace('http', 'ws')}${WS_PATH}?token=${TOKEN}`, { origin: server.origin });
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
