/**
 * Browser mode's server as an attacker on the same machine sees it: any local process can connect to
 * the loopback port. The server runs in a child process (test/helpers/web-server-child.ts), so a
 * crash is a dead child; after every barrage the child must be alive and still serve the page and
 * the bridge. Frames are written by hand on raw TCP sockets: a client library would refuse to send
 * most of them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { WS_PATH, type WireFrame } from '../../common/bridge';
import { MAX_FRAME_BYTES } from '../../main/web/server';
import { repoRoot, tempDir } from '../helpers/backend';

const TOKEN = 'hostile-test-token';
/** How many times each attack is tried. */
const TRIES = 30;
/** The child's bounds, shortened so that a test sees them act (the defaults are seconds). */
const LIMITS = { headersTimeoutMs: 1_000, stagingIdleMs: 500 };

let dir: ReturnType<typeof tempDir>;
let child: ChildProcess;
let origin: string;
let host: string;
let port: number;
let stderr = '';
/** The session cookie the page got for the launch token (`name=value`). */
let cookie: string;

beforeAll(async () => {
  dir = tempDir('fleet-desk-web-hostile-');
  const rendererDir = join(dir.path, 'renderer');
  mkdirSync(join(rendererDir, 'assets'), { recursive: true });
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>Fleet Desk</title>');
  writeFileSync(join(rendererDir, 'assets', 'app.js'), 'console.log("app");');
  child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'test', 'helpers', 'web-server-child.ts'), join(dir.path, 'user-data'), rendererDir, TOKEN, JSON.stringify(LIMITS)], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  origin = (JSON.parse(line) as { origin: string }).origin;
  host = new URL(origin).host;
  port = Number(new URL(origin).port);
  const first = await fetch(`${origin}/?token=${TOKEN}`);
  expect(first.status).toBe(200);
  const setCookie = first.headers.get('set-cookie') ?? '';
  cookie = setCookie.split(';')[0] ?? '';
  expect(cookie).toMatch(/=./);
});

afterAll(async () => {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  }
  dir.remove();
});

async function openRaw(): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  // The server may reset us too; that is not the test's failure.
  socket.on('error', () => undefined);
  return socket;
}

