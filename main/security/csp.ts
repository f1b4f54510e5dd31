/**
 * The renderer's Content Security Policy, sent as a header by every host of the page: the app://
 * scheme handler (main/shell/app-files.ts), browser mode's server (main/web/server.ts) and, for the
 * dev server, the session's header hook (security.ts). renderer/index.html carries the same policy
 * in a <meta> tag as a second lock; csp.test.ts keeps the two equal (minus frame-ancestors, which
 * only a header can deliver).
 * No electron import, so tests and tools can read the policy without an Electron runtime.
 */

type Directives = Readonly<Record<string, readonly string[]>>;

const directives: Directives = {
  'default-src': ["'none'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'"],
  'connect-src': ["'self'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'frame-ancestors': ["'none'"],
};

function serialize(policy: Directives): string {
  return Object.entries(policy)
    .map(([name, sources]) => `${name} ${sources.join(' ')}`)
    .join('; ');
}

/** The policy of the built app: nothing inline, nothing remote. The bridge is IPC, which CSP does not govern. */
export const CONTENT_SECURITY_POLICY = serialize(directives);

// Browsers ignore these in a <meta> tag (and warn about them), so the page's copy leaves them out.
const headerOnly = new Set(['frame-ancestors', 'report-uri', 'sandbox']);

/** The same policy as renderer/index.html's <meta> tag must carry it. */
export const META_CONTENT_SECURITY_POLICY = serialize(
  Object.fromEntries(Object.entries(directives).filter(([name]) => !headerOnly.has(name))),
);

/**
 * The dev server's policy: the production one plus what Vite's dev client needs and nothing more.
 * - `style-src 'unsafe-inline'`: in dev Vite injects every stylesheet (Svelte component CSS included)
 *   as an inline <style> element; the build extracts them to files, so production stays strict.
 * - `connect-src ws(s)://<dev host:port>`: the HMR socket. Only that one origin, not every `ws:` host;
 *   CSP3 lets 'self' match it too, but naming it does not depend on how far a Chromium follows CSP3.
 * Scripts stay 'self'-only: Vite's dev client and modules are served from the same origin.
 */
export function devContentSecurityPolicy(devServerOrigin: string): string {
  const origin = new URL(devServerOrigin);
  const socket = `${origin.protocol === 'https:' ? 'wss' : 'ws'}://${origin.host}`;
  return serialize({
    ...directives,
    'style-src': [...(directives['style-src'] ?? []), "'unsafe-inline'"],
    'connect-src': [...(directives['connect-src'] ?? []), socket],
  });
}
