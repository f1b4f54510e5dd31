import { describe, expect, it } from 'vitest';
import type { ApiKey, Member } from '../../common/access';
import { openCache } from '../cache/cache';
import { putLocation } from '../fleet/tree';
import { cachedKeys, cachedPeople, cachedPermissions, cachedRoles, putKeys, putPeople, putPermissions, putRoles, removeKey, renameKey } from './cache';

const owner = { resourceType: 'organization' as const, resourceId: 'o', role: 'owner' as const, resourceName: 'Acme' };
const member = (userId: string, grants: Member['grants']): Omit<Member, 'lastOwner'> => ({ userId, name: userId, emails: [`${userId}@example.com`], dateAdded: null, lastLogin: null, grants });
const key = (id: string, grants: ApiKey['grants']): ApiKey => ({ id, name: `key ${id}`, createdOn: null, lastUsed: null, grants, thisProfile: false });

function cache() {
  const db = openCache(':memory:');
  // The organizations table is the orgs domain's; a row of it is all the tree needs to name the organization.
  db.prepare("INSERT INTO organizations (id, name) VALUES ('o', 'Acme')").run();
  putLocation(db, 'o', { id: 'l', name: 'Dock', parentLocationId: '', ownerOrgId: 'o', sharedWithOrgIds: [], region: '', createdOn: null, robotCount: 0 }, 'at');
  return db;
}

describe('access in the cache', () => {
  it('keeps members and invites per organization, names their resources from the tree when read, and knows the last owner only when the keys are known', () => {
    const db = cache();
    expect(cachedPeople(db, 'o')).toBeNull();
    putPeople(db, 'o', [member('ana', [owner]), member('bo', [{ resourceType: 'location', resourceId: 'l', role: 'operator', resourceName: 'stale name' }])], [{ orgId: 'o', email: 'cy@example.com', createdOn: null, grants: [] }], 'at');
    const people = cachedPeople(db, 'o')!;
    expect(people.members.map((m) => m.userId)).toEqual(['ana', 'bo']);
    expect(people.members[1]!.grants).toEqual([{ resourceType: 'location', resourceId: 'l', role: 'operator', resourceName: 'Dock' }]);
    expect(people.members[0]!.lastOwner).toBe(false);
    putKeys(db, 'o', [key('k1', [{ ...owner, role: 'operator' }])], 'at');
    expect(cachedPeople(db, 'o')!.members[0]!.lastOwner).toBe(true);
    putKeys(db, 'o', [key('k1', [owner])], 'at');
    expect(cachedPeople(db, 'o')!.members[0]!.lastOwner).toBe(false);
  });

  it('renames and removes keys everywhere, their roles with them', () => {
    const db = cache();
    putKeys(db, 'o', [key('k1', [owner]), key('k2', [owner])], 'at');
    putRoles(db, 'o', ['o'], [{ resourceType: 'organization', resourceId: 'o', identityType: 'key', identityId: 'k1', role: 'owner' }], 'at');
    renameKey(db, 'k2', 'renamed');
    removeKey(db, 'k1');
    expect(cachedKeys(db, 'o', 'k2')!.keys.map((k) => [k.id, k.name, k.thisProfile])).toEqual([['k2', 'renamed', true]]);
    expect(cachedRoles(db, 'o', ['o'])!.roles).toEqual([]);
  });

  it('replaces the roles of the resources listed only', () => {
    const db = cache();
    expect(cachedRoles(db, 'o', ['l'])).toBeNull();
    const on = (resourceId: string, identityId: string) => ({ resourceType: 'location' as const, resourceId, identityType: 'user' as const, identityId, role: 'operator' as const });
    putRoles(db, 'o', ['l', 'l2'], [on('l', 'ana'), on('l2', 'bo')], 'at');
    putRoles(db, 'o', ['l'], [on('l', 'cy')], 'at');
    expect(cachedRoles(db, 'o', ['l', 'l2'])!.roles.map((r) => r.identityId)).toEqual(['cy', 'bo']);
  });

  it('keeps what the key may do and tells whether a check changed it', () => {
    const db = cache();
    expect(cachedPermissions(db, 'o')).toMatchObject({ organization: 0, checkedAt: null });
    const view = { orgId: 'o', organization: 1, locations: { l: 3 }, machines: {}, checkedAt: 'a' };
    expect(putPermissions(db, view)).toBe(true);
    expect(putPermissions(db, { ...view, checkedAt: 'b' })).toBe(false);
    expect(putPermissions(db, { ...view, locations: { l: 1 } })).toBe(true);
    expect(cachedPermissions(db, 'o')).toMatchObject({ organization: 1, locations: { l: 1 }, checkedAt: 'a' });
  });
});
