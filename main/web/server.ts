/**
 * Browser mode: the built renderer served on a loopback port, with the bridge carried over a
 * WebSocket to the same backend the Electron shell hosts. It is how the app runs where Electron's
 * binary is missing (and how the E2E suite drives it there).
 *
 * Who may connect. Any process on this machine can reach the port, so:
 * - The printed URL carries a random launch token (compared in constant time). Its first use
 *   exchanges it for a session: an HttpOnly, SameSite=Strict cookie the page's scripts cannot read.
 *   The token is then spent: the same URL admits no one again (the page removes it from the
 *   address bar; a reload goes on with the cookie).
 * - Requests must name the server as `127.0.0.1:PORT` or `localhost:PORT` in `Host` (DNS
 *   rebinding: a foreign site's name resolving to 127.0.0.1 still sends its own name).
 * - The WebSocket at `/bridge` needs the session cookie and the page's own Origin; that Origin is the
 *   socket's sender identity, which the router checks again on every call.
 * - Only the page (`/`) and the built assets (`/assets/*`) are served; every other path is 404.
 *
 * Nothing a client sends may take the process down: every socket has an error listener from the
 * moment the server sees it, a request target that is no URL gets 400, a WebSocket protocol error
 * closes that socket alone, and a frame that is not an invoke object is dropped. What outsiders can
 * cause at will (refused upgrades) is logged at a bounded rate.
 *
 * Nor may a client hold the server's resources for long: headers must arrive within seconds
 * (slowloris), an upload body that stops arriving is cut off, and few uploads are taken at once
 * (WebServerLimits; the staged bytes themselves are bounded by RegistryUploads.stage).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo, Socket } from 'node:net';
import { Transform, type Duplex, type Readable } from 'node:stream';
import sirv from 'sirv';
import { WebSocketServer, type WebSocket } from 'ws';
import { WS_PATH, type WireFrame } from '../../common/bridge';
import { MAX_MODULE_FILE_BYTES } from '../../common/registry';
import type { WireResult } from '../../common/result';
import type { EventBus } from '../backend/events';
import type { Downloads } from '../fs/downloads';
import { StagingError, type StagingRefusal } from './staging';
import { createRouter, type Handlers } from '../backend/router';
import { CONTENT_SECURITY_POLICY } from '../security/csp';
import { createRateLimitedLog } from './rate-limited-log';

export interface WebServerOptions {
  readonly handlers: Handlers;
  readonly events: EventBus;
  /** The built renderer (out/renderer). */
  readonly rendererDir: string;
  /** Loopback only; 0 takes a free port. */
  readonly port?: number;
  readonly host?: '127.0.0.1' | '::1';
  readonly log?: (message: string) => void;
  /** Fixed launch token (tests); a random one otherwise. */
  readonly token?: string;
  /** Files offered for download (log exports), served once at /downloads/<token> to the page's session. */
  readonly downloads?: Downloads;
  /**
   * Browser mode's way in for a module file the page picked or had dropped on it: `POST /uploads?name=`
   * with the file as the body, from the page's own session and origin. The backend keeps it aside
   * (RegistryUploads.stage) and answers its staged id, which `registry.upload` then names.
   */
  readonly stageUpload?: (fileName: string, body: Readable, sizeBytes: number) => Promise<{ stagedId: string; fileName: string }>;
  /** Bounds on what one client may hold; defaults suit people, tests shorten them. */
  readonly limits?: WebServerLimits;
  /**
   * index.html as the page is served it, from the built file's text (Backend.indexPage: the fleet
   * tree drawn into its frame). Should it throw, the built file is served as it is.
   */
  readonly page?: (indexHtml: string) => string;
}

/** What a client may hold of the server (docs/ARCHITECTURE.md, "Staging limits"). */
export interface WebServerLimits {
  /** Uploads received at once; one more is answered 429 with Retry-After (default STAGING_CONCURRENCY). */
  readonly stagingConcurrency?: number;
  /** An upload body that brings no byte for this long is cut off: 408, and what arrived is deleted (default STAGING_IDLE_MS). */
  readonly stagingIdleMs?: number;
  /** A request's headers must be in within this long, else 408 and the connection is closed (default HEADERS_TIMEOUT_MS). */
  readonly headersTimeoutMs?: number;
}

