import { describe, expect, it } from 'vitest';
import { grantFromWire, named, resourceTypeToWire } from './convert';

describe('access records between the wire and the bridge', () => {
  it('says machine where the wire says robot, and leaves what this version cannot show', () => {
    expect(resourceTypeToWire('machine')).toBe('robot');
    expect(grantFromWire({ resourceType: 'robot', resourceId: 'm', roleId: 'owner' })).toEqual({ resourceType: 'machine', resourceId: 'm', role: 'owner' });
    expect(grantFromWire({ resourceType: 'robot', resourceId: 'm', roleId: 'admin' })).toBeNull();
  });

  it("names the resources of the service's refusals as the cache knows them, and leaves the others", () => {
    const nameOf = (type: string, id: string) => (type === 'location' && id === '3f2a9c1e-0000-4000-8000-000000000001' ? 'Reno Fulfillment Center' : null);
    expect(named('needs owner on location 3f2a9c1e-0000-4000-8000-000000000001', nameOf)).toBe('needs owner on location “Reno Fulfillment Center”');
    expect(named('needs owner on robot 3f2a9c1e-0000-4000-8000-000000000002', nameOf)).toBe('needs owner on robot 3f2a9c1e-0000-4000-8000-000000000002');
    expect(named('needs owner on location 3f2a9c1e-0000-4000-8000-000000000001', null)).toBe('needs owner on location 3f2a9c1e-0000-4000-8000-000000000001');
  });
});
