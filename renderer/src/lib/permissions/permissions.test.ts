import { describe, expect, it } from 'vitest';
import type { KeyPermissions } from '../../../../common/access';
import type { FleetTree } from '../../../../common/locations';
import { FleetStore } from '../fleet/fleet.svelte';
import { deferred, fakeBridge, settle } from '../testing/fake-transport';
import { org } from '../testing/fixtures';
import { KeyPermissionsStore } from './permissions.svelte';

const tree: FleetTree = {
  orgId: 'a',
  syncedAt: '2026-11-26T10:00:00.000Z',
  locations: [
    { id: 'reno', name: 'Reno Fulfillment Center', parentLocationId: '', ownerOrgId: 'a', sharedWithOrgIds: [] },
    { id: 'dock', name: 'Dock 4', parentLocationId: 'reno', ownerOrgId: 'a', sharedWithOrgIds: [] },
    { id: 'austin', name: 'Austin', parentLocationId: '', ownerOrgId: 'a', sharedWithOrgIds: [] },
  ],
  machines: [{ id: 'm1', name: 'amr-1', locationId: 'dock', parts: [{ id: 'p1', name: 'amr-1-main', mainPart: true, lastAccess: null, markedForRestart: false }] }],
};

/** An operator of Reno (so of Dock 4 and amr-1 under it), holding nothing in Austin nor on the organization. */
const operatorOfReno: KeyPermissions = { orgId: 'a', organization: 0, locations: { reno: 0b001, dock: 0b001 }, machines: { m1: 0b011101 }, checkedAt: '2026-11-26T10:00:00.000Z', fromCache: false };

async function setup(answer: KeyPermissions = operatorOfReno) {
  const { transport, bridge } = fakeBridge();
  let current = answer;
  transport.handleTree(() => ({ ok: true, value: tree })).handle('access.permissions', () => ({ ok: true, value: current }));
  const fleet = new FleetStore(bridge, () => [org('a', 'Acme Robotics')]);
  await fleet.loadTree('a');
  let offline: string | null = null;
  const store = new KeyPermissionsStore(bridge, fleet, () => offline);
  await store.load('a');
  return { transport, store, goOffline: (why: string | null) => (offline = why), answer: (next: KeyPermissions) => (current = next) };
}

describe('what the key may do', () => {
  it('names the role and the nearest place that would allow a write', async () => {
    const { store } = await setup();
    expect(store.blocked('write_robot', { kind: 'part', orgId: 'a', id: 'p1' })).toBe('This profile’s API key cannot do this: it needs owner on amr-1.');
    expect(store.blocked('write_location', { kind: 'location', orgId: 'a', id: 'dock' })).toBe('This profile’s API key cannot do this: it needs owner on Dock 4.');
    expect(store.blocked('write_organization', { kind: 'location', orgId: 'a', id: 'dock' })).toBe('This profile’s API key cannot do this: it needs owner on Acme Robotics.');
    expect(store.blocked('read_location', { kind: 'location', orgId: 'a', id: 'austin' })).toMatch(/needs operator on Austin/);
  });

  it('allows what the key holds, a new machine by the role on its location, and everything before a check', async () => {
    const { store } = await setup();
    expect(store.blocked('control_robot', { kind: 'machine', orgId: 'a', id: 'm1' })).toBeNull();
    expect(store.blocked('read_location', { kind: 'machine', orgId: 'a', id: 'm1' })).toBeNull();
    expect(store.denied('write_robot', { kind: 'org', orgId: 'zeta', id: 'zeta' })).toBeNull();
    const unchecked = await setup({ ...operatorOfReno, checkedAt: null });
    expect(unchecked.store.blocked('write_organization', { kind: 'org', orgId: 'a', id: 'a' })).toBeNull();
  });

  it('says offline before the key, and reads again when main says the answer changed', async () => {
    const { store, transport, goOffline, answer } = await setup();
    goOffline('The service cannot be reached.');
    expect(store.blocked('write_robot', { kind: 'machine', orgId: 'a', id: 'm1' })).toBe('The service cannot be reached.');
    goOffline(null);
    const stop = store.follow();
    answer({ ...operatorOfReno, machines: { m1: 0b111111 } });
    transport.emit('access.permissions', { orgIds: ['a'], all: false });
    await settle();
    expect(store.blocked('write_robot', { kind: 'machine', orgId: 'a', id: 'm1' })).toBeNull();
    transport.emit('access.permissions', { orgIds: ['other'], all: false });
    await settle();
    expect(transport.callsTo('access.permissions')).toHaveLength(2);
    stop();
  });

  it('reads an organization only once the first view is drawn, and each once', async () => {
    const { transport, bridge } = fakeBridge();
    transport.handleTree(() => ({ ok: true, value: tree })).handle('access.permissions', () => ({ ok: true, value: operatorOfReno }));
    const fleet = new FleetStore(bridge, () => [org('a', 'Acme Robotics')]);
    const drawn = deferred<undefined>();
    const store = new KeyPermissionsStore(bridge, fleet, () => null, drawn.promise);
    const first = store.readNew();
    await settle();
    expect(transport.callsTo('access.permissions')).toEqual([]);
    expect(store.view('a')).toBeUndefined();
    drawn.resolve(undefined);
    await first;
    await settle();
    expect(transport.callsTo('access.permissions')).toEqual([{ orgId: 'a' }]);
    expect(store.view('a')).toEqual(operatorOfReno);
    await store.readNew();
    await settle();
    expect(transport.callsTo('access.permissions')).toHaveLength(1);
  });

  it('forgets the last profile’s answer on a switch', async () => {
    const { store } = await setup();
    store.reset();
    expect(store.view('a')).toBeUndefined();
    expect(store.blocked('write_robot', { kind: 'machine', orgId: 'a', id: 'm1' })).toBeNull();
  });
});
