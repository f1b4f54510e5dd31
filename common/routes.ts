/**
 * The renderer's page routes as they cross the bridge (`app.navigate`, common/events.ts). A route
 * can come from outside the app (a `fleet-desk://` link any web page or program may open): main checks
 * it with `isRoutePath` before sending it, and the renderer can check again before following it.
 */

/**
 * The longest route accepted. Real routes are a few ids long; the bound keeps an outsider's link
 * from carrying megabytes into the page.
 */
export const MAX_ROUTE_LENGTH = 2048;

/**
 * A path, then optionally a query: unreserved and sub-delim characters, `:`, `@`, `/`, `?` and `%`
 * escapes. No `#` (the route itself lives in the page's hash, so a second one would be ambiguous);
 * no space, backslash, `"`, `<`, `>`, non-ASCII or control characters (nothing a URL parser, a log
 * line or markup could read differently); and not `//` first, which a URL parser reads as a host.
 */
const ROUTE = /^\/(?!\/)[A-Za-z0-9\-._~%/?=&:,+@!$'()*;]*$/;

/** True when `value` is a route the renderer may be asked to open: `/`, `/orgs/ORG/training?x=1`, … */
export function isRoutePath(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_ROUTE_LENGTH && ROUTE.test(value);
}
