import { describe, expect, test } from 'vitest';
import { err, ok } from '../../../../common/result';
import { fakeBridge, settle } from '../../lib/testing/fake-transport';
import { connectionState } from '../../lib/testing/fixtures';
import { ConnectionStore } from './connection.svelte';

describe('ConnectionStore', () => {
  test('is connecting until main says otherwise', () => {
    const { bridge } = fakeBridge();
    const store = new ConnectionStore(bridge);
    expect(store.status).toBe('connecting');
    expect(store.lastSyncedAt).toBeNull();
  });

  test('loads, then follows connection.changed to offline and back', async () => {
    const { transport, bridge } = fakeBridge();
    transport.handle('connection.get', connectionState());
    const store = new ConnectionStore(bridge);
    store.follow();
    await settle();
    expect(store.status).toBe('online');
    expect(store.lastSyncedAt).toBe('2026-11-22T14:02:00.000Z');

    transport.emit(
      'connection.changed',
      connectionState({
        status: 'offline',
        offlineSince: '2026-11-22T14:03:00.000Z',
        nextRetryAt: '2026-11-22T14:04:00.000Z',
        error: { kind: 'offline', message: 'connect ECONNREFUSED 127.0.0.1:50123' },
      }),
    );
    expect(store.status).toBe('offline');
    expect(store.error?.message).toBe('connect ECONNREFUSED 127.0.0.1:50123');
    expect(store.nextRetryAt).toBe('2026-11-22T14:04:00.000Z');

    transport.emit('connection.changed', connectionState());
    expect(store.status).toBe('online');
    expect(store.error).toBeNull();
    expect(store.offlineSince).toBeNull();
  });

  test('retry invokes connection.retry and applies its answer', async () => {
    const { transport, bridge } = fakeBridge();
    transport
      .handle('connection.get', connectionState({ status: 'offline' }))
      .handle('connection.retry', connectionState({ status: 'online', lastSyncedAt: '2026-11-22T14:10:00.000Z' }));
    const store = new ConnectionStore(bridge);
    await store.load();
    const pending = store.retry();
    expect(store.retrying).toBe(true);
    await pending;
    expect(store.retrying).toBe(false);
    expect(transport.callsTo('connection.retry')).toEqual([{}]);
    expect(store.status).toBe('online');
    expect(store.lastSyncedAt).toBe('2026-11-22T14:10:00.000Z');
  });

  test('a failed retry call is kept as retryError', async () => {
    const { transport, bridge } = fakeBridge();
    transport.handle('connection.get', connectionState({ status: 'offline' })).handle('connection.retry', () =>
      err('offline', 'Still no answer from 127.0.0.1:50123.'),
    );
    const store = new ConnectionStore(bridge);
    store.follow();
    await settle();
    const result = await store.retry();
    expect(result.ok).toBe(false);
    expect(store.retryError?.message).toBe('Still no answer from 127.0.0.1:50123.');
    expect(store.status).toBe('offline');
    transport.emit('connection.changed', connectionState());
    expect(store.retryError).toBeNull();
  });

  test('a failed connection.get is the load error, not the service error', async () => {
    const { transport, bridge } = fakeBridge();
    transport.handle('connection.get', () => err('internal', 'boom'));
    const store = new ConnectionStore(bridge);
    await store.load();
    expect(store.loadError?.message).toBe('boom');
    expect(store.error).toBeNull();
  });

  test('unknown channels fail through the real bridge, never throw', async () => {
    const { bridge } = fakeBridge();
    const result = await bridge.invoke('connection.get', {});
    expect(result).toEqual(err('internal', 'The fake has no handler for connection.get.'));
    expect(ok(1).ok).toBe(true);
  });
});
