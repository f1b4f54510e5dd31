/**
 * The bridge as the renderer uses it, and the one piece of code that builds it from a transport.
 * In Electron the transport is IPC (preload); in browser mode it is a loopback WebSocket. Both go
 * through `createBridge`, so the renderer cannot tell them apart and both reject unknown names.
 */
import { isChannelName } from './channel-names';
import type { ChannelName, RequestOf, ResponseOf } from './channels';
import { isEventName, type EventName, type Events } from './events';
import { err, fromWire, type Result, type WireResult } from './result';

export interface FleetBridge {
  /** Call a channel. Never throws: failures come back as `{ ok: false, error }`. */
  invoke<K extends ChannelName>(channel: K, request: RequestOf<K>): Promise<Result<ResponseOf<K>>>;
  /** Listen to an event; returns the function that stops listening. */
  on<E extends EventName>(event: E, listener: (payload: Events[E]) => void): () => void;
  /**
   * Where on disk a File the user dropped or picked is (Electron: webUtils.getPathForFile), so main
   * can stream it without its bytes crossing the bridge; null in browser mode (the page then sends
   * the file once to the backend's loopback endpoint) or for a file that is not on disk.
   */
  pathForFile(file: unknown): string | null;
}

/** How a bridge reaches main. Untyped on purpose: main validates everything that arrives. */
export interface BridgeTransport {
  invoke(channel: string, request: unknown): Promise<unknown>;
  subscribe(event: string, listener: (payload: unknown) => void): () => void;
  /** Electron only (see FleetBridge.pathForFile). */
  pathForFile?(file: unknown): string;
}

/** The global the preload (or the browser-mode bootstrap) installs the bridge under. */
export const BRIDGE_GLOBAL = 'fleet';
/** IPC channel for calls (ipcRenderer.invoke / ipcMain.handle). */
export const IPC_INVOKE = 'fleet:invoke';
/** IPC channel main sends events on, as (eventName, payload). */
export const IPC_EVENT = 'fleet:event';
/** Path of the browser-mode WebSocket, on the same origin as the page. */
export const WS_PATH = '/bridge';

/** Browser-mode wire frames (JSON). Calls carry an id; the answer echoes it. */
export type WireFrame =
  | { readonly type: 'invoke'; readonly id: number; readonly channel: string; readonly request: unknown }
  | { readonly type: 'result'; readonly id: number; readonly result: Result<unknown> }
  | { readonly type: 'event'; readonly event: string; readonly payload: unknown };

export function createBridge(transport: BridgeTransport): FleetBridge {
  const bridge: FleetBridge = {
    async invoke(channel, request) {
      if (!isChannelName(channel)) return err('invalid', `Unknown bridge channel "${String(channel)}".`);
      try {
        return fromWire((await transport.invoke(channel, request)) as WireResult<ResponseOf<typeof channel>>);
      } catch (e) {
        return err('internal', `The call to ${channel} did not reach the app's backend: ${e instanceof Error ? e.message : String(e)}`);
      }
    },
    on(event, listener) {
      if (!isEventName(event)) throw new TypeError(`Unknown bridge event "${String(event)}".`);
      return transport.subscribe(event, (payload) => listener(payload as Events[typeof event]));
    },
    pathForFile(file) {
      if (!transport.pathForFile) return null;
      try {
        return transport.pathForFile(file) || null;
      } catch {
        return null; // not a File
      }
    },
  };
  return Object.freeze(bridge);
}
