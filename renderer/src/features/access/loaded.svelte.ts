import type { BridgeError, Result } from '../../../../common/result';
import { Latest } from '../../lib/state/latest';

/**
 * One list a page shows, read over the bridge: the newest read wins (`Latest`), a write's answer
 * replaces it, and a failed read keeps what was shown with the failure to say.
 */
export class Loaded<T> {
  readonly #read: () => Promise<Result<T>>;
  readonly #latest = new Latest();
  value = $state.raw<T | null>(null);
  error = $state.raw<BridgeError | null>(null);
  loading = $state(false);

  constructor(read: () => Promise<Result<T>>) {
    this.#read = read;
  }

  async load(): Promise<void> {
    const ticket = this.#latest.read();
    this.loading = true;
    const result = await this.#read();
    if (ticket.newest) this.loading = false;
    if (!ticket.current) return;
    if (result.ok) {
      this.value = result.value;
      this.error = null;
    } else this.error = result.error;
  }

  /** A write answered the list as it is now: it wins over reads still under way. */
  set(value: T): void {
    this.#latest.supersede();
    this.value = value;
    this.error = null;
  }
}
