/**
 * Secrets of keys made or rotated moments ago, held in memory only, so that "use this key in a new
 * profile" needs no secret from the renderer: the secret crossed the bridge once, in the answer
 * that made it, and does not cross back. Each is forgotten when a profile takes it, when its time
 * is up, or when the active profile changes (it was made on that profile's service). Never written
 * anywhere, never logged.
 */
import type { ProfileScoped } from '../connection/profile-scoped';

/** How long a new key's secret stays usable for a new profile. */
export const REMEMBER_MS = 10 * 60_000;

interface Issued {
  readonly secret: string;
  readonly until: number;
}

export class IssuedKeys implements ProfileScoped {
  readonly #keys = new Map<string, Issued>();
  readonly #rememberMs: number;
  readonly #now: () => number;

  constructor(options: { rememberMs?: number; now?: () => number } = {}) {
    this.#rememberMs = options.rememberMs ?? REMEMBER_MS;
    this.#now = options.now ?? Date.now;
  }

  /** Keep a key's secret for a while; answers until when. */
  remember(keyId: string, secret: string): Date {
    this.#sweep();
    const until = this.#now() + this.#rememberMs;
    this.#keys.set(keyId, { secret, until });
    return new Date(until);
  }

  /** The key's secret while it is remembered, else null. */
  peek(keyId: string): string | null {
    this.#sweep();
    return this.#keys.get(keyId)?.secret ?? null;
  }

  forget(keyId: string): void {
    this.#keys.delete(keyId);
  }

  switchTo(): void {
    this.#keys.clear();
  }

  #sweep(): void {
    const now = this.#now();
    for (const [id, issued] of this.#keys) if (issued.until <= now) this.#keys.delete(id);
  }
}
