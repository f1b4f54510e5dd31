import { describe, expect, test } from 'vitest';
import { err } from '../../../../common/result';
import { fakeBridge, settle } from '../../lib/testing/fake-transport';
import { localServiceState } from '../../lib/testing/fixtures';
import { LocalServiceStore } from './local-service.svelte';

describe('LocalServiceStore', () => {
  test('unknown until loaded, then follows localService.changed', async () => {
    const { transport, bridge } = fakeBridge();
    transport.handle('localService.get', localServiceState());
    const store = new LocalServiceStore(bridge);
    expect(store.status).toBeNull();
    store.follow();
    await settle();
    expect(store.status).toBe('running');
    expect(store.address).toBe('127.0.0.1:50123');
    expect(store.isUp).toBe(true);

    transport.emit('localService.changed', localServiceState({ status: 'failed', address: null, error: 'port 50123 is in use' }));
    expect(store.status).toBe('failed');
    expect(store.error).toBe('port 50123 is in use');
    expect(store.isUp).toBe(false);
  });

  test('stopService and startService invoke their channels and apply the answer', async () => {
    const { transport, bridge } = fakeBridge();
    transport
      .handle('localService.get', localServiceState())
      .handle('localService.stop', localServiceState({ status: 'stopped', address: null }))
      .handle('localService.start', localServiceState({ status: 'starting', address: null }));
    const store = new LocalServiceStore(bridge);
    await store.load();

    const stopping = store.stopService();
    expect(store.pending).toBe('stop');
    await stopping;
    expect(store.pending).toBeNull();
    expect(store.status).toBe('stopped');
    expect(store.isUp).toBe(false);

    await store.startService();
    expect(store.status).toBe('starting');
    expect(transport.calls.map((c) => c.channel)).toEqual(['localService.get', 'localService.stop', 'localService.start']);
  });

  test('a failed action is kept as actionError', async () => {
    const { transport, bridge } = fakeBridge();
    transport
      .handle('localService.get', localServiceState({ status: 'stopped', address: null }))
      .handle('localService.start', () => err('internal', 'The service binary is missing.'));
    const store = new LocalServiceStore(bridge);
    await store.load();
    await store.startService();
    expect(store.actionError?.message).toBe('The service binary is missing.');
    expect(store.status).toBe('stopped');
  });
});
