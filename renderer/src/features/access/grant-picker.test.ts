import { describe, expect, it } from 'vitest';
import type { FleetTree } from '../../../../common/locations';
import { indexTree } from '../../lib/fleet/fleet-index';
import { GrantPicker } from './grant-picker.svelte';

const tree: FleetTree = {
  orgId: 'o1',
  syncedAt: null,
  locations: [
    { id: 'reno', name: 'Reno Fulfillment Center', parentLocationId: '', ownerOrgId: 'o1', sharedWithOrgIds: [] },
    { id: 'dock', name: 'Dock 4', parentLocationId: 'reno', ownerOrgId: 'o1', sharedWithOrgIds: [] },
    { id: 'austin', name: 'Austin', parentLocationId: '', ownerOrgId: 'o1', sharedWithOrgIds: [] },
  ],
  machines: [{ id: 'm1', name: 'amr-1', locationId: 'dock', parts: [] }],
};
const index = indexTree(tree);

describe('the roles tree picker', () => {
  it('walks the tree with the keys and steps a role with Space', () => {
    const picker = new GrantPicker('o1', 'Acme', () => index);
    expect(picker.rows.map((r) => r.node.label)).toEqual(['Acme', 'Austin', 'Reno Fulfillment Center']);
    picker.key('ArrowDown');
    picker.key('ArrowDown');
    expect(picker.focused).toBe('location:reno');
    picker.key('ArrowRight');
    picker.key('ArrowRight');
    picker.key('ArrowRight');
    picker.key('ArrowRight');
    expect(picker.focused).toBe('machine:m1');
    picker.key(' ');
    picker.key(' ');
    expect(picker.grants).toEqual([{ resourceType: 'machine', resourceId: 'm1', role: 'owner' }]);
    picker.key(' ');
    expect(picker.grants).toEqual([]);
  });

  it('jumps by typed name, and keeps the picked order of the tree', () => {
    const picker = new GrantPicker('o1', 'Acme', () => index);
    picker.key('a', 1000);
    picker.key('u', 1100);
    expect(picker.focused).toBe('location:austin');
    picker.key('Enter');
    picker.set('organization:o1', 'operator');
    expect(picker.grants).toEqual([
      { resourceType: 'organization', resourceId: 'o1', role: 'operator' },
      { resourceType: 'location', resourceId: 'austin', role: 'operator' },
    ]);
  });

  it('opens what an invite already grants, and keeps roles on what this key cannot see', () => {
    const picker = new GrantPicker('o1', 'Acme', () => index, [
      { resourceType: 'machine', resourceId: 'm1', role: 'operator' },
      { resourceType: 'location', resourceId: 'hidden', role: 'owner' },
    ]);
    expect(picker.rows.map((r) => r.node.label)).toContain('amr-1');
    expect(picker.roleOf('machine:m1')).toBe('operator');
    expect(picker.grants).toEqual([
      { resourceType: 'machine', resourceId: 'm1', role: 'operator' },
      { resourceType: 'location', resourceId: 'hidden', role: 'owner' },
    ]);
  });
});
