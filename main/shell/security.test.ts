import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fake, FakeWebContents, navigationEvent, resetFakeElectron, type HeadersDetails } from '../../test/electron/fake-electron';
import { appLocation } from './app-url';
import { installAppSecurity, installSessionSecurity, isExternalLink } from './security';
import type { Session } from 'electron';

vi.mock('electron', async () => (await import('../../test/electron/fake-electron')).electronModule);

const appUrl = 'app://fleet-desk/index.html';

function guarded(devServerUrl?: string) {
  const log = vi.fn();
  installAppSecurity(appLocation({ devServerUrl }), log);
  const contents = new FakeWebContents();
  fake.app.emit('web-contents-created', {}, contents);
  return { contents, log };
}

describe('webContents guards', () => {
  beforeEach(resetFakeElectron);

  it('lets the app navigate to its own page', () => {
    const { contents } = guarded();
    const event = navigationEvent(`${appUrl}#/orgs`);
    contents.emit('will-navigate', event);
    expect(event.preventDefault).not.toHaveBeenCalled();
  });

  // Same-document navigations (a hash link, pushState, history traversal between such entries) never
  // reach these guards: Electron emits will-navigate and will-frame-navigate only for navigations
  // that load a document. Should the page load itself anew at a route (location.assign with another
  // query, say), the guards let it through, since isAppUrl accepts the page with any query or fragment.
  it("lets the page load itself at any of the router's routes", () => {
    const { contents } = guarded();
    for (const route of ['#/', '#/orgs/O/training', '#/orgs/O/parts/P/logs?level=error', '#/registry/items/acme:nav', '#/x?u=https://evil.example/']) {
      for (const kind of ['will-navigate', 'will-redirect'] as const) {
        const event = navigationEvent(`${appUrl}${route}`);
        contents.emit(kind, event);
        expect(event.preventDefault, `${kind} ${route}`).not.toHaveBeenCalled();
      }
      const sub = navigationEvent(`${appUrl}${route}`, false);
      contents.emit('will-frame-navigate', sub);
      expect(sub.preventDefault, route).not.toHaveBeenCalled();
    }
    expect(fake.shell.openExternal).not.toHaveBeenCalled();
  });

  it("in dev, lets the page load itself at a route of the router's too", () => {
    const { contents } = guarded('http://localhost:5173');
    const event = navigationEvent('http://localhost:5173/#/orgs/O/training');
    contents.emit('will-navigate', event);
    expect(event.preventDefault).not.toHaveBeenCalled();
  });

  it("a route in the fragment does not make another page the app's", () => {
    const { contents } = guarded();
    for (const url of ['app://fleet-desk/other.html#/orgs/O', 'https://evil.example/#/orgs/O', `https://evil.example/#${appUrl}`]) {
      const event = navigationEvent(url);
      contents.emit('will-navigate', event);
      expect(event.preventDefault, url).toHaveBeenCalled();
    }
  });

  it('blocks navigation to the built page on file://, or to another app:// host, opening nothing', () => {
    const { contents } = guarded();
    for (const url of ['file:///opt/fleet-desk/out/renderer/index.html', 'app://other-host/index.html', 'app://fleet-desk/other.html']) {
      for (const kind of ['will-navigate', 'will-redirect'] as const) {
        const event = navigationEvent(url);
        contents.emit(kind, event);
        expect(event.preventDefault, `${kind} ${url}`).toHaveBeenCalled();
      }
      const sub = navigationEvent(url, false);
      contents.emit('will-frame-navigate', sub);
      expect(sub.preventDefault, url).toHaveBeenCalled();
    }
    expect(fake.shell.openExternal).not.toHaveBeenCalled();
  });

  it('blocks navigation away; only an https link goes to the OS browser', () => {
    const { contents } = guarded();
    const https = navigationEvent('https://docs.example.com/fleet');
    contents.emit('will-navigate', https);
    expect(https.preventDefault).toHaveBeenCalled();
    expect(fake.shell.openExternal).toHaveBeenCalledWith('https://docs.example.com/fleet');

    for (const url of ['http://evil.example/', 'file:///etc/passwd', 'smb://share/x', 'javascript:alert(1)']) {
      fake.shell.openExternal.mockClear();
      const event = navigationEvent(url);
      contents.emit('will-navigate', event);
      expect(event.preventDefault, url).toHaveBeenCalled();
      expect(fake.shell.openExternal, url).not.toHaveBeenCalled();
    }
  });

  it('blocks redirects away without opening anything', () => {
    const { contents } = guarded();
    const away = navigationEvent('https://evil.example/');
    contents.emit('will-redirect', away);
    expect(away.preventDefault).toHaveBeenCalled();
    expect(fake.shell.openExternal).not.toHaveBeenCalled();
    const home = navigationEvent(appUrl);
    contents.emit('will-redirect', home);
    expect(home.preventDefault).not.toHaveBeenCalled();
  });

  it('blocks subframe navigations away, leaving main-frame ones to will-navigate', () => {
    const { contents } = guarded();
    const sub = navigationEvent('https://evil.example/', false);
    contents.emit('will-frame-navigate', sub);
    expect(sub.preventDefault).toHaveBeenCalled();
    const main = navigationEvent('https://docs.example.com/', true);
    contents.emit('will-frame-navigate', main);
    expect(main.preventDefault).not.toHaveBeenCalled();
    expect(fake.shell.openExternal).not.toHaveBeenCalled();
  });

  it('in dev, treats the dev server origin as the app', () => {
    const { contents } = guarded('http://localhost:5173');
    const own = navigationEvent('http://localhost:5173/index.html');
    contents.emit('will-navigate', own);
    expect(own.preventDefault).not.toHaveBeenCalled();
    const other = navigationEvent('http://localhost:5174/');
    contents.emit('will-navigate', other);
    expect(other.preventDefault).toHaveBeenCalled();
  });

  it('denies window.open, even to the app itself, and sends https links to the OS browser', () => {
    const { contents } = guarded();
    const handler = contents.windowOpenHandler;
    expect(handler).toBeDefined();
    expect(handler?.({ url: appUrl })).toEqual({ action: 'deny' });
    expect(handler?.({ url: 'http://evil.example/' })).toEqual({ action: 'deny' });
    expect(fake.shell.openExternal).not.toHaveBeenCalled();
    expect(handler?.({ url: 'https://docs.example.com/' })).toEqual({ action: 'deny' });
    expect(fake.shell.openExternal).toHaveBeenCalledExactlyOnceWith('https://docs.example.com/');
  });

  it('prevents attaching a webview', () => {
    const { contents } = guarded();
    const event = { preventDefault: vi.fn() };
    contents.emit('will-attach-webview', event, {}, { src: appUrl });
    expect(event.preventDefault).toHaveBeenCalled();
  });

  it('treats only https as an external link', () => {
    expect(isExternalLink('https://x.example/')).toBe(true);
    expect(isExternalLink('http://x.example/')).toBe(false);
    expect(isExternalLink('mailto:a@b.c')).toBe(false);
    expect(isExternalLink('nonsense')).toBe(false);
  });
});

