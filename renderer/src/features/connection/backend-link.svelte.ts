import type { LinkState, WebSocketTransport } from '../../lib/bridge/ws-transport';

/**
 * Browser mode only: the WebSocket to the Fleet Desk backend itself (not the fleet service).
 * In Electron there is no such link and `status` stays `open`.
 */
export class BackendLink {
  readonly #transport: WebSocketTransport | null;
  #link = $state.raw<LinkState>({ status: 'open', retryAt: null, failures: 0, everOpened: true });

  constructor(transport: WebSocketTransport | null) {
    this.#transport = transport;
    if (transport) this.#link = transport.link;
  }

  get status(): LinkState['status'] {
    return this.#link.status;
  }
  /** Epoch ms of the next reconnect attempt while waiting. */
  get retryAt(): number | null {
    return this.#link.retryAt;
  }
  /** Whether the backend answered once: if not, a failure means the address or token is wrong. */
  get everOpened(): boolean {
    return this.#link.everOpened;
  }
  /** Whether to show the "lost the backend" banner. */
  get down(): boolean {
    return this.#link.status === 'waiting' || (this.#link.status === 'connecting' && this.#link.failures > 0);
  }

  /** Follow the link; `onReopen` runs when it opens again after a loss (snapshots may have been missed). */
  follow(onReopen: () => void): () => void {
    if (!this.#transport) return () => {};
    return this.#transport.onLinkChange((link) => {
      const wasDown = this.#link.status !== 'open' && this.#link.everOpened;
      this.#link = link;
      if (link.status === 'open' && wasDown) onReopen();
    });
  }

  reconnectNow(): void {
    this.#transport?.reconnectNow();
  }
}
