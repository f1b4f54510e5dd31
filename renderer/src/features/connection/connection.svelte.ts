import type { FleetBridge } from '../../../../common/bridge';
import type { ConnectionState, SyncProgress } from '../../../../common/connection';
import type { BridgeError, Result } from '../../../../common/result';
import type { IsoTime } from '../../../../common/schemas';
import { Synced } from '../../lib/state/synced.svelte';

/** The link between the active profile and its service, as main reports it. */
export class ConnectionStore {
  readonly #bridge: FleetBridge;
  readonly #synced: Synced<ConnectionState>;
  #retrying = $state(false);
  #retryError = $state.raw<BridgeError | null>(null);

  constructor(bridge: FleetBridge) {
    this.#bridge = bridge;
    this.#synced = new Synced(
      () => bridge.invoke('connection.get', {}),
      (apply) => bridge.on('connection.changed', (state) => {
        this.#retryError = null;
        apply(state);
      }),
    );
  }

  get loaded(): boolean {
    return this.#synced.loaded;
  }
  /** Why `connection.get` failed (not why the service is offline: that is `error`). */
  get loadError(): BridgeError | null {
    return this.#synced.error;
  }
  /** `connecting` until main says otherwise. */
  get status(): ConnectionState['status'] {
    return this.#synced.value?.status ?? 'connecting';
  }
  get profileId(): string | null {
    return this.#synced.value?.profileId ?? null;
  }
  get address(): string {
    return this.#synced.value?.address ?? '';
  }
  /** A sync round under way and how far it got; null when none runs. */
  get sync(): SyncProgress | null {
    return this.#synced.value?.sync ?? null;
  }
  get lastSyncedAt(): IsoTime | null {
    return this.#synced.value?.lastSyncedAt ?? null;
  }
  get offlineSince(): IsoTime | null {
    return this.#synced.value?.offlineSince ?? null;
  }
  get nextRetryAt(): IsoTime | null {
    return this.#synced.value?.nextRetryAt ?? null;
  }
  /** The service-side failure (why offline, a rejected key); null when all is well. */
  get error(): BridgeError | null {
    return this.#synced.value?.error ?? null;
  }
  get retrying(): boolean {
    return this.#retrying;
  }
  /** Why the last "Retry now" call itself failed. */
  get retryError(): BridgeError | null {
    return this.#retryError;
  }

  follow(): () => void {
    return this.#synced.follow();
  }

  load(): Promise<Result<ConnectionState>> {
    return this.#synced.load();
  }

  /** Try the service now instead of waiting for main's next automatic retry. */
  async retry(): Promise<Result<ConnectionState>> {
    this.#retrying = true;
    this.#retryError = null;
    try {
      const result = await this.#bridge.invoke('connection.retry', {});
      if (result.ok) this.#synced.set(result.value);
      else this.#retryError = result.error;
      return result;
    } finally {
      this.#retrying = false;
    }
  }
}
