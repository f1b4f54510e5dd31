/**
 * Where the app's own UI lives, and the one test of "is this URL ours?". Navigation guards and the
 * IPC sender check both ask it, so they cannot disagree about what counts as the app.
 * No electron import: it is plain URL logic, shared by modules that do import electron.
 */

/**
 * The built renderer is served on a privileged custom scheme (app-scheme.ts), not file://: a page on
 * file:// has no origin of its own (every local file is "the same site"), while `app://fleet-desk` is
 * an origin of its own, which 'self' in the CSP names and nothing on disk shares.
 */
export const APP_SCHEME = 'app';
/** The one host the scheme serves; any other host is not the app. */
export const APP_HOST = 'fleet-desk';
/** The app's page. */
export const APP_PAGE_URL = `${APP_SCHEME}://${APP_HOST}/index.html`;

export type AppLocation =
  /** Development: the electron-vite dev server. Any path on its origin is the app (Vite serves modules from many). */
  | { readonly kind: 'dev'; readonly origin: string; readonly url: string }
  /** Built app: exactly one page, `app://fleet-desk/index.html`. Its other files (scripts, styles) are never navigated to. */
  | { readonly kind: 'app'; readonly url: string };

export interface AppLocationOptions {
  /** `ELECTRON_RENDERER_URL`, which the caller must pass only for an unpackaged app. */
  readonly devServerUrl?: string | undefined;
}

export function appLocation(options: AppLocationOptions = {}): AppLocation {
  if (options.devServerUrl) {
    const url = new URL(options.devServerUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new Error(`ELECTRON_RENDERER_URL must be an http(s) URL, not ${options.devServerUrl}`);
    }
    return { kind: 'dev', origin: url.origin, url: url.href };
  }
  return { kind: 'app', url: APP_PAGE_URL };
}

/** True when `candidate` is the app's own page (any query or fragment, since a router may use them). */
export function isAppUrl(location: AppLocation, candidate: string): boolean {
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return false;
  }
  if (location.kind === 'dev') return url.origin === location.origin;
  // Node's URL gives every non-special scheme (app: included) the origin "null", so the parts are
  // compared one by one. `host` includes any port, so app://fleet-desk:1/ is not ours either.
  return (
    url.protocol === `${APP_SCHEME}:` &&
    url.host === APP_HOST &&
    url.username === '' &&
    url.password === '' &&
    url.pathname === '/index.html'
  );
}
