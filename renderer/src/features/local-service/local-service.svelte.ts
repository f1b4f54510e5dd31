import type { FleetBridge } from '../../../../common/bridge';
import type { LocalServiceState } from '../../../../common/local-service';
import type { BridgeError, Result } from '../../../../common/result';
import { Synced } from '../../lib/state/synced.svelte';

/** The embedded fleet service the app runs for the local profile. */
export class LocalServiceStore {
  readonly #bridge: FleetBridge;
  readonly #synced: Synced<LocalServiceState>;
  #pending = $state<'start' | 'stop' | null>(null);
  #actionError = $state.raw<BridgeError | null>(null);

  constructor(bridge: FleetBridge) {
    this.#bridge = bridge;
    this.#synced = new Synced(
      () => bridge.invoke('localService.get', {}),
      (apply) => bridge.on('localService.changed', apply),
    );
  }

  get loaded(): boolean {
    return this.#synced.loaded;
  }
  get loadError(): BridgeError | null {
    return this.#synced.error;
  }
  /** null until known. */
  get status(): LocalServiceState['status'] | null {
    return this.#synced.value?.status ?? null;
  }
  get address(): string | null {
    return this.#synced.value?.address ?? null;
  }
  get dataDir(): string | null {
    return this.#synced.value?.dataDir ?? null;
  }
  /** Why the service failed, as it reported. */
  get error(): string | null {
    return this.#synced.value?.error ?? null;
  }
  /** Which action is under way. */
  get pending(): 'start' | 'stop' | null {
    return this.#pending;
  }
  /** Why the last start/stop call failed. */
  get actionError(): BridgeError | null {
    return this.#actionError;
  }
  /** Whether the service is up or on its way up (so the action offered is "stop"). */
  get isUp(): boolean {
    const status = this.status;
    return status === 'running' || status === 'starting';
  }

  follow(): () => void {
    return this.#synced.follow();
  }

  load(): Promise<Result<LocalServiceState>> {
    return this.#synced.load();
  }

  startService(): Promise<Result<LocalServiceState>> {
    return this.#act('start');
  }

  stopService(): Promise<Result<LocalServiceState>> {
    return this.#act('stop');
  }

  async #act(action: 'start' | 'stop'): Promise<Result<LocalServiceState>> {
    this.#pending = action;
    this.#actionError = null;
    try {
      const result = await this.#bridge.invoke(action === 'start' ? 'localService.start' : 'localService.stop', {});
      if (result.ok) this.#synced.set(result.value);
      else this.#actionError = result.error;
      return result;
    } finally {
      this.#pending = null;
    }
  }
}
