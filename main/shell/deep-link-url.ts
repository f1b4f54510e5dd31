/**
 * What a `fleet-desk://` link says: the route it opens, or nothing. Plain string logic with no
 * electron import (like app-url.ts), so the release configuration's test can name the scheme too.
 */
import { isRoutePath } from '../../common/routes';

/**
 * The URL scheme the app is registered for (electron-builder.config.ts `protocols`, and at run time
 * deep-link.ts). Not `app`, which is the page's own origin (app-url.ts): a link from outside must
 * never be able to name a URL the page is served from.
 */
export const DEEP_LINK_SCHEME = 'fleet-desk';

const PREFIX = `${DEEP_LINK_SCHEME}:`;

/** Whether a command-line argument is meant as a deep link (whether or not it is a valid one). */
export function isDeepLink(arg: string): boolean {
  // Schemes are case-insensitive (RFC 3986), and a link typed by hand may say FLEET-DESK:.
  return arg.slice(0, PREFIX.length).toLowerCase() === PREFIX;
}

/**
 * The route a deep link opens, or null when it is not one. The canonical form is
 * `fleet-desk://<route without its leading slash>`: `fleet-desk://orgs/ORG/training?job=J` opens
 * `/orgs/ORG/training?job=J`, and `fleet-desk://` opens `/`. `fleet-desk:///orgs/ORG/training` (what
 * a URL builder makes of a route with an empty host) opens the same. Refused: any other scheme, no
 * `//` after the colon, and a route `isRoutePath` refuses (a fragment, spaces, control characters,
 * `//` first, more than MAX_ROUTE_LENGTH characters, …). Read as a string, not with `new URL`, which
 * would take the route's first segment for a host (and `a@`, `a:1` in it for a user and a port) and
 * resolve `..` segments: the route reaches the page exactly as the link spelled it.
 */
export function routeOfDeepLink(url: string): string | null {
  if (!isDeepLink(url)) return null;
  const rest = url.slice(PREFIX.length);
  if (!rest.startsWith('//')) return null;
  const path = rest.slice(2);
  const route = path.startsWith('/') ? path : `/${path}`;
  return isRoutePath(route) ? route : null;
}

/**
 * The deep link on a command line (the first instance's process.argv, or a second instance's argv on
 * Windows and Linux, where the OS starts the app with the link as an argument), if there is one.
 * Electron and Chromium add switches of their own, and a development run has the app's folder before
 * it, so the link is looked for rather than taken from a fixed place.
 */
export function deepLinkInArgv(argv: readonly string[]): string | undefined {
  return argv.slice(1).find(isDeepLink);
}

/** A link as a log line may show it: quoted (no line breaks a forged entry could hide behind) and cut short. */
export function describeLink(url: string): string {
  const shown = 200;
  return url.length <= shown ? JSON.stringify(url) : `${JSON.stringify(url.slice(0, shown))}… (${url.length} characters)`;
}
