import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { appLocation, isAppUrl } from './app-url';

const html = join('/opt', 'Fleet Desk', 'out', 'renderer', 'index.html');

describe('appLocation / isAppUrl', () => {
  const built = appLocation({ rendererHtml: html });

  it('accepts the built page, with any query or fragment', () => {
    const url = pathToFileURL(html).href;
    expect(built).toMatchObject({ kind: 'file', url });
    expect(isAppUrl(built, url)).toBe(true);
    expect(isAppUrl(built, `${url}#/orgs`)).toBe(true);
    expect(isAppUrl(built, `${url}?x=1`)).toBe(true);
  });

  it('compares file URLs as paths, so percent-encoding differences do not matter', () => {
    expect(isAppUrl(built, 'file:///opt/Fleet%20Desk/out/renderer/index.html')).toBe(true);
    expect(isAppUrl(built, 'file:///opt/Fleet%20Desk/out/renderer/../renderer/index.html')).toBe(true);
  });

  it('rejects every other file, remote file hosts, other schemes and garbage', () => {
    expect(isAppUrl(built, pathToFileURL(join('/opt', 'Fleet Desk', 'out', 'renderer', 'other.html')).href)).toBe(false);
    expect(isAppUrl(built, 'file:///etc/passwd')).toBe(false);
    expect(isAppUrl(built, 'file://evil.example/opt/Fleet%20Desk/out/renderer/index.html')).toBe(false);
    expect(isAppUrl(built, 'https://evil.example/opt/Fleet%20Desk/out/renderer/index.html')).toBe(false);
    expect(isAppUrl(built, '')).toBe(false);
    expect(isAppUrl(built, 'not a url')).toBe(false);
  });

  it('in dev, accepts any path on the dev server origin and nothing else', () => {
    const dev = appLocation({ devServerUrl: 'http://localhost:5173/', rendererHtml: html });
    expect(dev).toEqual({ kind: 'dev', origin: 'http://localhost:5173', url: 'http://localhost:5173/' });
    expect(isAppUrl(dev, 'http://localhost:5173/')).toBe(true);
    expect(isAppUrl(dev, 'http://localhost:5173/src/main.ts?t=1')).toBe(true);
    expect(isAppUrl(dev, 'http://localhost:5174/')).toBe(false);
    expect(isAppUrl(dev, 'https://localhost:5173/')).toBe(false);
    expect(isAppUrl(dev, 'http://127.0.0.1:5173/')).toBe(false);
    expect(isAppUrl(dev, pathToFileURL(html).href)).toBe(false);
  });

  it('refuses a dev server URL that is not http(s)', () => {
    expect(() => appLocation({ devServerUrl: 'file:///tmp/x.html', rendererHtml: html })).toThrow(/http/);
  });
});
