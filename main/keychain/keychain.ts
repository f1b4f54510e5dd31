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

function entry(account: string): AsyncEntry {
  // Pin the Secret Service on Linux: the automatic choice may fall back to the kernel keyring, which
  // forgets keys at logout and, where it is denied, fails on every call instead of once here.
  return new AsyncEntry(KEYCHAIN_SERVICE, account, { linux: { store: 'secret-service' } });
}

function describe(e: unknown): string {
  const text = e instanceof Error ? e.message : String(e);
  if (/DBUS_SESSION_BUS_ADDRESS|session bus/i.test(text)) return 'no desktop session bus (D-Bus) to reach a keychain';
  if (/no result found|locked/i.test(text)) return 'the keychain is locked or has no default collection';
  return text;
}

export class OsKeychain implements SecretStore {
  async get(account: string): Promise<string | null> {
    return entry(account).getPassword();
  }
  async set(account: string, secret: string): Promise<void> {
    await entry(account).setPassword(secret);
  }
  async delete(account: string): Promise<boolean> {
    return entry(account).deleteCredential();
  }

  /**
   * Writes, reads back and deletes a probe secret: a keychain that exists but is locked or denied
   * would otherwise pass a cheaper check and fail on the first real key.
   */
  static async probe(): Promise<KeychainStatus> {
    const account = `probe-${process.pid}-${Date.now()}`;
    try {
      const probe = entry(account);
      await probe.setPassword('probe');
      const read = await probe.getPassword();
      await probe.deleteCredential();
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
export async function openKeychain(): Promise<{ store: SecretStore; status: KeychainStatus }> {
  const status = await OsKeychain.probe();
  return { store: status.available ? new OsKeychain() : new MemoryKeychain(), status };
}
