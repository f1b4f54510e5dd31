import { describe, expect, it } from 'vitest';
import type { Holder } from '../../../../common/access';
import { ok } from '../../../../common/result';
import { fakeBridge, settle } from '../../lib/testing/fake-transport';
import { HoldersView } from './holders.svelte';

const holder: Holder = { identityType: 'user', identityId: 'u2', name: 'Bo', email: 'bo@example.com', role: 'operator', on: { type: 'location', id: 'reno', name: 'Reno' }, direct: true, thisProfile: false };

describe('a node’s Roles page', () => {
  it('lists holders, offers members and keys, and changes a role in one call', async () => {
    const { transport, bridge } = fakeBridge();
    transport
      .handle('access.holders', () => ok({ orgId: 'o1', resource: { type: 'location', id: 'reno', name: 'Reno' }, holders: [holder], fromCache: false, syncedAt: null }))
      .handle('access.people', () => ok({ orgId: 'o1', members: [{ userId: 'u2', name: 'Bo', emails: ['bo@example.com'], dateAdded: null, lastLogin: null, grants: [], lastOwner: false }], invites: [], fromCache: false, syncedAt: null }))
      .handle('access.keys', () => ok({ orgId: 'o1', keys: [{ id: 'k1', name: 'ops', createdOn: null, lastUsed: null, grants: [], thisProfile: true }], fromCache: false, syncedAt: null }))
      .handle('access.changeRole', () => ok({}))
      .handle('access.addRole', () => ok({}));
    const view = new HoldersView(bridge, 'o1', 'location', 'reno');
    await view.load();
    expect(view.holders.value?.holders).toEqual([holder]);
    await view.loadCandidates();
    expect(view.candidates).toEqual([
      { type: 'user', id: 'u2', label: 'Bo · bo@example.com' },
      { type: 'key', id: 'k1', label: 'API key ops' },
    ]);
    await view.change('u2', 'operator', 'owner');
    expect(transport.callsTo('access.changeRole')).toEqual([{ orgId: 'o1', identityId: 'u2', from: { resourceType: 'location', resourceId: 'reno', role: 'operator' }, to: { resourceType: 'location', resourceId: 'reno', role: 'owner' } }]);
    await view.add('k1', 'owner');
    expect(transport.callsTo('access.addRole')).toEqual([{ orgId: 'o1', identityId: 'k1', grant: { resourceType: 'location', resourceId: 'reno', role: 'owner' } }]);
    await settle();
    expect(transport.callsTo('access.holders')).toHaveLength(3);
  });
});
