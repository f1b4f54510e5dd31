/**
 * What `app://fleet-desk/…` answers: the files of the built renderer (out/renderer), and nothing
 * else. This is the whole request → file → response logic of the app scheme, kept free of any
 * electron import so it is tested directly on real files; app-scheme.ts only hands it to
 * `protocol.handle`.
 *
 * A request is served only when it is a GET or HEAD for a path on the one host `fleet-desk` that
 * names a regular file inside the renderer folder. Each path segment is percent-decoded once and
 * must then be a plain name: no `.`/`..`, no `/` or `\` (so no `%2e%2e`, `%2f`, `%5c` tricks), no
 * NUL, no `:` (Windows drive letters, NTFS streams). The joined path is checked once more to lie
 * inside the folder. Everything else is a 404 (405 for other methods), and every response, errors
 * included, carries the CSP and `nosniff`.
 */
import { readFile, stat } from 'node:fs/promises';
import { extname, isAbsolute, join, relative, resolve } from 'node:path';
import { APP_HOST, APP_SCHEME } from './app-url';

/** Types by extension; with `nosniff`, a wrong one would stop a module script or stylesheet from loading. */
export const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.wasm': 'application/wasm',
};

/** For an extension we do not know: bytes the page may download but never run or render (nosniff). */
const UNKNOWN_TYPE = 'application/octet-stream';

export function contentTypeOf(path: string): string {
  return CONTENT_TYPES[extname(path).toLowerCase()] ?? UNKNOWN_TYPE;
}

export type AppFileResolution =
  | { readonly ok: true; readonly path: string; readonly contentType: string }
  | { readonly ok: false; readonly status: 404 | 405; readonly reason: string };

const notFound = (reason: string): AppFileResolution => ({ ok: false, status: 404, reason });

/** A decoded segment that would step out of its folder, or mean something else than a file name to some OS. */
function unsafeSegment(segment: string): boolean {
  return segment === '' || segment === '.' || segment === '..' || /[/\\\0:]/.test(segment);
}

/**
 * Which file of `rendererDir` a request names, without touching the disk. `rendererDir` must be
 * absolute; `url` is the request's URL as Chromium hands it to the handler.
 */
export function resolveAppFile(rendererDir: string, method: string, url: string): AppFileResolution {
  if (method !== 'GET' && method !== 'HEAD') return { ok: false, status: 405, reason: `method ${method}` };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return notFound('not a URL');
  }
  // Compared part by part: Node's URL gives non-special schemes the origin "null". `host` includes a port.
  if (parsed.protocol !== `${APP_SCHEME}:` || parsed.host !== APP_HOST || parsed.username !== '' || parsed.password !== '') {
    return notFound('not the app host');
  }
  // The URL parser has already removed dot segments (`.`, `..`, `%2e%2e`); what is left is split on
  // its real slashes, and only then decoded, so an encoded slash stays inside its segment and is refused.
  const raw = parsed.pathname.split('/').slice(1);
  const segments: string[] = [];
  for (const part of raw) {
    let segment: string;
    try {
      segment = decodeURIComponent(part);
    } catch {
      return notFound('malformed percent-encoding');
    }
    if (unsafeSegment(segment)) return notFound('unsafe path segment');
    segments.push(segment);
  }
  if (segments.length === 0) return notFound('no file named');
  const root = resolve(rendererDir);
  const path = join(root, ...segments);
  const inside = relative(root, path);
  // Belt and braces: the checks above already keep the path inside; this is what "inside" means.
  if (inside === '' || inside.split(/[\\/]/)[0] === '..' || isAbsolute(inside)) {
    return notFound('outside the renderer folder');
  }
  return { ok: true, path, contentType: contentTypeOf(path) };
}

export interface AppFilesOptions {
  /** Absolute path of out/renderer. */
  readonly rendererDir: string;
  /** The Content-Security-Policy header value (main/security/csp.ts CONTENT_SECURITY_POLICY). */
  readonly policy: string;
  /**
   * index.html as the window is served it, from the built file's text (Backend.indexPage: the fleet
   * tree drawn into its frame). Should it fail, the built file is served as it is.
   */
  readonly page?: (indexHtml: string) => Promise<string>;
}

/** `built` (index.html's bytes) as `page` makes it; the bytes as they are if it fails. */
async function framed(page: (indexHtml: string) => Promise<string>, built: Buffer): Promise<Uint8Array> {
  try {
    return Buffer.from(await page(built.toString('utf8')), 'utf8');
  } catch {
    return built;
  }
}

/** The handler for `protocol.handle('app', …)`: a fetch-style Request in, a Response out; it never throws. */
export function createAppFilesHandler(options: AppFilesOptions): (request: Request) => Promise<Response> {
  const common = { 'Content-Security-Policy': options.policy, 'X-Content-Type-Options': 'nosniff' };
  const error = (status: 404 | 405): Response =>
    new Response(status === 404 ? 'Not found\n' : 'Method not allowed\n', {
      status,
      headers: { ...common, 'Content-Type': 'text/plain; charset=utf-8', ...(status === 405 ? { Allow: 'GET, HEAD' } : {}) },
    });

  const indexPath = join(resolve(options.rendererDir), 'index.html');
  return async (request) => {
    const resolved = resolveAppFile(options.rendererDir, request.method, request.url);
    if (!resolved.ok) return error(resolved.status);
    try {
      const info = await stat(resolved.path);
      if (!info.isFile()) return error(404);
      const headers = { ...common, 'Content-Type': resolved.contentType, 'Content-Length': String(info.size) };
      const page = resolved.path === indexPath ? options.page : undefined;
      if (request.method === 'HEAD' && !page) return new Response(null, { status: 200, headers });
      const built = await readFile(resolved.path);
      const body = page ? await framed(page, built) : built;
      // The page drawn for this launch (the fleet tree of the last run in it) is not one to keep.
      const sized = { ...headers, 'Content-Length': String(body.byteLength), ...(page ? { 'Cache-Control': 'no-store' } : {}) };
      return new Response(request.method === 'HEAD' ? null : body, { status: 200, headers: sized });
    } catch {
      // Missing (ENOENT), a path through a file (ENOTDIR), unreadable: all the same to the page.
      return error(404);
    }
  };
}
