/**
 * The bridge the app talks through. In Electron the preload installed `window.fleet`; in browser
 * mode (`npm run web`) this module builds the same bridge over a WebSocket to the page's origin,
 * authenticated by the `?token=` the backend printed with the address.
 */
import { BRIDGE_GLOBAL, WS_PATH, createBridge, type FleetBridge } from '../../../common/bridge';
import { createWebSocketTransport, type SocketConstructor, type WebSocketTransport } from './ws-transport';

export type BridgeSetup =
  | { readonly kind: 'electron'; readonly bridge: FleetBridge }
  | { readonly kind: 'browser'; readonly bridge: FleetBridge; readonly transport: WebSocketTransport }
  /** Browser mode opened without the access token: nothing can work, say how to fix it. */
  | { readonly kind: 'no-token' };

/** What `resolveBridge` reads from the page (a window, or a stand-in in tests). */
export interface PageLike {
  readonly location: { readonly origin: string; readonly search: string };
}

export function isFleetBridge(value: unknown): value is FleetBridge {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<Record<keyof FleetBridge, unknown>>;
  return typeof candidate.invoke === 'function' && typeof candidate.on === 'function';
}

/** The browser-mode WebSocket address for a page origin and token. */
export function bridgeSocketUrl(origin: string, token: string): string {
  return `${origin.replace(/^http/, 'ws')}${WS_PATH}?token=${encodeURIComponent(token)}`;
}

export function resolveBridge(page: PageLike & object, WebSocketImpl?: SocketConstructor): BridgeSetup {
  const installed: unknown = (page as Record<string, unknown>)[BRIDGE_GLOBAL];
  if (isFleetBridge(installed)) return { kind: 'electron', bridge: installed };

  const token = new URLSearchParams(page.location.search).get('token');
  if (!token) return { kind: 'no-token' };

  const transport = createWebSocketTransport({ url: bridgeSocketUrl(page.location.origin, token), WebSocket: WebSocketImpl });
  const bridge = createBridge(transport);
  // Installed like the preload does, so both modes look the same from the outside.
  Object.defineProperty(page, BRIDGE_GLOBAL, { value: bridge, enumerable: false, configurable: false, writable: false });
  return { kind: 'browser', bridge, transport };
}
