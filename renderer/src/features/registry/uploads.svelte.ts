/** The upload queue main runs, followed through `registry.uploads`, and each row's actions (cancel, retry, remove). */
import type { FleetBridge } from '../../../../common/bridge';
import type { Upload } from '../../../../common/registry';
import type { BridgeError, Result } from '../../../../common/result';
import { Synced } from '../../lib/state/synced.svelte';

/** Uploads that may still move (cancel applies); the others have ended (retry, remove). */
export function uploadActive(upload: Upload): boolean {
  return upload.state === 'queued' || upload.state === 'uploading' || upload.state === 'waiting';
}

/** The upload queue main runs, as its last `registry.uploads` said, and what each row's action answered. */
export class UploadsStore {
  readonly #bridge: FleetBridge;
  readonly #synced: Synced<readonly Upload[]>;
  /** Why the last cancel, retry or remove of an upload failed, by upload id. */
  rowErrors = $state.raw<Readonly<Record<string, string>>>({});
  #listeners: ((done: readonly Upload[]) => void)[] = [];
  /** Each upload's state when last seen, to tell which just finished (bookkeeping, not state). */
  #states: ReadonlyMap<string, Upload['state']> = new Map(); // eslint-disable-line svelte/prefer-svelte-reactivity -- replaced whole, never rendered

  constructor(bridge: FleetBridge) {
    this.#bridge = bridge;
    this.#synced = new Synced(
      () => bridge.invoke('registry.uploads', {}),
      (apply) =>
        bridge.on('registry.uploads', (uploads) => {
          apply(uploads);
          this.#seen(uploads);
        }),
    );
  }

  get items(): readonly Upload[] {
    return this.#synced.value ?? [];
  }
  get loaded(): boolean {
    return this.#synced.loaded;
  }
  get error(): BridgeError | null {
    return this.#synced.error;
  }

  forModule(moduleId: string): readonly Upload[] {
    return this.items.filter((u) => u.moduleId === moduleId);
  }

  follow(): () => void {
    return this.#synced.follow();
  }

  async load(): Promise<Result<readonly Upload[]>> {
    const result = await this.#synced.load();
    // What is shown now (an event may have overtaken the answer).
    if (result.ok) this.#seen(this.items);
    return result;
  }

  /** Told of uploads that finished since the queue was last seen. */
  onDone(listener: (done: readonly Upload[]) => void): () => void {
    this.#listeners.push(listener);
    return () => {
      this.#listeners = this.#listeners.filter((l) => l !== listener);
    };
  }

  #seen(uploads: readonly Upload[]): void {
    const done = uploads.filter((u) => u.state === 'done' && this.#states.has(u.id) && this.#states.get(u.id) !== 'done');
    this.#states = new Map(uploads.map((u) => [u.id, u.state])); // eslint-disable-line svelte/prefer-svelte-reactivity -- see #states
    if (done.length > 0) for (const listener of this.#listeners) listener(done);
  }

  cancel(uploadId: string): Promise<Result<unknown>> {
    return this.#act(uploadId, this.#bridge.invoke('registry.cancelUpload', { uploadId }));
  }
  retry(uploadId: string): Promise<Result<unknown>> {
    return this.#act(uploadId, this.#bridge.invoke('registry.retryUpload', { uploadId }));
  }
  remove(uploadId: string): Promise<Result<unknown>> {
    return this.#act(uploadId, this.#bridge.invoke('registry.removeUpload', { uploadId }));
  }

  async #act(uploadId: string, call: Promise<Result<unknown>>): Promise<Result<unknown>> {
    const result = await call;
    const rest = Object.fromEntries(Object.entries(this.rowErrors).filter(([id]) => id !== uploadId));
    this.rowErrors = result.ok ? rest : { ...rest, [uploadId]: result.error.message };
    // The event brings the queue as it is now; a removed upload leaves it at once here too.
    if (result.ok && result.value === null) this.#synced.set(this.items.filter((u) => u.id !== uploadId));
    return result;
  }
}
