/**
 * The bridge the app talks through. In Electron the preload installed `window.fleet`; in browser
 * mode (`npm run web`) this module builds the same bridge over a WebSocket to the page's origin.
 * The socket is admitted by the session cookie the server set when the page was opened with its
 * launch token; the page never handles a credential itself. The spent token is taken out of the
 * address bar, so it is neither shown nor kept in this tab's history entry.
 */
import { BRIDGE_GLOBAL, WS_PATH, createBridge, type FleetBridge } from '../../../../common/bridge';
import { createWebSocketTransport, type SocketConstructor, type WebSocketTransport } from './ws-transport';

export type BridgeSetup =
  | { readonly kind: 'electron'; readonly bridge: FleetBridge }
  | { readonly kind: 'browser'; readonly bridge: FleetBridge; readonly transport: WebSocketTransport };

/** What `resolveBridge` reads from the page (a window, or a stand-in in tests). */
export interface PageLike {
  readonly location: { readonly origin: string; readonly pathname: string; readonly search: string; readonly hash: string };
  readonly history: { replaceState(data: unknown, unused: string, url?: string): void };
}

export function isFleetBridge(value: unknown): value is FleetBridge {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<Record<keyof FleetBridge, unknown>>;
  return typeof candidate.invoke === 'function' && typeof candidate.on === 'function';
}

/** The browser-mode WebSocket address for a page origin. */
export function bridgeSocketUrl(origin: string): string {
  return `${origin.replace(/^http/, 'ws')}${WS_PATH}`;
}

/** The page's address without the launch token (other query parameters and the fragment kept). */
export function withoutToken(location: PageLike['location']): string | null {
  const params = new URLSearchParams(location.search);
  if (!params.has('token')) return null;
  params.delete('token');
  const query = params.toString();
  return `${location.pathname}${query ? `?${query}` : ''}${location.hash}`;
}

export function resolveBridge(page: PageLike & object, WebSocketImpl?: SocketConstructor): BridgeSetup {
  const installed: unknown = (page as Record<string, unknown>)[BRIDGE_GLOBAL];
  if (isFleetBridge(installed)) return { kind: 'electron', bridge: installed };

  // Spent on load (the server exchanged it for the session cookie): out of sight and out of this entry.
  const clean = withoutToken(page.location);
  if (clean !== null) page.history.replaceState(null, '', clean);

  const transport = createWebSocketTransport({ url: bridgeSocketUrl(page.location.origin), WebSocket: WebSocketImpl });
  const bridge = createBridge(transport);
  // Installed like the preload does, so both modes look the same from the outside.
  Object.defineProperty(page, BRIDGE_GLOBAL, { value: bridge, enumerable: false, configurable: false, writable: false });
  return { kind: 'browser', bridge, transport };
}
