/**
 * The renderer's Content-Security-Policy: only the app's own scripts, styles and connections, no
 * inline code, no plugins, no framing. renderer/index.html carries the same policy as a meta tag;
 * the Electron shell and the browser-mode server also send it as a header (a header also covers what
 * the meta tag cannot: frame-ancestors). Kept free of electron so both hosts import it.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
