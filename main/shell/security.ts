/**
 * Hardening applied once per app and once per session. Every webContents (windows, devtools,
 * anything a bug might create) gets the same guards, so a compromised page cannot navigate the
 * window, open new ones, attach a <webview>, or be granted a permission.
 */
import { app, shell, type Session, type WebContents } from 'electron';
import { isAppUrl, type AppLocation } from './app-url';

type Log = (message: string) => void;

/** Links the app may hand to the OS browser: https only, so no file:, custom schemes or plain http. */
export function isExternalLink(url: string): boolean {
  try {
    return new URL(url).protocol === 'https:';
  } catch {
    return false;
  }
}

function openExternally(url: string, log: Log): void {
  if (!isExternalLink(url)) {
    log(`security: blocked a link to ${url}`);
    return;
  }
  shell.openExternal(url).catch((e: unknown) => log(`security: could not open ${url}: ${String(e)}`));
}

/** The guards of one webContents. Exported for tests; `installAppSecurity` applies it to all of them. */
export function guardWebContents(contents: WebContents, location: AppLocation, log: Log): void {
  // A user clicking an https link means "show me this", so it goes to the OS browser; anything else is dropped.
  contents.on('will-navigate', (event) => {
    if (isAppUrl(location, event.url)) return;
    event.preventDefault();
    openExternally(event.url, log);
  });
  // will-navigate only sees the main frame. Subframes are also blocked by CSP (no frame-src), this is the second lock.
  contents.on('will-frame-navigate', (event) => {
    if (event.isMainFrame || isAppUrl(location, event.url)) return;
    event.preventDefault();
    log(`security: blocked a subframe navigation to ${event.url}`);
  });
  // A server redirect is not the user's intent: block it and open nothing.
  contents.on('will-redirect', (event) => {
    if (isAppUrl(location, event.url)) return;
    event.preventDefault();
    log(`security: blocked a redirect to ${event.url}`);
  });
  contents.setWindowOpenHandler(({ url }) => {
    openExternally(url, log);
    return { action: 'deny' };
  });
  // webviewTag is off in every window we create; this catches any webContents created otherwise.
  contents.on('will-attach-webview', (event) => {
    event.preventDefault();
    log('security: blocked a <webview>');
  });
}

/** Call once, before the first window: guards every webContents the app will ever create. */
export function installAppSecurity(location: AppLocation, log: Log): void {
  app.on('web-contents-created', (_event, contents) => guardWebContents(contents, location, log));
}

/**
 * The one web permission the UI uses: writing plain text to the clipboard (the Copy buttons). It
 * cannot read anything back; every other request (camera, notifications, clipboard-read, …) is refused.
 */
export const GRANTED_PERMISSIONS: ReadonlySet<string> = new Set(['clipboard-sanitized-write']);

/**
 * Call once per session, after `ready`. Everything else the UI does goes through the bridge, so
 * every permission outside GRANTED_PERMISSIONS is refused.
 * `policy` is added as a CSP header to http(s) responses (the dev server). The built app's
 * `app://` responses carry the policy from their own handler (app-files.ts), so they are left alone
 * here, as are devtools:// and the like.
 */
export function installSessionSecurity(session: Session, policy: string): void {
  session.setPermissionRequestHandler((_contents, permission, callback) => callback(GRANTED_PERMISSIONS.has(permission)));
  session.setPermissionCheckHandler((_contents, permission) => GRANTED_PERMISSIONS.has(permission));
  session.webRequest.onHeadersReceived((details, callback) => {
    const protocol = new URL(details.url).protocol;
    if (protocol !== 'http:' && protocol !== 'https:') {
      callback({});
      return;
    }
    const headers: Record<string, string[]> = { ...details.responseHeaders };
    const key = Object.keys(headers).find((name) => name.toLowerCase() === 'content-security-policy') ?? 'Content-Security-Policy';
    // Appended, never replacing: a second policy can only narrow what a server's own policy allows.
    headers[key] = [...(headers[key] ?? []), policy];
    callback({ responseHeaders: headers });
  });
}