describe('session security', () => {
  beforeEach(resetFakeElectron);
  const policy = "default-src 'none'";
  const install = () => installSessionSecurity(fake.session.defaultSession as unknown as Session, policy);

  it('denies every permission request and check but sanitized clipboard writes', () => {
    install();
    const onRequest = fake.session.defaultSession.setPermissionRequestHandler.mock.calls[0]?.[0] as
      | ((contents: unknown, permission: string, callback: (granted: boolean) => void) => void)
      | undefined;
    const onCheck = fake.session.defaultSession.setPermissionCheckHandler.mock.calls[0]?.[0] as
      | ((contents: unknown, permission: string, origin: string) => boolean)
      | undefined;
    expect(onRequest).toBeTypeOf('function');
    expect(onCheck).toBeTypeOf('function');
    for (const permission of ['media', 'notifications', 'clipboard-read', 'geolocation', 'openExternal', 'unknown']) {
      const callback = vi.fn();
      onRequest?.({}, permission, callback);
      expect(callback, permission).toHaveBeenCalledExactlyOnceWith(false);
      expect(onCheck?.({}, permission, appUrl), permission).toBe(false);
    }
    const callback = vi.fn();
    onRequest?.({}, 'clipboard-sanitized-write', callback);
    expect(callback).toHaveBeenCalledExactlyOnceWith(true);
    expect(onCheck?.({}, 'clipboard-sanitized-write', appUrl)).toBe(true);
  });

  function headersFor(details: HeadersDetails) {
    const listener = fake.session.defaultSession.webRequest.onHeadersReceived.mock.calls[0]?.[0] as
      | ((details: HeadersDetails, callback: (response: { responseHeaders?: Record<string, string[]> }) => void) => void)
      | undefined;
    const callback = vi.fn();
    listener?.(details, callback);
    expect(callback).toHaveBeenCalledOnce();
    return callback.mock.calls[0]?.[0] as { responseHeaders?: Record<string, string[]> };
  }

  it('adds the CSP header to http(s) responses', () => {
    install();
    const response = headersFor({ url: 'http://localhost:5173/', responseHeaders: { 'Content-Type': ['text/html'] } });
    expect(response.responseHeaders).toEqual({ 'Content-Type': ['text/html'], 'Content-Security-Policy': [policy] });
    expect(headersFor({ url: 'https://x.example/' }).responseHeaders).toEqual({ 'Content-Security-Policy': [policy] });
  });

  it("keeps a server's own policy beside ours", () => {
    install();
    const response = headersFor({ url: 'http://localhost:5173/', responseHeaders: { 'content-security-policy': ["script-src 'self'"] } });
    expect(response.responseHeaders).toEqual({ 'content-security-policy': ["script-src 'self'", policy] });
  });

  it('leaves other schemes alone: app:// responses carry the policy from their own handler', () => {
    install();
    expect(headersFor({ url: 'devtools://devtools/bundled/x.html', responseHeaders: {} })).toEqual({});
    expect(headersFor({ url: 'app://fleet-desk/index.html', responseHeaders: { 'Content-Security-Policy': [policy] } })).toEqual({});
  });
});
