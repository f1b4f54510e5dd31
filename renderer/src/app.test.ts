import { describe, expect, test } from 'vitest';
import { fakeBridge, settle } from './lib/testing/fake-transport';
import { connectionState, localServiceState, org, orgsSnapshot, profilesState } from './lib/testing/fixtures';
import type { LinkState, WebSocketTransport } from './lib/bridge/ws-transport';
import { FleetApp } from './app.svelte';

/** Just enough of the WebSocket transport to drive the link from the test. */
function fakeLink(): { transport: WebSocketTransport; set: (link: LinkState) => void } {
  let link: LinkState = { status: 'open', retryAt: null, failures: 0, everOpened: true };
  const listeners = new Set<(l: LinkState) => void>();
  const transport: WebSocketTransport = {
    get link() {
      return link;
    },
    onLinkChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    reconnectNow() {},
    dispose() {},
    invoke: () => Promise.resolve(null),
    subscribe: () => () => {},
  };
  return {
    transport,
    set(next) {
      link = next;
      for (const l of listeners) l(next);
    },
  };
}

describe('FleetApp', () => {
  function setup() {
    const { transport, bridge } = fakeBridge();
    transport
      .handle('profiles.list', profilesState())
      .handle('connection.get', connectionState())
      .handle('localService.get', localServiceState())
      .handle('orgs.list', orgsSnapshot([org('o1', 'Acme')]));
    const link = fakeLink();
    const app = new FleetApp(bridge, link.transport);
    return { transport, app, link };
  }

  test('follow loads every snapshot and subscribes to every event; stopping unsubscribes', async () => {
    const { transport, app } = setup();
    const stop = app.follow();
    await settle();
    expect(app.profiles.loaded && app.connection.loaded && app.orgs.loaded && app.localService.loaded).toBe(true);
    for (const event of ['profiles.changed', 'connection.changed', 'orgs.changed', 'localService.changed', 'fleet.changed', 'machines.liveness'] as const) {
      expect(transport.listenerCount(event)).toBe(1);
    }
    stop();
    for (const event of ['profiles.changed', 'connection.changed', 'orgs.changed', 'localService.changed', 'fleet.changed', 'machines.liveness'] as const) {
      expect(transport.listenerCount(event)).toBe(0);
    }
  });

  test('when the backend link comes back after a loss, everything is loaded again', async () => {
    const { transport, app, link } = setup();
    app.follow();
    await settle();
    const before = transport.calls.length;
    link.set({ status: 'waiting', retryAt: 1, failures: 1, everOpened: true });
    expect(app.link.down).toBe(true);
    link.set({ status: 'connecting', retryAt: null, failures: 1, everOpened: true });
    expect(transport.calls.length).toBe(before);
    link.set({ status: 'open', retryAt: null, failures: 0, everOpened: true });
    await settle();
    expect(app.link.down).toBe(false);
    // Every snapshot, and the fleet tree of each organization.
    expect(transport.calls.slice(before).map((c) => c.channel).sort()).toEqual([
      'connection.get',
      'localService.get',
      'locations.tree',
      'orgs.list',
      'profiles.list',
    ]);
  });
});