/** Uploads received at once. The page sends two at a time (renderer registry state), so two pages fit. */
export const STAGING_CONCURRENCY = 4;
/** No byte of an upload body for this long: the sender stopped (a loopback page sends as fast as it reads the file). */
export const STAGING_IDLE_MS = 30_000;
/** A whole upload body may take this long plus a second per STAGING_MIN_BYTES_PER_S (a slow drip that dodges the idle bound still ends). */
const STAGING_BASE_MS = 60_000;
const STAGING_MIN_BYTES_PER_S = 512 * 1024;
/** What a refused upload is told to wait before trying again (429). */
const STAGING_RETRY_AFTER_S = 2;
/** A browser sends a request's headers at once; Node's 60 s let a slowloris client hold a socket a minute per request. */
export const HEADERS_TIMEOUT_MS = 10_000;
/**
 * Node's bound on a whole request, body included: above the longest upload STAGING_BASE_MS and
 * STAGING_MIN_BYTES_PER_S allow (the largest file at the slowest rate), so that bound, with its
 * clear answer, is the one that applies.
 */
const REQUEST_TIMEOUT_MS = STAGING_BASE_MS + (MAX_MODULE_FILE_BYTES / STAGING_MIN_BYTES_PER_S) * 1000 + 60_000;
/** The HTTP status for each reason RegistryUploads.stage refuses a file. */
const REFUSAL_STATUS: Record<StagingRefusal, number> = { 'too-large': 413, incomplete: 400, 'no-room': 507, 'disk-full': 507 };

export interface WebServer {
  /** The URL to open once, launch token included. */
  readonly url: string;
  /** The origin the server prints (`http://127.0.0.1:PORT`); `localhost:PORT` is accepted too. */
  readonly origin: string;
  close(): Promise<void>;
}

/**
 * Largest bridge frame accepted from a page. Most payloads are small, but a config draft carries
 * two texts of up to 1.5 MiB each (the edit and its base), which JSON escaping can double: 8 MiB
 * holds that with room; anything bigger is abuse.
 */
export const MAX_FRAME_BYTES = 8 * 1024 * 1024;
/** Where the built renderer keeps its scripts, styles and images (Vite's `assetsDir`). */
const ASSETS_PREFIX = '/assets/';

function sameSecret(given: string | null | undefined, expected: string): boolean {
  if (given === null || given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

const securityHeaders: Record<string, string> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  // The launch token is in the first page URL: never send it on as a Referer.
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
};

/**
 * The request target as a URL, or null when it is no plain path. Only origin-form targets (`/path`)
 * are taken: `//host/path` would otherwise be read as another authority, an absolute-form target
 * is for proxies, and `GET //[ HTTP/1.1` passes the HTTP parser but makes `new URL` throw.
 */
function parseTarget(target: string | undefined): URL | null {
  if (target === undefined || !target.startsWith('/') || target.startsWith('//')) return null;
  try {
    return new URL(`http://placeholder${target}`);
  } catch {
    return null;
  }
}

/**
 * A call's result frame. A serialized answer (`json`, common/result.ts WireResult) is spliced in as
 * the result's value: the text is the JSON of the value already, and writing it out again as a
 * string would cost main's thread the work the tree reader did off it, and the page a second parse.
 */
export function resultFrame(id: number, result: WireResult<unknown>): string {
  if (result.ok && 'json' in result) return `{"type":"result","id":${JSON.stringify(id)},"result":{"ok":true,"value":${result.json}}}`;
  return JSON.stringify({ type: 'result', id, result } satisfies WireFrame);
}

/** A parsed frame that may be an invoke: a plain object (not null, not an array) with a numeric id. */
function isInvokeFrame(frame: unknown): frame is { type: 'invoke'; id: number; channel?: unknown; request?: unknown } {
  if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) return false;
  const { type, id } = frame as { type?: unknown; id?: unknown };
  return type === 'invoke' && typeof id === 'number';
}

