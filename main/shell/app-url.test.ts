import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { APP_PAGE_URL, appLocation, isAppUrl } from './app-url';

const html = join('/opt', 'Fleet Desk', 'out', 'renderer', 'index.html');

describe('appLocation / isAppUrl', () => {
  const built = appLocation();

  it('is app://fleet-desk/index.html in a build, with any query or fragment', () => {
    expect(APP_PAGE_URL).toBe('app://fleet-desk/index.html');
    expect(built).toEqual({ kind: 'app', url: 'app://fleet-desk/index.html' });
    expect(isAppUrl(built, APP_PAGE_URL)).toBe(true);
    expect(isAppUrl(built, `${APP_PAGE_URL}#/orgs`)).toBe(true);
    expect(isAppUrl(built, `${APP_PAGE_URL}?x=1`)).toBe(true);
    // The same page, spelled with dot segments the URL parser removes.
    expect(isAppUrl(built, 'app://fleet-desk/assets/../index.html')).toBe(true);
  });

  it('no longer trusts the built page on file://, nor any other file', () => {
    expect(isAppUrl(built, pathToFileURL(html).href)).toBe(false);
    expect(isAppUrl(built, 'file:///opt/Fleet%20Desk/out/renderer/index.html')).toBe(false);
    expect(isAppUrl(built, 'file:///etc/passwd')).toBe(false);
    expect(isAppUrl(built, 'file://fleet-desk/index.html')).toBe(false);
  });

  it('rejects another host, a port, credentials, another path, another scheme, and garbage', () => {
    expect(isAppUrl(built, 'app://other-host/index.html')).toBe(false);
    expect(isAppUrl(built, 'app://fleet-desk.evil.example/index.html')).toBe(false);
    expect(isAppUrl(built, 'app://fleet-desk:8080/index.html')).toBe(false);
    expect(isAppUrl(built, 'app://user:pw@fleet-desk/index.html')).toBe(false);
    expect(isAppUrl(built, 'app://fleet-desk/')).toBe(false);
    expect(isAppUrl(built, 'app://fleet-desk/other.html')).toBe(false);
    expect(isAppUrl(built, 'app://fleet-desk/assets/index.html')).toBe(false);
    expect(isAppUrl(built, 'app://fleet-desk//index.html')).toBe(false);
    expect(isAppUrl(built, 'app:///index.html')).toBe(false);
    expect(isAppUrl(built, 'apps://fleet-desk/index.html')).toBe(false);
    expect(isAppUrl(built, 'https://fleet-desk/index.html')).toBe(false);
    expect(isAppUrl(built, '')).toBe(false);
    expect(isAppUrl(built, 'not a url')).toBe(false);
  });

  it('in dev, accepts any path on the dev server origin and nothing else', () => {
    const dev = appLocation({ devServerUrl: 'http://localhost:5173/' });
    expect(dev).toEqual({ kind: 'dev', origin: 'http://localhost:5173', url: 'http://localhost:5173/' });
    expect(isAppUrl(dev, 'http://localhost:5173/')).toBe(true);
    expect(isAppUrl(dev, 'http://localhost:5173/src/main.ts?t=1')).toBe(true);
    expect(isAppUrl(dev, 'http://localhost:5174/')).toBe(false);
    expect(isAppUrl(dev, 'https://localhost:5173/')).toBe(false);
    expect(isAppUrl(dev, 'http://127.0.0.1:5173/')).toBe(false);
    expect(isAppUrl(dev, pathToFileURL(html).href)).toBe(false);
    expect(isAppUrl(dev, APP_PAGE_URL)).toBe(false);
  });

  it('refuses a dev server URL that is not http(s)', () => {
    expect(() => appLocation({ devServerUrl: 'file:///tmp/x.html' })).toThrow(/http/);
  });
});
