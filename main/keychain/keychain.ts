/**
 * API keys live in the OS keychain (Secret Service on Linux, Keychain on macOS, Credential Manager on
 * Windows) and nowhere else. When no keychain answers, keys are kept in memory for this run only and
 * `status()` says why, so the UI can tell the user their key will not survive a restart.
 */
import { AsyncEntry } from '@napi-rs/keyring';

/** The keychain "service" every Fleet Desk secret is filed under; the account is the profile id. */
export const KEYCHAIN_SERVICE = 'Fleet Desk';

export interface KeychainStatus {
  readonly available: boolean;
  /** Why the keychain is not available, for people; null when it is. */
  readonly reason: string | null;
}

/** Where secrets go. The real one is `OsKeychain`; `MemoryKeychain` is the session-only fallback. */
export interface SecretStore {
  get(account: string): Promise<string | null>;
  set(account: string, secret: string): Promise<void>;
  delete(account: string): Promise<boolean>;
}

/** How long one keychain call may take. An unlock prompt nobody answers must not hang the app. */
export const CALL_TIMEOUT_MS = 5_000;
/** How long the start-up probe may take: Backend.open waits for it, so the window waits too. */
export const PROBE_TIMEOUT_MS = 3_000;

/** A keychain call that got no answer in time (a Secret Service waiting on an unlock prompt, say). */
export class KeychainTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`The keychain did not answer in ${timeoutMs / 1000} s (it may be waiting to be unlocked).`);
    this.name = 'KeychainTimeoutError';
  }
}

/**
 * Runs `call` with a deadline: after `timeoutMs` its signal is aborted (so a call still queued is
 * cancelled) and the returned promise rejects with KeychainTimeoutError, whether or not the call
 * ever settles. A call already running in the native store cannot be interrupted; see OsKeychain.
 */
export async function withTimeout<T>(timeoutMs: number, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new KeychainTimeoutError(timeoutMs);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  try {
    // race() handles the call's late rejection (an AbortError, say): it never goes unhandled.
    return await Promise.race([call(controller.signal), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** The OS keychain's three operations, each cancellable: the seam where tests put a store that never answers. */
export interface KeychainBackend {
  get(account: string, signal: AbortSignal): Promise<string | null>;
  set(account: string, secret: string, signal: AbortSignal): Promise<void>;
  delete(account: string, signal: AbortSignal): Promise<boolean>;
}

function entry(account: string): AsyncEntry {
  // Pin the Secret Service on Linux: the automatic choice may fall back to the kernel keyring, which
  // forgets keys at logout and, where it is denied, fails on every call instead of once here.
  return new AsyncEntry(KEYCHAIN_SERVICE, account, { linux: { store: 'secret-service' } });
}

/** The real one: @napi-rs/keyring, which accepts an AbortSignal on every call. */
export const osKeychainBackend: KeychainBackend = {
  get: (account, signal) => entry(account).getPassword(signal),
  set: (account, secret, signal) => entry(account).setPassword(secret, signal),
  delete: (account, signal) => entry(account).deleteCredential(signal),
};

function describe(e: unknown): string {
  if (e instanceof KeychainTimeoutError) return `the keychain did not answer in ${e.timeoutMs / 1000} s (it may be waiting to be unlocked)`;
  const text = e instanceof Error ? e.message : String(e);
  if (/DBUS_SESSION_BUS_ADDRESS|session bus/i.test(text)) return 'no desktop session bus (D-Bus) to reach a keychain';
  if (/no result found|locked/i.test(text)) return 'the keychain is locked or has no default collection';
  return text;
}

export interface KeychainOptions {
  readonly backend?: KeychainBackend;
  readonly callTimeoutMs?: number;
  readonly probeTimeoutMs?: number;
}

export class OsKeychain implements SecretStore {
  readonly #backend: KeychainBackend;
  readonly #timeoutMs: number;
  /**
   * Calls that timed out and have not settled yet. Each holds a thread of Node's small worker pool
   * (which file and DNS work share) for as long as the store does not answer, so while one is
   * stuck, new calls fail at once instead of piling up behind it.
   */
  #stuck = 0;

  constructor(options: KeychainOptions = {}) {
    this.#backend = options.backend ?? osKeychainBackend;
    this.#timeoutMs = options.callTimeoutMs ?? CALL_TIMEOUT_MS;
  }

  get(account: string): Promise<string | null> {
    return this.#call((signal) => this.#backend.get(account, signal));
  }
  async set(account: string, secret: string): Promise<void> {
    await this.#call((signal) => this.#backend.set(account, secret, signal));
  }
  delete(account: string): Promise<boolean> {
    return this.#call((signal) => this.#backend.delete(account, signal));
  }

  async #call<T>(call: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.#stuck > 0) throw new KeychainTimeoutError(this.#timeoutMs);
    let running: Promise<T> | undefined;
    try {
      return await withTimeout(this.#timeoutMs, (signal) => (running = call(signal)));
    } catch (e) {
      if (e instanceof KeychainTimeoutError && running) {
        this.#stuck++;
        const done = () => {
          this.#stuck--;
        };
        void running.then(done, done);
      }
      throw e;
    }
  }

  /**
   * Writes, reads back and deletes a probe secret: a keychain that exists but is locked or denied
   * would otherwise pass a cheaper check and fail on the first real key. All three within
   * `probeTimeoutMs`; a keychain that does not answer in time counts as not available.
   */
  static async probe(options: KeychainOptions = {}): Promise<KeychainStatus> {
    const backend = options.backend ?? osKeychainBackend;
    const account = `probe-${process.pid}-${Date.now()}`;
    try {
      const read = await withTimeout(options.probeTimeoutMs ?? PROBE_TIMEOUT_MS, async (signal) => {
        await backend.set(account, 'probe', signal);
        const value = await backend.get(account, signal);
        await backend.delete(account, signal);
        return value;
      });
      if (read !== 'probe') return { available: false, reason: 'the keychain did not return what was stored in it' };
      return { available: true, reason: null };
    } catch (e) {
      return { available: false, reason: describe(e) };
    }
  }
}

/** Session-only fallback: secrets die with the process, by design. */
export class MemoryKeychain implements SecretStore {
  readonly #secrets = new Map<string, string>();
  async get(account: string): Promise<string | null> {
    return this.#secrets.get(account) ?? null;
  }
  async set(account: string, secret: string): Promise<void> {
    this.#secrets.set(account, secret);
  }
  async delete(account: string): Promise<boolean> {
    return this.#secrets.delete(account);
  }
}

/** The keychain to use on this machine, and whether it is the real one. */
export async function openKeychain(options: KeychainOptions = {}): Promise<{ store: SecretStore; status: KeychainStatus }> {
  const status = await OsKeychain.probe(options);
  return { store: status.available ? new OsKeychain(options) : new MemoryKeychain(), status };
}
