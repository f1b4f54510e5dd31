import type { BridgeError, Result } from '../../../../common/result';
import { Latest } from './latest';

/**
 * One snapshot kept in step with main: loaded with a call, then replaced by each `*.changed` event
 * (events carry whole snapshots). A load that was overtaken by an event is dropped, so an older
 * answer never replaces a newer snapshot.
 */
export class Synced<T> {
  #value = $state.raw<T | null>(null);
  #loading = $state(false);
  #error = $state.raw<BridgeError | null>(null);
  /** Every snapshot that is not a load answer supersedes the loads on their way. */
  readonly #latest = new Latest();
  readonly #fetch: () => Promise<Result<T>>;
  readonly #follow: (apply: (value: T) => void) => () => void;
  readonly #changed: ((value: T) => void) | undefined;
  #firstKept: () => void = () => undefined;
  readonly #first = new Promise<void>((resolve) => (this.#firstKept = resolve));

  /** `changed` is told of every snapshot kept (a load's answer or an event), after it is kept. */
  constructor(fetch: () => Promise<Result<T>>, follow: (apply: (value: T) => void) => () => void, changed?: (value: T) => void) {
    this.#fetch = fetch;
    this.#follow = follow;
    this.#changed = changed;
  }

  /** The latest snapshot; null until the first load or event. */
  get value(): T | null {
    return this.#value;
  }

  get loaded(): boolean {
    return this.#value !== null;
  }

  /** Resolves once the first snapshot is kept (a load's answer or an event) or the first load failed. */
  get settled(): Promise<void> {
    return this.#first;
  }

  get loading(): boolean {
    return this.#loading;
  }

  /** Why the last load failed; cleared by the next snapshot. */
  get error(): BridgeError | null {
    return this.#error;
  }

  /** Follow the event, then load. Returns the function that stops following. */
  follow(): () => void {
    const stop = this.#follow((value) => this.set(value));
    void this.load();
    return stop;
  }

  async load(): Promise<Result<T>> {
    const read = this.#latest.read();
    this.#loading = true;
    try {
      const result = await this.#fetch();
      if (result.ok) {
        if (read.current) {
          this.#value = result.value;
          this.#error = null;
          this.#changed?.(result.value);
        }
      } else {
        this.#error = result.error;
      }
      return result;
    } finally {
      this.#loading = false;
      this.#firstKept();
    }
  }

  /** A fresher snapshot: an event, or what an action answered. */
  set(value: T): void {
    this.#latest.supersede();
    this.#value = value;
    this.#error = null;
    this.#changed?.(value);
    this.#firstKept();
  }
}