/** The value of cookie `name` in a Cookie header, or null. */
export function cookieValue(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at !== -1 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return null;
}

/**
 * An asset path the server may hand to the static file handler: under /assets/, and with no
 * segment that could climb out once decoded. The URL parser already resolved literal `..`; encoded
 * ones (`%2e%2e`, `%2f`, `%5c`) are refused here rather than trusted to the file handler.
 */
function isAssetPath(pathname: string): boolean {
  if (!pathname.startsWith(ASSETS_PREFIX) || pathname.length === ASSETS_PREFIX.length) return false;
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return false;
  }
  return !decoded.split(/[/\\]/).some((segment) => segment === '..' || segment === '.') && !decoded.includes('\0');
}

/** "30 s", "300 ms". */
const duration = (ms: number): string => (ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`);

/** An upload body that stopped arriving (idle) or arrived too slowly in all; the message is for the page. */
class BodyTimeout extends Error {}

/**
 * The request's body as the stager reads it, cut off with a BodyTimeout when no byte arrives for
 * `idleMs` while the stager waits for one, or when the whole takes longer than `totalMs`. A client
 * that goes away ends it with an error too (the stager then deletes what arrived).
 */
function watchedBody(req: IncomingMessage, name: string, idleMs: number, totalMs: number): { body: Readable; stop: () => void } {
  let idle: NodeJS.Timeout | null = null;
  let total: NodeJS.Timeout | null = null;
  let stopped = false;
  const stop = () => {
    stopped = true;
    if (idle) clearTimeout(idle);
    if (total) clearTimeout(total);
    idle = total = null;
  };
  // Once the stager is done (it may never have read: a refusal before the first byte), the socket's end is no news.
  const cut = (error: Error) => {
    if (stopped) return;
    stop();
    req.unpipe(body);
    body.destroy(error);
  };
  const armIdle = () => {
    if (stopped) return;
    if (idle) clearTimeout(idle);
    idle = setTimeout(() => {
      // Bytes waiting on this side: the disk is the slow one, not the sender.
      if (req.readableLength + body.writableLength + body.readableLength > 0) return armIdle();
      cut(new BodyTimeout(`No byte of ${name} arrived for ${duration(idleMs)}, so the upload was stopped and what had arrived was deleted. Add the file again.`));
    }, idleMs);
  };
  const body = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      armIdle();
      callback(null, chunk);
    },
    flush(callback) {
      stop();
      callback();
    },
  });
  // The stager reads the error from its pipeline; this listener only keeps one it no longer awaits from ending the process.
  body.on('error', () => undefined);
  armIdle();
  total = setTimeout(() => cut(new BodyTimeout(`${name} arrived too slowly (it took over ${duration(totalMs)}), so the upload was stopped and what had arrived was deleted. Add the file again.`)), totalMs);
  // A request has no error listener of its own: a client resetting mid-body would otherwise end the process.
  req.on('error', (error) => cut(error));
  req.on('close', () => {
    if (!req.complete) cut(new Error(`The connection closed before all of ${name} arrived.`));
  });
  req.pipe(body);
  return { body, stop };
}

export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  const log = options.log ?? ((m: string) => console.error(m));
  const token = options.token ?? randomBytes(32).toString('base64url');
  const listenHost = options.host ?? '127.0.0.1';
  const indexPath = join(options.rendererDir, 'index.html');
  if (!existsSync(indexPath)) throw new Error(`The renderer is not built (${indexPath} is missing). Run \`npm run build\` first.`);
  const indexHtml = readFileSync(indexPath);
  const indexText = indexHtml.toString('utf8');
  const pageFailed = createRateLimitedLog(log, { prefix: 'web: index.html was served without its fleet frame' });
  const page = (): Buffer | string => {
    if (!options.page) return indexHtml;
    try {
      return options.page(indexText);
    } catch (e) {
      pageFailed(e instanceof Error ? e.message : String(e));
      return indexHtml;
    }
  };
  // No extension guessing and no index files: a path names exactly one built file or nothing.
  const assets = sirv(options.rendererDir, { dev: false, etag: true, dotfiles: false, extensions: [], single: false });

  /** Set once listening: the Host values we answer to, and the origins pages on them have. */
  let allowedHosts = new Set<string>();
  let cookieName = '';
  let tokenSpent = false;
  /** Session ids handed out for the launch token; valid for this run of the server. */
  const sessions = new Set<string>();

  const hasSession = (req: IncomingMessage): boolean => {
    const given = cookieValue(req.headers.cookie, cookieName);
    return given !== null && [...sessions].some((id) => sameSecret(given, id));
  };
  const hostAllowed = (req: IncomingMessage): boolean => typeof req.headers.host === 'string' && allowedHosts.has(req.headers.host.toLowerCase());

  const refusedUpgrade = createRateLimitedLog(log, { prefix: 'web: refused a bridge connection' });
  const droppedSocket = createRateLimitedLog(log, { prefix: 'web: a client socket failed' });
  // The page is told why; the log only needs to show that it happens (RegistryUploads logs a full disk once itself).
  const unstaged = createRateLimitedLog(log, { prefix: 'web: an upload was not staged' });
  const stagingConcurrency = options.limits?.stagingConcurrency ?? STAGING_CONCURRENCY;
  const stagingIdleMs = options.limits?.stagingIdleMs ?? STAGING_IDLE_MS;
  const headersTimeoutMs = options.limits?.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
  /** Uploads being received now. */
  let staging = 0;

  const plain = (res: ServerResponse, code: number, text: string): void => {
    res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' }).end(`${text}\n`);
  };

  const servePage = (req: IncomingMessage, res: ServerResponse, url: URL): void => {
    const headers: Record<string, string> = { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' };
    if (!hasSession(req)) {
      const given = url.searchParams.get('token');
      if (given === null) {
        plain(res, 403, 'Fleet Desk: this address needs its access token. Open the full URL that `npm run web` printed.');
        return;
      }
      if (!sameSecret(given, token)) {
        plain(res, 403, 'Fleet Desk: this access token is wrong. Open the full URL that `npm run web` printed.');
        return;
      }
      if (tokenSpent) {
        plain(res, 403, 'Fleet Desk: this link was used already; it opens the app once. Use the browser tab it was opened in, or restart `npm run web` for a new link.');
        return;
      }
      tokenSpent = true;
      const session = randomBytes(32).toString('base64url');
      sessions.add(session);
      // No Max-Age: a session cookie, gone with the browser session. No Secure: this is plain http on loopback.
      headers['Set-Cookie'] = `${cookieName}=${session}; HttpOnly; SameSite=Strict; Path=/`;
    }
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : page());
  };

  /** A file main wrote (an export), streamed from disk to the page's own session only, once, then deleted. */
  const serveDownload = (req: IncomingMessage, res: ServerResponse, downloads: Downloads, id: string): void => {
    if (!hasSession(req)) {
      plain(res, 403, 'Fleet Desk: downloads are for the app page that asked for them.');
      return;
    }
    const download = /^[\w-]{16,64}$/.test(id) ? downloads.take(id) : null;
    if (download === null) {
      plain(res, 404, 'This download has expired or was taken already. Export again.');
      return;
    }
    const file = createReadStream(download.path);
    file.on('open', () => {
      res.writeHead(200, {
        'Content-Type': download.type,
        'Content-Disposition': `attachment; filename="${download.name.replace(/[^\w.+-]/g, '_')}"`,
        'Cache-Control': 'no-store',
      });
      file.pipe(res);
    });
    file.on('error', () => plain(res, 404, 'This download is gone. Export again.'));
    res.on('close', () => {
      file.destroy();
      rmSync(download.path, { force: true });
    });
  };

  /** A module file from the page, streamed to disk (never held in memory), for the page's own session and origin only. */
  const serveStage = (req: IncomingMessage, res: ServerResponse, url: URL, stage: NonNullable<WebServerOptions['stageUpload']>): void => {
    // A refusal closes the connection after answering: the body it did not read is not waited for.
    const json = (code: number, body: unknown): void => {
      res.writeHead(code, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', ...(code === 200 ? {} : { Connection: 'close' }) }).end(JSON.stringify(body));
    };
    // The session cookie is SameSite=Strict and the Origin must be the page's own: another site cannot post here.
    if (!hasSession(req) || !allowedOrigin(req.headers.origin)) {
      json(403, { error: 'Uploads are taken only from the app page.' });
      return;
    }
    const length = Number(req.headers['content-length']);
    if (!Number.isSafeInteger(length) || length <= 0) {
      json(411, { error: 'Send the file with its length (Content-Length).' });
      return;
    }
    if (length > MAX_MODULE_FILE_BYTES) {
      json(413, { error: `The file is ${(length / 1024 / 1024).toFixed(0)} MiB; the registry takes files of at most ${MAX_MODULE_FILE_BYTES / 1024 / 1024} MiB.` });
      return;
    }
    const name = (url.searchParams.get('name') ?? '').slice(0, 300) || 'module.tar.gz';
    if (staging >= stagingConcurrency) {
      unstaged('too many at once');
      res.setHeader('Retry-After', String(STAGING_RETRY_AFTER_S));
      json(429, { error: `${stagingConcurrency} files are being handed to the app already, so ${name} was not taken. Add it again once they are through.` });
      return;
    }
    staging += 1;
    const watched = watchedBody(req, name, stagingIdleMs, STAGING_BASE_MS + (length / STAGING_MIN_BYTES_PER_S) * 1000);
    stage(name, watched.body, length)
      .then(
        (staged) => json(200, staged),
        (e: unknown) => {
          const message = e instanceof Error ? e.message : String(e);
          // What the page sent (too large, cut short, too slow) or this machine's room: said with its status, for the page to show.
          if (e instanceof StagingError) unstaged(e.refusal);
          else if (e instanceof BodyTimeout) unstaged('too slow');
          else unstaged((e as NodeJS.ErrnoException).code ?? 'failed');
          if (res.headersSent || res.destroyed) return;
          if (e instanceof StagingError) json(REFUSAL_STATUS[e.refusal], { error: message });
          else if (e instanceof BodyTimeout) json(408, { error: message });
          else if (typeof (e as NodeJS.ErrnoException).code === 'string' && !req.destroyed) json(500, { error: `${name} could not be kept for upload on this machine (${message}).` });
          else json(400, { error: message });
        },
      )
      .finally(() => {
        staging -= 1;
        watched.stop();
      });
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    for (const [name, value] of Object.entries(securityHeaders)) res.setHeader(name, value);
    if (!hostAllowed(req)) {
      plain(res, 421, 'Fleet Desk answers only to 127.0.0.1 and localhost.');
      return;
    }
    const url = parseTarget(req.url);
    if (url === null) {
      plain(res, 400, 'Bad request');
      return;
    }
    if (url.pathname === '/uploads' && options.stageUpload) {
      if (req.method !== 'POST') {
        res.writeHead(405, { Allow: 'POST' }).end();
        return;
      }
      serveStage(req, res, url, options.stageUpload);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD' }).end();
      return;
    }
    if (url.pathname === '/') {
      servePage(req, res, url);
      return;
    }
    if (isAssetPath(url.pathname)) {
      assets(req, res, () => plain(res, 404, 'Not found'));
      return;
    }
    if (url.pathname.startsWith('/downloads/') && options.downloads) {
      serveDownload(req, res, options.downloads, url.pathname.slice('/downloads/'.length));
      return;
    }
    plain(res, 404, 'Not found');
  };
  const server = createServer(
    {
      headersTimeout: headersTimeoutMs,
      requestTimeout: Math.max(REQUEST_TIMEOUT_MS, headersTimeoutMs + 1),
      // How often Node looks for requests over those bounds: its default, 30 s, would let them run that much longer.
      connectionsCheckingInterval: Math.min(1_000, Math.ceil(headersTimeoutMs / 4)),
    },
    handle,
  );
  // Malformed HTTP is answered 400, a request over its time bound 408; a socket that fails meanwhile is only noted.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    droppedSocket(error.code ?? error.message);
    // Headers or a request not in within its bound (headersTimeout, requestTimeout) is no malformed one: said as Node would.
    const answer = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : '400 Bad Request';
    if (socket.writable && error.code !== 'ECONNRESET') socket.end(`HTTP/1.1 ${answer}\r\nConnection: close\r\n\r\n`);
    else socket.destroy();
  });
  server.on('error', (error) => log(`web: server error: ${error.message}`));

  const router = createRouter(options.handlers, {
    // sender.url is the Origin header the socket was admitted with (recorded at upgrade, not set by
    // us), so this is the same rule as the admission check, applied again to every call.
    isTrustedSender: (sender) => sender.transport === 'ws' && allowedOrigin(sender.url),
    log,
  });
  const allowedOrigin = (value: string | undefined): boolean => {
    if (value === undefined || !value.startsWith('http://')) return false;
    return allowedHosts.has(value.slice('http://'.length).toLowerCase());
  };

  const sockets = new Set<WebSocket>();
  let nextId = 1;
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });

  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    // First thing: an upgrade socket has no error listener of Node's, and a client that resets it
    // would otherwise raise an uncaught 'error' and end the process. ws adds its own once admitted.
    socket.on('error', (error: NodeJS.ErrnoException) => droppedSocket(error.code ?? error.message));
    const refuse = (code: number, why: string) => {
      refusedUpgrade(why);
      if (socket.writable) socket.end(`HTTP/1.1 ${code} ${why}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      else socket.destroy();
    };
    if (!hostAllowed(req)) return refuse(421, 'Misdirected Request');
    const url = parseTarget(req.url);
    if (url === null) return refuse(400, 'Bad Request');
    if (url.pathname !== WS_PATH) return refuse(404, 'Not Found');
    // The page's Origin must be the address it was loaded from, and be ours.
    if (!allowedOrigin(req.headers.origin) || req.headers.origin?.slice('http://'.length).toLowerCase() !== req.headers.host?.toLowerCase()) {
      return refuse(403, 'Forbidden Origin');
    }
    if (!hasSession(req)) return refuse(403, 'No Session');
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  wss.on('connection', (ws: WebSocket, req: IncomingMessage) => {
    // The Origin this socket was admitted with is who it is for the router's sender check.
    const sender = { transport: 'ws' as const, url: req.headers.origin ?? '', id: nextId++ };
    sockets.add(ws);
    ws.on('close', () => sockets.delete(ws));
    // ws reports a protocol error (oversized or malformed frame, bad close code) here and closes
    // the socket with the matching status; without a listener the 'error' would end the process.
    ws.on('error', (error: Error & { code?: string }) => {
      log(`web: closed bridge socket ${sender.id} after a protocol error: ${error.message}${error.code ? ` (${error.code})` : ''}`);
    });
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
      void router.dispatchWire(sender, frame.channel, frame.request).then((result) => {
        if (ws.readyState === ws.OPEN) ws.send(resultFrame(id, result));
      });
    });
  });

  const unsubscribe = options.events.subscribe((event, payload) => {
    const text = JSON.stringify({ type: 'event', event, payload } satisfies WireFrame);
    for (const ws of sockets) if (ws.readyState === ws.OPEN) ws.send(text);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, listenHost, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const origin = `http://${hostPart}:${address.port}`;
  allowedHosts = new Set([`${hostPart}:${address.port}`, `localhost:${address.port}`]);
  // Cookies are not kept apart by port: two Fleet Desks on one machine each need their own name.
  cookieName = `fleet_desk_session_${address.port}`;

  return {
    url: `${origin}/?token=${token}`,
    origin,
    async close() {
      unsubscribe();
      refusedUpgrade.flush();
      droppedSocket.flush();
      unstaged.flush();
      pageFailed.flush();
      for (const ws of sockets) ws.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