function upgradeRequest(path: string, headers: Record<string, string> = {}): string {
  const all: Record<string, string> = {
    Host: host,
    Upgrade: 'websocket',
    Connection: 'Upgrade',
    'Sec-WebSocket-Version': '13',
    'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
    ...headers,
  };
  return `GET ${path} HTTP/1.1\r\n${Object.entries(all)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
}

/** The child is alive, serves the page to its session, and answers a bridge call on a new socket. */
async function stillServing(): Promise<void> {
  expect(child.exitCode, stderr).toBeNull();
  expect(child.signalCode, stderr).toBeNull();
  const page = await fetch(`${origin}/`, { headers: { cookie } });
  expect(page.status).toBe(200);
  const ws = new WebSocket(`${origin.replace('http', 'ws')}${WS_PATH}`, { origin, headers: { cookie } });
  const received: WireFrame[] = [];
  ws.on('message', (data: Buffer) => received.push(JSON.parse(data.toString('utf8')) as WireFrame));
  await once(ws, 'open');
  ws.send(JSON.stringify({ type: 'invoke', id: 1, channel: 'localService.get', request: {} } satisfies WireFrame));
  const end = Date.now() + 5_000;
  while (!received.some((f) => f.type === 'result' && f.id === 1)) {
    if (Date.now() > end) throw new Error('the bridge did not answer');
    await new Promise((r) => setTimeout(r, 10));
  }
  ws.close();
}

describe('sockets reset before admission', () => {
  it.each([
    ['an upgrade to /bridge with no session', () => upgradeRequest(WS_PATH, { Origin: origin })],
    ['an upgrade to /bridge with a wrong token', () => upgradeRequest(`${WS_PATH}?token=wrong`, { Origin: origin })],
    ['an upgrade to a wrong path', () => upgradeRequest('/nope', { Origin: origin })],
    ['an upgrade from a foreign origin', () => upgradeRequest(WS_PATH, { Origin: 'http://evil.example', cookie })],
    ['a plain page request', () => `GET / HTTP/1.1\r\nHost: ${host}\r\n\r\n`],
    ['half a request line', () => 'GET /bri'],
  ])(`%s, reset at once (${TRIES} times in a row), does not kill the server`, async (_what, request) => {
    for (let i = 0; i < TRIES; i++) {
      const socket = await openRaw();
      socket.write(request());
      socket.resetAndDestroy();
      await once(socket, 'close');
    }
    // Give the server the time to see every reset.
    await new Promise((r) => setTimeout(r, 200));
    await stillServing();
  });

  it('resets arriving while the refusal is being written do not kill it either', async () => {
    for (let i = 0; i < TRIES; i++) {
      const socket = await openRaw();
      socket.write(upgradeRequest(WS_PATH, { Origin: origin }));
      // Let the refusal start on its way, then reset.
      await new Promise((r) => setImmediate(r));
      socket.resetAndDestroy();
      await once(socket, 'close');
    }
    await new Promise((r) => setTimeout(r, 200));
    await stillServing();
  });
});

/** A WebSocket frame as a client would send it, with every bit a test wants to get wrong. */
function frame(options: { opcode: number; payload?: Buffer; fin?: boolean; rsv1?: boolean; masked?: boolean; declaredLength?: number }): Buffer {
  const payload = options.payload ?? Buffer.alloc(0);
  const masked = options.masked ?? true;
  const length = options.declaredLength ?? payload.length;
  const head: number[] = [((options.fin ?? true) ? 0x80 : 0) | (options.rsv1 ? 0x40 : 0) | options.opcode];
  const maskBit = masked ? 0x80 : 0;
  if (length < 126) head.push(maskBit | length);
  else if (length < 65536) head.push(maskBit | 126, length >> 8, length & 0xff);
  else {
    head.push(maskBit | 127);
    const big = Buffer.alloc(8);
    big.writeBigUInt64BE(BigInt(length));
    head.push(...big);
  }
  if (!masked) return Buffer.concat([Buffer.from(head), payload]);
  const mask = Buffer.from([0x12, 0x34, 0x56, 0x78]);
  const body = Buffer.from(payload.map((b, i) => b ^ mask[i % 4]!));
  return Buffer.concat([Buffer.from(head), mask, body]);
}

/** An admitted WebSocket on a raw socket: the upgrade with the session, read up to the 101. */
async function admitted(): Promise<Socket> {
  const socket = await openRaw();
  socket.write(upgradeRequest(WS_PATH, { Origin: origin, Cookie: cookie }));
  let head = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      head += chunk.toString('latin1');
      if (head.includes('\r\n\r\n')) {
        socket.off('data', onData);
        resolve();
      }
    };
    socket.on('data', onData);
    socket.once('close', () => reject(new Error(`closed before the upgrade answered: ${head}`)));
  });
  expect(head).toMatch(/^HTTP\/1\.1 101 /);
  return socket;
}

describe('protocol errors on an admitted socket', () => {
  const closeCode = (code: number) => {
    const payload = Buffer.alloc(2);
    payload.writeUInt16BE(code);
    return payload;
  };
  it.each([
    [`a frame over the ${MAX_FRAME_BYTES / 1048576} MiB limit`, 1009, () => frame({ opcode: 0x1, declaredLength: MAX_FRAME_BYTES + 1 })],
    ['invalid UTF-8 in a text frame', 1007, () => frame({ opcode: 0x1, payload: Buffer.from([0xff, 0xfe, 0xfd]) })],
    ['an unmasked client frame', 1002, () => frame({ opcode: 0x1, payload: Buffer.from('{}'), masked: false })],
    ['RSV1 set without an extension', 1002, () => frame({ opcode: 0x1, payload: Buffer.from('{}'), rsv1: true })],
    ['a reserved opcode', 1002, () => frame({ opcode: 0x3, payload: Buffer.from('x') })],
    ['close code 999', 1002, () => frame({ opcode: 0x8, payload: closeCode(999) })],
  ])(`%s closes that socket alone with status %i (${TRIES} times) and logs one line each`, async (_what, expectedCode, bad) => {
    const linesBefore = stderr.split('\n').filter((l) => l.includes('protocol error')).length;
    // A bystander socket that must survive every one of the attacks.
    const bystander = await admitted();
    let bystanderClosed = false;
    bystander.once('close', () => (bystanderClosed = true));
    for (let i = 0; i < TRIES; i++) {
      const socket = await admitted();
      const received: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => received.push(chunk));
      socket.write(bad());
      await once(socket, 'close');
      // The server's close frame (when it got one out) carries the status for the error.
      const data = Buffer.concat(received);
      if (data.length >= 4 && (data[0]! & 0x0f) === 0x8) expect(data.readUInt16BE(2)).toBe(expectedCode);
    }
    await new Promise((r) => setTimeout(r, 100));
    const lines = stderr.split('\n').filter((l) => l.includes('protocol error'));
    expect(lines.length - linesBefore).toBe(TRIES);
    expect(bystanderClosed).toBe(false);
    bystander.destroy();
    await stillServing();
  });
});

describe('clients that hold the server', () => {
  /** Everything the server sends on `socket` until it closes it. */
  const answerOf = (socket: Socket): Promise<string> => {
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    return once(socket, 'close').then(() => Buffer.concat(chunks).toString('latin1'));
  };

  it(`requests whose headers trickle in (slowloris) are closed with 408 once the headers bound passes (${TRIES} at once, pages and upgrades)`, async () => {
    const sockets = await Promise.all(Array.from({ length: TRIES }, () => openRaw()));
    const answers = sockets.map(answerOf);
    const drips = sockets.map((socket, i) => {
      socket.write(i % 2 === 0 ? `GET / HTTP/1.1\r\nHost: ${host}\r\n` : `GET ${WS_PATH} HTTP/1.1\r\nHost: ${host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n`);
      // A header byte now and then: the socket is never idle, the headers are never done.
      return setInterval(() => socket.writable && socket.write('X'), 200);
    });
    try {
      for (const answer of await Promise.all(answers)) expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      drips.forEach(clearInterval);
    }
    await stillServing();
  });

  it('uploads that stop sending are cut off with 408, uploads reset mid-body change nothing; no partial file stays', async () => {
    const staging = join(dir.path, 'user-data', 'staging');
    // Rounds of four: the server takes four uploads at once.
    for (let round = 0; round < 5; round++) {
      const sockets = await Promise.all(Array.from({ length: 4 }, () => openRaw()));
      const answers = sockets.map(answerOf);
      for (const socket of sockets) {
        socket.write(`POST /uploads?name=held.tar.gz HTTP/1.1\r\nHost: ${host}\r\nOrigin: ${origin}\r\nCookie: ${cookie}\r\nContent-Length: ${1024 * 1024}\r\n\r\n`);
        socket.write(Buffer.alloc(64 * 1024, 3));
      }
      await new Promise((r) => setTimeout(r, 50));
      sockets[0]!.resetAndDestroy();
      sockets[1]!.resetAndDestroy();
      const [, , stopped, stalled] = await Promise.all(answers);
      expect(stopped).toMatch(/^HTTP\/1\.1 408 /);
      expect(stalled).toContain('No byte of held.tar.gz arrived for 500 ms');
    }
    const end = Date.now() + 5_000;
    while (readdirSync(staging).length > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    expect(readdirSync(staging)).toEqual([]);
    await stillServing();
  });
});
