import { describe, expect, it } from 'vitest';
import { bitsFor, permissionsFrom, treeRequest } from './sync';

describe('one CheckPermissions per tree', () => {
  it('names the organization, then every location and machine, with the permissions the app gates on, the wire types', () => {
    const request = treeRequest('o', { locations: ['l1', 'l2'], machines: ['m1'] });
    expect(request.map((r) => [r.resourceType, r.resourceId])).toEqual([
      ['organization', 'o'],
      ['location', 'l1'],
      ['location', 'l2'],
      ['robot', 'm1'],
    ]);
    expect(request[0]!.permissions).toEqual(['read_organization', 'write_organization', 'read_fragment', 'write_fragment']);
    expect(request[3]!.permissions).toContain('read_robot_config');
  });

  it('reads the answer back into bits per resource, in the order asked', () => {
    const ids = { locations: ['l1', 'l2'], machines: ['m1'] };
    const answer = treeRequest('o', ids).map((r, i) => ({ ...r, permissions: i === 1 ? ['read_location', 'write_location'] : i === 3 ? ['read_robot'] : [] }));
    expect(permissionsFrom('o', ids, answer, 'at')).toEqual({ orgId: 'o', organization: 0, locations: { l1: 0b11, l2: 0 }, machines: { m1: 0b1 }, checkedAt: 'at' });
    expect(bitsFor('machine', ['read_robot_secret', 'unknown'])).toBe(0b100000);
  });
});
