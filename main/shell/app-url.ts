/**
 * Where the app's own UI lives, and the one test of "is this URL ours?". Navigation guards and the
 * IPC sender check both ask it, so they cannot disagree about what counts as the app.
 * No electron import: it is plain URL logic, shared by modules that do import electron.
 */
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export type AppLocation =
  /** Development: the electron-vite dev server. Any path on its origin is the app (Vite serves modules from many). */
  | { readonly kind: 'dev'; readonly origin: string; readonly url: string }
  /** Built app: exactly one file. Other file:// pages are not ours, even next to it. */
  | { readonly kind: 'file'; readonly path: string; readonly url: string };

export interface AppLocationOptions {
  /** `ELECTRON_RENDERER_URL`, which the caller must pass only for an unpackaged app. */
  readonly devServerUrl?: string | undefined;
  /** Absolute path of the built out/renderer/index.html. */
  readonly rendererHtml: string;
}

export function appLocation(options: AppLocationOptions): AppLocation {
  if (options.devServerUrl) {
    const url = new URL(options.devServerUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new Error(`ELECTRON_RENDERER_URL must be an http(s) URL, not ${options.devServerUrl}`);
    }
    return { kind: 'dev', origin: url.origin, url: url.href };
  }
  const path = resolve(options.rendererHtml);
  return { kind: 'file', path, url: pathToFileURL(path).href };
}

function samePath(a: string, b: string): boolean {
  // Windows and default macOS volumes ignore case; Linux does not.
  return process.platform === 'linux' ? a === b : a.toLowerCase() === b.toLowerCase();
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
  if (url.protocol !== 'file:') return false;
  try {
    // Compared as paths, not strings: Chromium and Node percent-encode file URLs differently.
    return samePath(resolve(fileURLToPath(url)), location.path);
  } catch {
    // A file URL with a remote host (file://server/share) is never our bundled page.
    return false;
  }
}
