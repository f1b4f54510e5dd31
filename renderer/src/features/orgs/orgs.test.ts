import { describe, expect, test } from 'vitest';
import type { Organization } from '../../../../common/orgs';
import { err, ok, type Result } from '../../../../common/result';
import { deferred, fakeBridge, settle } from '../../lib/testing/fake-transport';
import { org, orgsSnapshot } from '../../lib/testing/fixtures';
import { OrgsStore } from './orgs.svelte';

const acme = org('o-acme', 'Acme Robotics');
const zeta = org('o-zeta', 'zeta Labs');
const beta = org('o-beta', 'Beta Farms');

describe('OrgsStore', () => {
  test('loads the cached list sorted by name and follows orgs.changed', async () => {
    const { transport, bridge } = fakeBridge();
    transport.handle('orgs.list', orgsSnapshot([zeta, acme, beta]));
    const store = new OrgsStore(bridge);
    expect(store.loaded).toBe(false);
    store.follow();
    await settle();
    expect(store.loaded).toBe(true);
    expect(store.orgs.map((o) => o.name)).toEqual(['Acme Robotics', 'Beta Farms', 'zeta Labs']);
    expect(store.syncedAt).toBe('2026-11-22T14:02:00.000Z');

    transport.emit('orgs.changed', orgsSnapshot([acme], '2026-11-22T14:30:00.000Z'));
    expect(store.orgs.map((o) => o.id)).toEqual(['o-acme']);
    expect(store.syncedAt).toBe('2026-11-22T14:30:00.000Z');
  });

  test('an empty cache that never synced is loaded, empty and unsynced', async () => {
    const { transport, bridge } = fakeBridge();
    transport.handle('orgs.list', orgsSnapshot([], null));
    const store = new OrgsStore(bridge);
    await store.load();
    expect(store.loaded).toBe(true);
    expect(store.orgs).toEqual([]);
    expect(store.syncedAt).toBeNull();
  });

  test('select shows the cached entry at once, then the fetched details', async () => {
    const { transport, bridge } = fakeBridge();
    const fresh = { ...acme, publicNamespace: 'acme' };
    const answer = deferred<Result<Organization>>();
    transport.handle('orgs.list', orgsSnapshot([acme, beta])).handle('orgs.get', () => answer.promise);
    const store = new OrgsStore(bridge);
    await store.load();

    const pending = store.select('o-acme');
    expect(store.selectedId).toBe('o-acme');
    expect(store.selected).toEqual(acme);
    expect(store.detailsLoading).toBe(true);
    answer.resolve(ok(fresh));
    await pending;
    expect(store.detailsLoading).toBe(false);
    expect(store.selected?.publicNamespace).toBe('acme');
    expect(transport.callsTo('orgs.get')).toEqual([{ orgId: 'o-acme' }]);
  });

  test('a slow answer for an earlier selection is dropped', async () => {
    const { transport, bridge } = fakeBridge();
    const slow = deferred<Result<Organization>>();
    transport
      .handle('orgs.list', orgsSnapshot([acme, beta]))
      .handle('orgs.get', ({ orgId }) => (orgId === 'o-acme' ? slow.promise : ok({ ...beta, region: 'eu-west-1' })));
    const store = new OrgsStore(bridge);
    await store.load();
    const first = store.select('o-acme');
    await store.select('o-beta');
    slow.resolve(ok({ ...acme, region: 'ap-south-1' }));
    await first;
    expect(store.selectedId).toBe('o-beta');
    expect(store.selected?.region).toBe('eu-west-1');
  });

  test('a failed orgs.get keeps the cached entry and reports why', async () => {
    const { transport, bridge } = fakeBridge();
    transport
      .handle('orgs.list', orgsSnapshot([acme]))
      .handle('orgs.get', () => err('offline', 'The service at 127.0.0.1:50123 is not answering.'));
    const store = new OrgsStore(bridge);
    await store.load();
    await store.select('o-acme');
    expect(store.selected).toEqual(acme);
    expect(store.detailsError?.message).toBe('The service at 127.0.0.1:50123 is not answering.');
  });

  test('a snapshot without the selected organization clears the selection', async () => {
    const { transport, bridge } = fakeBridge();
    transport.handle('orgs.list', orgsSnapshot([acme, beta])).handle('orgs.get', acme);
    const store = new OrgsStore(bridge);
    store.follow();
    await settle();
    await store.select('o-acme');
    transport.emit('orgs.changed', orgsSnapshot([beta]));
    expect(store.selectedId).toBeNull();
    expect(store.selected).toBeNull();
  });

  test('a newer snapshot replaces fetched details of the selection', async () => {
    const { transport, bridge } = fakeBridge();
    transport.handle('orgs.list', orgsSnapshot([acme])).handle('orgs.get', acme);
    const store = new OrgsStore(bridge);
    store.follow();
    await settle();
    await store.select('o-acme');
    transport.emit('orgs.changed', orgsSnapshot([{ ...acme, name: 'Acme Robotics GmbH' }]));
    expect(store.selected?.name).toBe('Acme Robotics GmbH');
  });

  test('create adds the organization to the list and selects it', async () => {
    const { transport, bridge } = fakeBridge();
    const created = org('o-new', 'Cobalt Mining');
    transport.handle('orgs.list', orgsSnapshot([acme, zeta])).handle('orgs.create', created);
    const store = new OrgsStore(bridge);
    await store.load();
    const result = await store.create('Cobalt Mining');
    expect(result.ok).toBe(true);
    expect(transport.callsTo('orgs.create')).toEqual([{ name: 'Cobalt Mining' }]);
    expect(store.orgs.map((o) => o.name)).toEqual(['Acme Robotics', 'Cobalt Mining', 'zeta Labs']);
    expect(store.selectedId).toBe('o-new');
    expect(store.selected).toEqual(created);
    expect(transport.callsTo('orgs.get')).toEqual([]);
  });

  test('a failed create returns the error and leaves list and selection alone', async () => {
    const { transport, bridge } = fakeBridge();
    transport
      .handle('orgs.list', orgsSnapshot([acme]))
      .handle('orgs.create', () => err('conflict', 'An organization named Acme Robotics already exists.'));
    const store = new OrgsStore(bridge);
    await store.load();
    const result = await store.create('Acme Robotics');
    expect(result).toEqual(err('conflict', 'An organization named Acme Robotics already exists.'));
    expect(store.orgs).toHaveLength(1);
    expect(store.selectedId).toBeNull();
  });

  test('refresh applies the answer or keeps the error', async () => {
    const { transport, bridge } = fakeBridge();
    let fail = false;
    transport
      .handle('orgs.list', orgsSnapshot([]))
      .handle('orgs.refresh', () => (fail ? err('offline', 'No answer.') : ok(orgsSnapshot([acme]))));
    const store = new OrgsStore(bridge);
    await store.load();
    await store.refresh();
    expect(store.orgs).toEqual([acme]);
    fail = true;
    await store.refresh();
    expect(store.refreshError?.message).toBe('No answer.');
    expect(store.orgs).toEqual([acme]);
  });
});
