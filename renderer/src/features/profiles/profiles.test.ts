import { describe, expect, test } from 'vitest';
import { err, ok } from '../../../../common/result';
import type { ProfilesState } from '../../../../common/profiles';
import { deferred, fakeBridge, settle } from '../../lib/testing/fake-transport';
import { localProfile, profilesState, remoteProfile } from '../../lib/testing/fixtures';
import { ProfilesStore } from './profiles.svelte';

describe('ProfilesStore', () => {
  test('loads the list, then follows profiles.changed', async () => {
    const { transport, bridge } = fakeBridge();
    transport.handle('profiles.list', profilesState());
    const store = new ProfilesStore(bridge);
    expect(store.loaded).toBe(false);
    expect(store.active).toBeNull();

    const stop = store.follow();
    await settle();
    expect(store.loaded).toBe(true);
    expect(store.profiles.map((p) => p.name)).toEqual(['Local', 'Production']);
    expect(store.active?.id).toBe('local');

    transport.emit('profiles.changed', profilesState({ activeId: 'p-prod' }));
    expect(store.activeId).toBe('p-prod');
    expect(store.active?.name).toBe('Production');

    stop();
    expect(transport.listenerCount('profiles.changed')).toBe(0);
    transport.emit('profiles.changed', profilesState({ activeId: 'local' }));
    expect(store.activeId).toBe('p-prod');
  });

  test('a load answer overtaken by an event does not replace the newer snapshot', async () => {
    const { transport, bridge } = fakeBridge();
    const answer = deferred<ReturnType<typeof ok<ProfilesState>>>();
    transport.handle('profiles.list', () => answer.promise);
    const store = new ProfilesStore(bridge);
    store.follow();
    transport.emit('profiles.changed', profilesState({ activeId: 'p-prod' }));
    answer.resolve(ok(profilesState({ activeId: 'local' })));
    await settle();
    expect(store.activeId).toBe('p-prod');
  });

  test('a failed load is kept as the error, not swallowed', async () => {
    const { transport, bridge } = fakeBridge();
    transport.handle('profiles.list', () => err('internal', 'The profile store is unreadable.'));
    const store = new ProfilesStore(bridge);
    await store.load();
    expect(store.loaded).toBe(false);
    expect(store.error).toEqual({ kind: 'internal', message: 'The profile store is unreadable.' });
  });

  test('keychain state and key storage come from the snapshot', async () => {
    const { transport, bridge } = fakeBridge();
    transport.handle(
      'profiles.list',
      profilesState({
        activeId: 'p-prod',
        profiles: [localProfile, { ...remoteProfile, keyStorage: 'session' }],
        keychain: { available: false, reason: 'Secret Service is not running' },
      }),
    );
    const store = new ProfilesStore(bridge);
    expect(store.keychain.available).toBe(true);
    await store.load();
    expect(store.keychain).toEqual({ available: false, reason: 'Secret Service is not running' });
    expect(store.active?.keyStorage).toBe('session');
  });

  test('add passes the request through and switches to the new profile', async () => {
    const { transport, bridge } = fakeBridge();
    const staging = { ...remoteProfile, id: 'p-staging', name: 'Staging', address: 'staging:8443' };
    transport
      .handle('profiles.list', profilesState())
      .handle('profiles.add', profilesState({ profiles: [localProfile, remoteProfile, staging] }))
      .handle('profiles.switch', ({ profileId }) =>
        ok(profilesState({ profiles: [localProfile, remoteProfile, staging], activeId: profileId })),
      );
    const store = new ProfilesStore(bridge);
    await store.load();
    const input = { name: 'Staging', address: 'staging:8443', tls: true, apiKeyId: 'k1', apiKey: 'secret' };
    const result = await store.add(input);
    expect(result.ok).toBe(true);
    expect(transport.callsTo('profiles.add')).toEqual([input]);
    expect(transport.callsTo('profiles.switch')).toEqual([{ profileId: 'p-staging' }]);
    expect(store.activeId).toBe('p-staging');
  });

  test('a rejected add returns the bridge error and changes nothing', async () => {
    const { transport, bridge } = fakeBridge();
    transport
      .handle('profiles.list', profilesState())
      .handle('profiles.add', () => err('unauthenticated', 'The service refused API key k1.'));
    const store = new ProfilesStore(bridge);
    await store.load();
    const result = await store.add({ name: 'X', address: 'x:1', tls: false, apiKeyId: 'k1', apiKey: 'nope' });
    expect(result).toEqual({ ok: false, error: { kind: 'unauthenticated', message: 'The service refused API key k1.' } });
    expect(store.profiles).toHaveLength(2);
    expect(transport.callsTo('profiles.switch')).toEqual([]);
  });

  test('switchTo reports progress and applies the answer', async () => {
    const { transport, bridge } = fakeBridge();
    const answer = deferred<ReturnType<typeof ok<ProfilesState>>>();
    transport.handle('profiles.list', profilesState()).handle('profiles.switch', () => answer.promise);
    const store = new ProfilesStore(bridge);
    await store.load();
    const pending = store.switchTo('p-prod');
    expect(store.switchingTo).toBe('p-prod');
    answer.resolve(ok(profilesState({ activeId: 'p-prod' })));
    await pending;
    expect(store.switchingTo).toBeNull();
    expect(store.activeId).toBe('p-prod');
  });

  describe('setKey', () => {
    const lostKey = { ...remoteProfile, keyStorage: 'missing' as const };

    test('passes the key through, shows progress, and applies the answer', async () => {
      const { transport, bridge } = fakeBridge();
      const answer = deferred<ReturnType<typeof ok<ProfilesState>>>();
      transport
        .handle('profiles.list', profilesState({ activeId: 'p-prod', profiles: [localProfile, lostKey] }))
        .handle('profiles.setKey', () => answer.promise);
      const store = new ProfilesStore(bridge);
      await store.load();
      expect(store.active?.keyStorage).toBe('missing');

      const pending = store.setKey('p-prod', 'the-key');
      expect(store.savingKeyFor).toBe('p-prod');
      expect(transport.callsTo('profiles.setKey')).toEqual([{ profileId: 'p-prod', apiKey: 'the-key' }]);
      answer.resolve(ok(profilesState({ activeId: 'p-prod' })));
      const result = await pending;

      expect(result.ok).toBe(true);
      expect(store.savingKeyFor).toBeNull();
      expect(store.active?.keyStorage).toBe('keychain');
      // Main reconnects the profile itself: no switch is asked for.
      expect(transport.callsTo('profiles.switch')).toEqual([]);
    });

    test.each([
      ['unauthenticated', 'The service at fleet.example.com:443 rejected the API key.'],
      ['offline', 'The service at fleet.example.com:443 did not answer.'],
      ['invalid', 'The local profile gets its key from the embedded service; it needs none entered.'],
    ] as const)('a %s failure is returned as the bridge error and changes nothing', async (kind, message) => {
      const { transport, bridge } = fakeBridge();
      transport
        .handle('profiles.list', profilesState({ activeId: 'p-prod', profiles: [localProfile, lostKey] }))
        .handle('profiles.setKey', () => err(kind, message));
      const store = new ProfilesStore(bridge);
      await store.load();
      const result = await store.setKey('p-prod', 'nope');
      expect(result).toEqual({ ok: false, error: { kind, message } });
      expect(store.savingKeyFor).toBeNull();
      expect(store.active?.keyStorage).toBe('missing');
      expect(store.error).toBeNull();
    });

    test('a call that never reaches main comes back as an error, not a throw', async () => {
      const { transport, bridge } = fakeBridge();
      transport.handle('profiles.list', profilesState()).handle('profiles.setKey', () => {
        throw new Error('socket closed');
      });
      const store = new ProfilesStore(bridge);
      await store.load();
      const result = await store.setKey('p-prod', 'k');
      expect(result.ok).toBe(false);
      expect(!result.ok && result.error.kind).toBe('internal');
      expect(!result.ok && result.error.message).toContain('socket closed');
      expect(store.savingKeyFor).toBeNull();
    });
  });

  test('remove shows progress and applies the fallback main answers with', async () => {
    const { transport, bridge } = fakeBridge();
    const answer = deferred<ReturnType<typeof ok<ProfilesState>>>();
    transport.handle('profiles.list', profilesState({ activeId: 'p-prod' })).handle('profiles.remove', () => answer.promise);
    const store = new ProfilesStore(bridge);
    await store.load();
    const pending = store.remove('p-prod');
    expect(store.removing).toBe('p-prod');
    answer.resolve(ok(profilesState({ profiles: [localProfile], activeId: 'local' })));
    const result = await pending;
    expect(result.ok).toBe(true);
    expect(store.removing).toBeNull();
    expect(store.profiles.map((p) => p.name)).toEqual(['Local']);
    expect(store.active?.id).toBe('local');
  });

  test('a refused remove returns the bridge error and keeps the profile', async () => {
    const { transport, bridge } = fakeBridge();
    transport
      .handle('profiles.list', profilesState())
      .handle('profiles.remove', () => err('invalid', 'The local profile belongs to the embedded service and cannot be removed.'));
    const store = new ProfilesStore(bridge);
    await store.load();
    const result = await store.remove('local');
    expect(result).toEqual({ ok: false, error: { kind: 'invalid', message: 'The local profile belongs to the embedded service and cannot be removed.' } });
    expect(store.removing).toBeNull();
    expect(store.profiles).toHaveLength(2);
  });
});
