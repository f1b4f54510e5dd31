/**
 * The keychain's deadlines, against a store that never answers (what a Secret Service waiting on an
 * unlock prompt looks like from here). The real Secret Service is exercised in test/main/keychain.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { KeychainTimeoutError, MemoryKeychain, OsKeychain, openKeychain, withTimeout, type KeychainBackend } from './keychain';

/** A store whose every call hangs until released; it records the signals it was given. */
function hangingStore(): KeychainBackend & { signals: AbortSignal[]; answer(): void } {
  const signals: AbortSignal[] = [];
  const waiting: (() => void)[] = [];
  const hang = <T>(signal: AbortSignal, value: T) =>
    new Promise<T>((resolve) => {
      signals.push(signal);
      waiting.push(() => resolve(value));
    });
  return {
    signals,
    answer: () => {
      for (const release of waiting.splice(0)) release();
    },
    get: (_account, signal) => hang(signal, null),
    set: (_account, _secret, signal) => hang(signal, undefined),
    delete: (_account, signal) => hang(signal, false),
  };
}

/** A store that answers at once, from memory. */
function answeringStore(): KeychainBackend {
  const secrets = new Map<string, string>();
  return {
    get: async (account) => secrets.get(account) ?? null,
    set: async (account, secret) => void secrets.set(account, secret),
    delete: async (account) => secrets.delete(account),
  };
}

describe('withTimeout', () => {
  it('rejects a call that never settles, saying how long it waited, and aborts its signal', async () => {
    let given: AbortSignal | undefined;
    const started = Date.now();
    const error = await withTimeout(50, (signal) => {
      given = signal;
      return new Promise<never>(() => {});
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KeychainTimeoutError);
    expect((error as Error).message).toBe('The keychain did not answer in 0.05 s (it may be waiting to be unlocked).');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(given?.aborted).toBe(true);
  });

  it('passes an answer in time through and leaves the signal alone', async () => {
    let given: AbortSignal | undefined;
    await expect(
      withTimeout(1_000, async (signal) => {
        given = signal;
        return 'value';
      }),
    ).resolves.toBe('value');
    expect(given?.aborted).toBe(false);
  });

  it('passes a failure in time through as it is', async () => {
    await expect(withTimeout(1_000, () => Promise.reject(new Error('denied')))).rejects.toThrow('denied');
  });
});

describe('OsKeychain with a store that never answers', () => {
  it('fails each call at its deadline and cancels it', async () => {
    const store = hangingStore();
    const keychain = new OsKeychain({ backend: store, callTimeoutMs: 50 });
    await expect(keychain.get('profile')).rejects.toThrow('The keychain did not answer in 0.05 s');
    expect(store.signals).toHaveLength(1);
    expect(store.signals[0]?.aborted).toBe(true);
  });

  it('fails new calls at once while an earlier one is still stuck, and recovers when the store answers', async () => {
    const store = hangingStore();
    const keychain = new OsKeychain({ backend: store, callTimeoutMs: 50 });
    await expect(keychain.set('profile', 'secret')).rejects.toBeInstanceOf(KeychainTimeoutError);
    // Not another 50 ms wait and not another call into the store: the store is known not to answer.
    await expect(keychain.get('profile')).rejects.toBeInstanceOf(KeychainTimeoutError);
    expect(store.signals).toHaveLength(1);

    store.answer(); // the user unlocked it, say
    await new Promise((resolve) => setTimeout(resolve, 0));
    const pending = keychain.delete('profile');
    store.answer();
    await expect(pending).resolves.toBe(false);
  });

  it('probe: not available, with the reason, within its own deadline', async () => {
    const started = Date.now();
    const status = await OsKeychain.probe({ backend: hangingStore(), probeTimeoutMs: 50 });
    expect(status).toEqual({ available: false, reason: 'the keychain did not answer in 0.05 s (it may be waiting to be unlocked)' });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('openKeychain falls back to the session-only store', async () => {
    const { store, status } = await openKeychain({ backend: hangingStore(), probeTimeoutMs: 50 });
    expect(status.available).toBe(false);
    expect(status.reason).toContain('did not answer in 0.05 s');
    expect(store).toBeInstanceOf(MemoryKeychain);
  });
});

describe('OsKeychain with a store that answers', () => {
  it('probes available and round-trips a key', async () => {
    const backend = answeringStore();
    const { store, status } = await openKeychain({ backend });
    expect(status).toEqual({ available: true, reason: null });
    expect(store).toBeInstanceOf(OsKeychain);
    await store.set('profile', 'secret');
    expect(await store.get('profile')).toBe('secret');
    expect(await store.delete('profile')).toBe(true);
  });
});
