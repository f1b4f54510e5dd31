import { describe, expect, it } from 'vitest';
import { accessRequests, holds, whyNot, type KeyPermissions, type ResourceRef } from './access';

const org: ResourceRef = { type: 'organization', id: 'o', name: 'Acme' };
const reno: ResourceRef = { type: 'location', id: 'reno', name: 'Reno Fulfillment Center' };
const dock: ResourceRef = { type: 'location', id: 'dock', name: 'Dock' };
const picker: ResourceRef = { type: 'machine', id: 'm1', name: 'picker' };
const fresh: ResourceRef = { type: 'machine', id: 'new', name: 'made since the check' };

// Operator on Reno (read_location, and read_robot/config/logs/control on its machine); nothing on the organization beyond reading it.
const view: KeyPermissions = {
  orgId: 'o',
  organization: 0b0000,
  locations: { reno: 0b001, dock: 0b011 },
  machines: { m1: 0b011101 },
  checkedAt: '2026-01-01T00:00:00.000Z',
  fromCache: false,
};

describe('what the key may do', () => {
  it('answers each permission from the bits of the resource checked', () => {
    expect(holds(view, 'read_location', [reno, org])).toBe(true);
    expect(holds(view, 'write_location', [reno, org])).toBe(false);
    expect(holds(view, 'read_robot_config', [picker, reno, org])).toBe(true);
    expect(holds(view, 'write_robot', [picker, reno, org])).toBe(false);
    expect(holds(view, 'write_fragment', [org])).toBe(false);
    // A permission of another type than the resource is never held there.
    expect(holds(view, 'read_robot', [reno, org])).toBe(false);
  });

  it('answers a resource made since the check from the role on the nearest checked one covering it', () => {
    expect(holds(view, 'read_robot', [fresh, reno, org])).toBe(true);
    expect(holds(view, 'write_robot', [fresh, reno, org])).toBe(false);
    expect(holds(view, 'write_robot', [fresh, dock, org])).toBe(true);
    expect(holds(view, 'read_robot', [fresh, org])).toBe(false);
  });

  it('names the role that would allow it and where, nearest first; organization permissions only on the organization', () => {
    expect(whyNot(view, 'read_location', [reno, org])).toBeNull();
    expect(whyNot(view, 'write_location', [reno, org])).toEqual({ role: 'owner', on: [reno, org], text: 'needs owner on Reno Fulfillment Center' });
    expect(whyNot(view, 'write_robot', [picker, reno, org])?.text).toBe('needs owner on picker');
    expect(whyNot(view, 'write_organization', [org])).toEqual({ role: 'owner', on: [org], text: 'needs owner on Acme' });
    expect(whyNot(view, 'read_fragment', [org])?.text).toBe('needs operator on Acme');
    expect(whyNot({ ...view, checkedAt: null, locations: {}, machines: {} }, 'read_location', [{ ...reno, name: null }, org])?.text).toBe('needs operator on this location');
  });

  it('refuses requests the service should never see, saying why', () => {
    const bad = accessRequests['access.createKey'].safeParse({ orgId: 'o', grants: [] });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toBe('must name at least one role');
    const twice = accessRequests['access.invite'].safeParse({
      orgId: 'o',
      email: 'ana@example.com',
      sendEmail: false,
      grants: [
        { resourceType: 'location', resourceId: 'l', role: 'owner' },
        { resourceType: 'location', resourceId: 'l', role: 'owner' },
      ],
    });
    expect(twice.error?.issues[0]?.message).toBe('names the same role twice');
    expect(accessRequests['access.invite'].safeParse({ orgId: 'o', email: 'not an address', sendEmail: true, grants: [{ resourceType: 'organization', resourceId: 'o', role: 'operator' }] }).error?.issues[0]?.message).toMatch(/email address/);
    expect(accessRequests['access.addRole'].safeParse({ orgId: 'o', identityId: 'k', grant: { resourceType: 'robot', resourceId: 'm', role: 'owner' } }).error?.issues[0]?.message).toBe('must be "organization", "location" or "machine"');
  });
});
