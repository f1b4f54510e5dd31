/**
 * The app:// scheme's request → file → response logic, on real files: a renderer folder with a
 * secret beside it, which no request may ever read.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentTypeOf, createAppFilesHandler, resolveAppFile } from './app-files';

const policy = "default-src 'none'; script-src 'self'";
const SECRET = 'top secret: outside the renderer';

let root: string;
let rendererDir: string;
let serve: (request: Request) => Promise<Response>;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'fleet-app-files-'));
  rendererDir = join(root, 'out', 'renderer');
  mkdirSync(join(rendererDir, 'assets', 'sub'), { recursive: true });
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>Fleet Desk</title>');
  writeFileSync(join(rendererDir, 'assets', 'index-abc.js'), 'export const x = 1;');
  writeFileSync(join(rendererDir, 'assets', 'index-abc.css'), 'body{}');
  writeFileSync(join(rendererDir, 'assets', 'icon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  writeFileSync(join(rendererDir, 'assets', 'sub', 'a b.png'), 'png');
  writeFileSync(join(rendererDir, 'assets', 'blob.xyz'), 'bytes');
  // Secrets beside and above the renderer folder.
  writeFileSync(join(root, 'out', 'secret.txt'), SECRET);
  writeFileSync(join(root, 'secret.txt'), SECRET);
  serve = createAppFilesHandler({ rendererDir, policy });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const get = (url: string, method = 'GET') => serve(new Request(url, { method }));

function expectHardened(response: Response): void {
  expect(response.headers.get('content-security-policy')).toBe(policy);
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
}

describe('resolveAppFile', () => {
  it('maps app://fleet-desk/<path> onto the renderer folder', () => {
    expect(resolveAppFile(rendererDir, 'GET', 'app://fleet-desk/index.html')).toEqual({
      ok: true,
      path: join(rendererDir, 'index.html'),
      contentType: 'text/html; charset=utf-8',
    });
    expect(resolveAppFile(rendererDir, 'HEAD', 'app://fleet-desk/assets/index-abc.js?v=1#x')).toMatchObject({
      ok: true,
      path: join(rendererDir, 'assets', 'index-abc.js'),
    });
    // Percent-encoding of an ordinary character is decoded once.
    expect(resolveAppFile(rendererDir, 'GET', 'app://fleet-desk/assets/sub/a%20b.png')).toMatchObject({ ok: true, path: join(rendererDir, 'assets', 'sub', 'a b.png') });
  });

  it('answers only GET and HEAD', () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'get']) {
      expect(resolveAppFile(rendererDir, method, 'app://fleet-desk/index.html'), method).toMatchObject({ ok: false, status: 405 });
    }
  });

  it.each([
    ['another host', 'app://other-host/index.html'],
    ['a host that only starts like ours', 'app://fleet-desk.evil.example/index.html'],
    ['a port', 'app://fleet-desk:1234/index.html'],
    ['credentials', 'app://user:pw@fleet-desk/index.html'],
    ['no host', 'app:///index.html'],
    ['another scheme', 'file:///index.html'],
    ['not a URL', 'not a url'],
    ['the bare origin', 'app://fleet-desk'],
    ['the root', 'app://fleet-desk/'],
    ['a folder with a trailing slash', 'app://fleet-desk/assets/'],
    ['an empty segment', 'app://fleet-desk/assets//index-abc.js'],
    ['an encoded slash', 'app://fleet-desk/..%2fsecret.txt'],
    ['an encoded slash, upper case', 'app://fleet-desk/assets%2F..%2F..%2Fsecret.txt'],
    ['an encoded dot-dot-slash', 'app://fleet-desk/%2e%2e%2fsecret.txt'],
    ['a backslash', 'app://fleet-desk/..\\..\\secret.txt'],
    ['an encoded backslash', 'app://fleet-desk/..%5c..%5csecret.txt'],
    ['an encoded NUL', 'app://fleet-desk/index.html%00.png'],
    ['a drive letter', 'app://fleet-desk/C:/Windows/win.ini'],
    ['an NTFS stream', 'app://fleet-desk/index.html::$DATA'],
    ['malformed percent-encoding', 'app://fleet-desk/%E0%A4%A'],
  ])('refuses %s with a 404', (_name, url) => {
    expect(resolveAppFile(rendererDir, 'GET', url)).toMatchObject({ ok: false, status: 404 });
  });

  it('decodes once: a double-encoded dot-dot is a literal (missing) name inside the folder', () => {
    expect(resolveAppFile(rendererDir, 'GET', 'app://fleet-desk/%252e%252e/secret.txt')).toMatchObject({
      ok: true,
      path: join(rendererDir, '%2e%2e', 'secret.txt'),
    });
  });

  it('keeps dot segments, plain or encoded, inside the folder (the URL parser removes them before the root)', () => {
    for (const url of [
      'app://fleet-desk/../../secret.txt',
      'app://fleet-desk/%2e%2e/%2e%2e/secret.txt',
      'app://fleet-desk/%2E%2E/%2e./.%2e/secret.txt',
      'app://fleet-desk/assets/../../../../etc/passwd',
    ]) {
      const result = resolveAppFile(rendererDir, 'GET', url);
      expect(result.ok, url).toBe(true);
      if (result.ok) expect(result.path.startsWith(`${rendererDir}/`), url).toBe(true);
    }
  });

  it('gives each extension its type, and bytes for an unknown one', () => {
    expect(contentTypeOf('a.html')).toBe('text/html; charset=utf-8');
    expect(contentTypeOf('a.js')).toBe('text/javascript; charset=utf-8');
    expect(contentTypeOf('a.mjs')).toBe('text/javascript; charset=utf-8');
    expect(contentTypeOf('a.css')).toBe('text/css; charset=utf-8');
    expect(contentTypeOf('a.json')).toBe('application/json; charset=utf-8');
    expect(contentTypeOf('a.SVG')).toBe('image/svg+xml');
    expect(contentTypeOf('a.png')).toBe('image/png');
    expect(contentTypeOf('a.woff2')).toBe('font/woff2');
    expect(contentTypeOf('a.wasm')).toBe('application/wasm');
    expect(contentTypeOf('a.xyz')).toBe('application/octet-stream');
    expect(contentTypeOf('noextension')).toBe('application/octet-stream');
  });
});

describe('the app:// handler', () => {
  it('serves the page, scripts, styles and images with their types, the CSP and nosniff', async () => {
    const page = await get('app://fleet-desk/index.html');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expectHardened(page);
    expect(await page.text()).toBe('<!doctype html><title>Fleet Desk</title>');

    const cases: [string, string, string][] = [
      ['assets/index-abc.js', 'text/javascript; charset=utf-8', 'export const x = 1;'],
      ['assets/index-abc.css', 'text/css; charset=utf-8', 'body{}'],
      ['assets/icon.svg', 'image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg"/>'],
      ['assets/blob.xyz', 'application/octet-stream', 'bytes'],
    ];
    for (const [path, type, body] of cases) {
      const response = await get(`app://fleet-desk/${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type'), path).toBe(type);
      expect(response.headers.get('content-length'), path).toBe(String(Buffer.byteLength(body)));
      expectHardened(response);
      expect(await response.text(), path).toBe(body);
    }
  });

  it('answers HEAD with the headers and no body', async () => {
    const response = await get('app://fleet-desk/assets/index-abc.js', 'HEAD');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(response.headers.get('content-length')).toBe(String('export const x = 1;'.length));
    expectHardened(response);
    expect(response.body).toBeNull();
  });

  it('answers 404 for missing files, folders and paths through a file, still hardened', async () => {
    for (const url of ['app://fleet-desk/missing.html', 'app://fleet-desk/assets', 'app://fleet-desk/index.html/x', 'app://fleet-desk/']) {
      const response = await get(url);
      expect(response.status, url).toBe(404);
      expect(response.headers.get('content-type'), url).toBe('text/plain; charset=utf-8');
      expectHardened(response);
    }
  });

  it('answers 405 with Allow for other methods, still hardened', async () => {
    const response = await get('app://fleet-desk/index.html', 'POST');
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    expectHardened(response);
  });

  it('never returns a file outside the renderer folder, however the path is spelled', async () => {
    const attempts = [
      'app://fleet-desk/../secret.txt',
      'app://fleet-desk/../../secret.txt',
      'app://fleet-desk/%2e%2e/secret.txt',
      'app://fleet-desk/%2e%2e/%2e%2e/secret.txt',
      'app://fleet-desk/%2E%2E%2Fsecret.txt',
      'app://fleet-desk/..%2fsecret.txt',
      'app://fleet-desk/..%2f..%2fsecret.txt',
      'app://fleet-desk/assets/..%2f..%2fsecret.txt',
      'app://fleet-desk/..%5csecret.txt',
      'app://fleet-desk/..\\secret.txt',
      'app://fleet-desk/..\\..\\secret.txt',
      'app://fleet-desk/%252e%252e/secret.txt',
      `app://fleet-desk/${encodeURIComponent(join(root, 'secret.txt'))}`,
      `app://fleet-desk/${join(root, 'secret.txt')}`,
      'app://other-host/../secret.txt',
    ];
    for (const url of attempts) {
      const response = await get(url);
      expect(response.status, url).toBe(404);
      expect(await response.text(), url).not.toContain(SECRET);
      expectHardened(response);
    }
  });
});

describe('the app:// handler with the page drawn by main', () => {
  const framed = (page: (html: string) => Promise<string>) => {
    const handler = createAppFilesHandler({ rendererDir, policy, page });
    return (url: string, method = 'GET') => handler(new Request(url, { method }));
  };

  it('serves index.html as `page` makes it from the built text, with its own length, and every other file as it is', async () => {
    const seen: string[] = [];
    const get = framed(async (html) => {
      seen.push(html);
      return html.replace('</title>', '</title><p>Acme — 34 machines</p>');
    });
    const page = await get('app://fleet-desk/index.html');
    const body = await page.text();
    expect(body).toBe('<!doctype html><title>Fleet Desk</title><p>Acme — 34 machines</p>');
    expect(page.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
    expectHardened(page);
    expect(seen).toEqual(['<!doctype html><title>Fleet Desk</title>']);
    const head = await get('app://fleet-desk/index.html', 'HEAD');
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
    expect(await head.text()).toBe('');
    expect(await (await get('app://fleet-desk/assets/index-abc.js')).text()).toBe('export const x = 1;');
    expect(seen).toHaveLength(2);
  });

  it('serves the built index.html when `page` fails', async () => {
    const page = await framed(() => Promise.reject(new Error('cache closed')))('app://fleet-desk/index.html');
    expect(page.status).toBe(200);
    expect(await page.text()).toBe('<!doctype html><title>Fleet Desk</title>');
  });
});
