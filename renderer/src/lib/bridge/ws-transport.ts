/**
 * Browser mode's bridge transport: one WebSocket to the loopback backend, speaking `WireFrame`s.
 *
 * - Calls get increasing ids; a `result` frame with the same id answers them.
 * - While the socket is connecting (first time or after a loss), calls queue and go out on open.
 * - When the socket closes, every call still waiting (sent or queued) resolves to an `offline`
 *   failure: it may or may not have run, and the page must not hang on it. Calls made after that
 *   queue for the next attempt, which comes after an exponential backoff.
 * - `event` frames go to the subscribers of that event name.
 */
import type { BridgeTransport, WireFrame } from '../../../../common/bridge';
import { err, isErrorKind, type Result } from '../../../../common/result';

/** The part of the DOM `WebSocket` this transport uses (a fake implements it in tests). */
export interface SocketLike {
  onopen: ((ev: Event) => void) | null;
  onmessage: ((ev: MessageEvent) => void) | null;
  onclose: ((ev: CloseEvent) => void) | null;
  onerror: ((ev: Event) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

export type SocketConstructor = new (url: string) => SocketLike;

/**
 * `connecting` — a socket is being opened (calls queue);
 * `open` — calls go straight out;
 * `waiting` — the last socket closed or failed; the next attempt is at `retryAt`.
 */
export type LinkStatus = 'connecting' | 'open' | 'waiting';

export interface LinkState {
  readonly status: LinkStatus;
  /** Epoch ms of the next attempt while `waiting`, else null. */
  readonly retryAt: number | null;
  /** Failed attempts in a row (0 once a socket opens). */
  readonly failures: number;
  /** Whether a socket has ever opened: a first failure means "cannot reach", a later one "lost". */
  readonly everOpened: boolean;
}

export interface WebSocketTransport extends BridgeTransport {
  readonly link: LinkState;
  /** Follow the link; the listener is called on every change (not at once). */
  onLinkChange(listener: (link: LinkState) => void): () => void;
  /** Skip the backoff wait and try now (no-op unless waiting). */
  reconnectNow(): void;
  /** Close for good: pending calls resolve offline, no more reconnects. */
  dispose(): void;
}

export interface WebSocketTransportOptions {
  readonly url: string;
  readonly WebSocket?: SocketConstructor;
  /** First wait after a failure; doubles per failure up to `maxDelayMs`. */
  readonly initialDelayMs?: number;
  readonly maxDelayMs?: number;
  readonly now?: () => number;
  /** Where malformed frames are reported (they are otherwise ignored). */
  readonly warn?: (message: string) => void;
}

export const LOST_BACKEND_MESSAGE = 'Lost the connection to the Fleet Desk backend';

interface Pending {
  readonly frame: Extract<WireFrame, { type: 'invoke' }>;
  readonly resolve: (result: Result<unknown>) => void;
  sent: boolean;
}

export function createWebSocketTransport(options: WebSocketTransportOptions): WebSocketTransport {
  const Socket = options.WebSocket ?? globalThis.WebSocket;
  const initialDelay = options.initialDelayMs ?? 500;
  const maxDelay = options.maxDelayMs ?? 15_000;
  const now = options.now ?? (() => Date.now());
  const warn = options.warn ?? ((m: string) => console.warn(m));

  const pending = new Map<number, Pending>();
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  const linkListeners = new Set<(link: LinkState) => void>();
  let nextId = 1;
  let socket: SocketLike | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let disposed = false;
  let link: LinkState = { status: 'connecting', retryAt: null, failures: 0, everOpened: false };

  function setLink(next: LinkState): void {
    link = next;
    for (const listener of [...linkListeners]) listener(link);
  }

  function send(entry: Pending): void {
    if (!socket || link.status !== 'open') return;
    try {
      socket.send(JSON.stringify(entry.frame));
      entry.sent = true;
    } catch (e) {
      warn(`bridge: could not send ${entry.frame.channel}: ${e instanceof Error ? e.message : String(e)}`);
      // Leave it pending; a failing send means the socket is going down and close() settles it.
    }
  }

  function failAllPending(): void {
    const entries = [...pending.values()];
    pending.clear();
    for (const entry of entries) {
      entry.resolve(err('offline', `${LOST_BACKEND_MESSAGE} before ${entry.frame.channel} answered. Reconnecting…`));
    }
  }

  function connect(): void {
    if (disposed) return;
    timer = null;
    setLink({ ...link, status: 'connecting', retryAt: null });
    let ws: SocketLike;
    try {
      ws = new Socket(options.url);
    } catch (e) {
      warn(`bridge: could not open the WebSocket: ${e instanceof Error ? e.message : String(e)}`);
      onClosed(null);
      return;
    }
    socket = ws;
    ws.onopen = () => {
      if (socket !== ws) return;
      setLink({ status: 'open', retryAt: null, failures: 0, everOpened: true });
      for (const entry of [...pending.values()].sort((a, b) => a.frame.id - b.frame.id)) {
        if (!entry.sent) send(entry);
      }
    };
    ws.onmessage = (ev) => {
      if (socket !== ws) return;
      onFrame(ev.data);
    };
    ws.onerror = () => {
      // Always followed by close, which does the work.
    };
    ws.onclose = () => onClosed(ws);
  }

  function onClosed(ws: SocketLike | null): void {
    if (ws !== null && socket !== ws) return;
    socket = null;
    failAllPending();
    if (disposed) return;
    const failures = link.failures + 1;
    const delay = Math.min(maxDelay, initialDelay * 2 ** (failures - 1));
    setLink({ status: 'waiting', retryAt: now() + delay, failures, everOpened: link.everOpened });
    timer = setTimeout(connect, delay);
  }

  function onFrame(data: unknown): void {
    if (typeof data !== 'string') {
      warn('bridge: ignored a non-text frame');
      return;
    }
    let frame: unknown;
    try {
      frame = JSON.parse(data);
    } catch {
      warn('bridge: ignored a frame that is not JSON');
      return;
    }
    if (!isRecord(frame)) {
      warn('bridge: ignored a frame that is not an object');
      return;
    }
    if (frame.type === 'result' && typeof frame.id === 'number') {
      const entry = pending.get(frame.id);
      if (!entry) {
        warn(`bridge: ignored a result for unknown call ${frame.id}`);
        return;
      }
      pending.delete(frame.id);
      entry.resolve(
        isResult(frame.result)
          ? frame.result
          : err('internal', `The Fleet Desk backend answered ${entry.frame.channel} with a malformed result.`),
      );
      return;
    }
    if (frame.type === 'event' && typeof frame.event === 'string') {
      for (const listener of [...(listeners.get(frame.event) ?? [])]) {
        try {
          listener(frame.payload);
        } catch (e) {
          warn(`bridge: a ${frame.event} listener failed: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
      return;
    }
    warn('bridge: ignored a frame of an unknown shape');
  }

  connect();

  return {
    get link() {
      return link;
    },
    invoke(channel, request) {
      if (disposed) return Promise.resolve(err('offline', `${LOST_BACKEND_MESSAGE}: the page was closed.`));
      return new Promise<Result<unknown>>((resolve) => {
        const entry: Pending = { frame: { type: 'invoke', id: nextId++, channel, request }, resolve, sent: false };
        pending.set(entry.frame.id, entry);
        send(entry);
      });
    },
    subscribe(event, listener) {
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      set.add(listener);
      return () => {
        set.delete(listener);
      };
    },
    onLinkChange(listener) {
      linkListeners.add(listener);
      return () => {
        linkListeners.delete(listener);
      };
    },
    reconnectNow() {
      if (disposed || link.status !== 'waiting') return;
      if (timer !== null) clearTimeout(timer);
      connect();
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      if (timer !== null) clearTimeout(timer);
      const ws = socket;
      socket = null;
      failAllPending();
      ws?.close(1000, 'closed');
    },
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isResult(value: unknown): value is Result<unknown> {
  if (!isRecord(value)) return false;
  if (value.ok === true) return 'value' in value;
  if (value.ok === false) return isRecord(value.error) && isErrorKind(value.error.kind) && typeof value.error.message === 'string';
  return false;
}
