/**
 * Browser mode: the built renderer served on a loopback port, with the bridge carried over a
 * WebSocket to the same backend the Electron shell hosts. It is how the app runs where Electron's
 * binary is missing (and how the E2E suite drives it there).
 *
 * Who may connect: the page and the socket require the random token printed at start (compared in
 * constant time), and the socket also requires the page's own Origin — another site open in the same
 * browser can neither read the page nor open the socket. The Origin a socket was admitted with is
 * its sender URL for the router, which checks it again on every call.
 *
 * Nothing a client sends may take the process down: a request target that is no URL gets 400, a
 * frame that is not an invoke object is dropped.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import sirv from 'sirv';
import { WebSocketServer, type WebSocket } from 'ws';
import { WS_PATH, type WireFrame } from '../../common/bridge';
import type { EventBus } from '../backend/events';
import { createRouter, type Handlers } from '../backend/router';
import { CONTENT_SECURITY_POLICY } from '../security/csp';

export interface WebServerOptions {
  readonly handlers: Handlers;
  readonly events: EventBus;
  /** The built renderer (out/renderer). */
  readonly rendererDir: string;
  /** Loopback only; 0 takes a free port. */
  readonly port?: number;
  readonly host?: '127.0.0.1' | '::1';
  readonly log?: (message: string) => void;
  /** Fixed token (tests); a random one otherwise. */
  readonly token?: string;
}

export interface WebServer {
  /** The URL to open, token included. */
  readonly url: string;
  readonly origin: string;
  close(): Promise<void>;
}

/** Largest bridge frame accepted from a page: bridge payloads are small; anything bigger is abuse. */
const MAX_FRAME_BYTES = 1024 * 1024;

function sameSecret(given: string | null, expected: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

const securityHeaders: Record<string, string> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  // The token is in the page URL: never send it on as a Referer.
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
};

/**
 * The request target as a URL, or null when it is none (`GET //[ HTTP/1.1` passes the HTTP parser
 * but makes `new URL` throw, which in a request handler would be an uncaught exception).
 */
function parseTarget(target: string | undefined, origin: string): URL | null {
  try {
    return new URL(target ?? '/', origin);
  } catch {
    return null;
  }
}

/** A parsed frame that may be an invoke: a plain object (not null, not an array) with a numeric id. */
function isInvokeFrame(frame: unknown): frame is { type: 'invoke'; id: number; channel?: unknown; request?: unknown } {
  if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) return false;
  const { type, id } = frame as { type?: unknown; id?: unknown };
  return type === 'invoke' && typeof id === 'number';
}

export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  const log = options.log ?? ((m: string) => console.error(m));
  const token = options.token ?? randomBytes(32).toString('base64url');
  const host = options.host ?? '127.0.0.1';
  const indexPath = join(options.rendererDir, 'index.html');
  if (!existsSync(indexPath)) throw new Error(`The renderer is not built (${indexPath} is missing). Run \`npm run build\` first.`);
  const indexHtml = readFileSync(indexPath);
  const assets = sirv(options.rendererDir, { dev: false, etag: true, dotfiles: false });
  let origin = '';

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    for (const [name, value] of Object.entries(securityHeaders)) res.setHeader(name, value);
    const url = parseTarget(req.url, origin);
    if (url === null) {
      res.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Bad request\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD' }).end();
      return;
    }
    if (url.pathname === '/' || url.pathname === '/index.html') {
      if (!sameSecret(url.searchParams.get('token'), token)) {
        res.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
        res.end('Fleet Desk: this address needs its access token. Open the full URL that `npm run web` printed.\n');
        return;
      }
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
      res.end(indexHtml);
      return;
    }
    assets(req, res, () => {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found\n');
    });
  });

  const router = createRouter(options.handlers, {
    // sender.url is the Origin header the socket was admitted with (recorded at upgrade, not set by
    // us), so this is the same rule as the admission check, applied again to every call.
    isTrustedSender: (sender) => sender.transport === 'ws' && origin !== '' && sender.url === origin,
    log,
  });

  const sockets = new Set<WebSocket>();
  let nextId = 1;
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });

  server.on('upgrade', (req, socket, head) => {
    const refuse = (code: number, why: string) => {
      log(`web: refused a bridge connection: ${why}`);
      socket.end(`HTTP/1.1 ${code} ${why}\r\nConnection: close\r\n\r\n`);
    };
    const url = parseTarget(req.url, origin);
    if (url === null) return refuse(400, 'Bad Request');
    if (url.pathname !== WS_PATH) return refuse(404, 'Not Found');
    if (req.headers.origin !== origin) return refuse(403, 'Forbidden origin');
    if (!sameSecret(url.searchParams.get('token'), token)) return refuse(403, 'Forbidden token');
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  wss.on('connection', (ws: WebSocket, req: IncomingMessage) => {
    // The Origin this socket was admitted with is who it is for the router's sender check.
    const sender = { transport: 'ws' as const, url: req.headers.origin ?? '', id: nextId++ };
    sockets.add(ws);
    ws.on('close', () => sockets.delete(ws));
    ws.on('message', (data, isBinary) => {
      let frame: unknown;
      try {
        if (isBinary) throw new Error('binary frame');
        frame = JSON.parse(data.toString());
      } catch {
        log('web: dropped a frame that is not JSON');
        return;
      }
      // JSON.parse gives null, numbers, strings and arrays as readily as objects.
      if (!isInvokeFrame(frame)) {
        log('web: dropped a frame that is not an invoke');
        return;
      }
      const id = frame.id;
      void router.dispatch(sender, frame.channel, frame.request).then((result) => {
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'result', id, result } satisfies WireFrame));
      });
    });
  });

  const unsubscribe = options.events.subscribe((event, payload) => {
    const text = JSON.stringify({ type: 'event', event, payload } satisfies WireFrame);
    for (const ws of sockets) if (ws.readyState === ws.OPEN) ws.send(text);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  origin = `http://${hostPart}:${address.port}`;

  return {
    url: `${origin}/?token=${token}`,
    origin,
    async close() {
      unsubscribe();
      for (const ws of sockets) ws.terminate();
      wss.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
