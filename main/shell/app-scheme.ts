/**
 * The `app:` scheme the built renderer is loaded from (`app://fleet-desk/index.html`), wired into
 * Electron. What it serves is decided in app-files.ts; this module only registers it.
 */
import { protocol, type CustomScheme } from 'electron';
import { createAppFilesHandler } from './app-files';
import { APP_SCHEME } from './app-url';

/**
 * The privileges the renderer needs, and no more:
 * - `standard`: generic URI syntax, so relative URLs resolve (`./assets/x.js`) and the page has a real
 *   origin, `app://fleet-desk`, which the CSP's 'self' names. Vite's `<script type="module" crossorigin>`
 *   is then a same-origin CORS request, which needs no `corsEnabled` (that would let *other* origins read it).
 * - `secure`: a secure context, like https; the Copy buttons' `navigator.clipboard` needs one.
 * - `supportFetchAPI`: fetch() of the page's own files.
 * - `codeCache`: V8 caches compiled scripts, as it does for http(s) (needs `standard`).
 * Not `bypassCSP`, `corsEnabled`, `allowServiceWorkers`, `stream` or `allowExtensions`: nothing needs them.
 */
export const APP_SCHEME_PRIVILEGES: CustomScheme = {
  scheme: APP_SCHEME,
  privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true },
};

/** Call once, before the app's `ready` (Electron only accepts it then). */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([APP_SCHEME_PRIVILEGES]);
}

/**
 * Call after `ready`, before the first window loads: serves `rendererDir` on the default session
 * (the one the app's windows use), with `policy` as the CSP header of every response, and index.html
 * as `page` makes it (the fleet tree drawn into its frame).
 */
export function handleAppScheme(rendererDir: string, policy: string, page?: (indexHtml: string) => Promise<string>): void {
  protocol.handle(APP_SCHEME, createAppFilesHandler({ rendererDir, policy, page }));
}
