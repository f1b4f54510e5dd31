// Organizations beyond create/list/get, over a real socket: update only what is passed, the public
// namespace (charset, availability, set once, taken), delete everything of an organization and
// nothing else, who has access to a location, a user's organizations, metadata.
import type { Metadata} from '@grpc/grpc-js';
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appCall, createKeyWithOrg, expectError, ownerMetadata, scopedKey, startTestService, type TestService } from './helpers';

let t: TestService;
let owner: Metadata;
beforeAll(async () => {
  t = await startTestService();
  owner = await ownerMetadata(t);
});
afterAll(async () => {
  await t.stop();
});

const newOrg = async (name: string, md = owner) => (await appCall(t, 'createOrganization', { name }, md)).organization!;
const count = (sql: string, ...params: unknown[]) => t.db().prepare(sql).pluck().get(...params) as number;

describe('UpdateOrganization', () => {
  it('changes only the fields passed', async () => {
    const org = await newOrg('Partial Robotics');
    const r1 = await appCall(t, 'updateOrganization', { orgId: org.id, region: 'eu-north' }, owner);
    expect(r1.organization).toMatchObject({ name: 'Partial Robotics', region: 'eu-north', cid: '', publicNamespace: '' });
    const r2 = await appCall(t, 'updateOrganization', { orgId: org.id, cid: 'CRM-1' }, owner);
    expect(r2.organization).toMatchObject({ name: 'Partial Robotics', region: 'eu-north', cid: 'CRM-1' });
    const r3 = await appCall(t, 'updateOrganization', { orgId: org.id, name: '  Renamed Robotics ' }, owner);
    expect(r3.organization).toMatchObject({ name: 'Renamed Robotics', region: 'eu-north', cid: 'CRM-1' });
    // Present and empty region clears it: presence, not emptiness, decides.
    const r4 = await appCall(t, 'updateOrganization', { orgId: org.id, region: '' }, owner);
    expect(r4.organization).toMatchObject({ name: 'Renamed Robotics', region: '', cid: 'CRM-1' });
  });

  it('refuses a present but blank name, a name too long, and an unknown default fragment', async () => {
    const org = await newOrg('Strict Robotics');
    await expectError(appCall(t, 'updateOrganization', { orgId: org.id, name: '   ' }, owner), { code: status.INVALID_ARGUMENT, reason: 'REQUIRED_FIELD_MISSING', field: 'name' });
    await expectError(appCall(t, 'updateOrganization', { orgId: org.id, name: 'x'.repeat(201) }, owner), { code: status.INVALID_ARGUMENT, reason: 'FIELD_TOO_LONG', field: 'name' });
    await expectError(appCall(t, 'updateOrganization', { orgId: org.id, defaultFragments: { fragments: [{ fragmentId: 'nope', version: undefined }] } }, owner), {
      code: status.NOT_FOUND,
      reason: 'FRAGMENT_NOT_FOUND',
      field: 'default_fragments.fragments[0].fragment_id',
    });
    // An empty list clears them (there are none to clear): accepted.
    await appCall(t, 'updateOrganization', { orgId: org.id, defaultFragments: { fragments: [] } }, owner);
    expect((await appCall(t, 'getOrganization', { orgId: org.id }, owner)).organization?.name).toBe('Strict Robotics');
  });
});

describe('the public namespace', () => {
  it.each(['', 'Upper', 'under_score', '-lead', 'trail-', 'a'.repeat(64), 'sp ace', 'ümlaut'])('refuses %j as invalid, in availability and in an update', async (ns) => {
    const expected = ns === '' ? 'REQUIRED_FIELD_MISSING' : 'NAMESPACE_INVALID';
    await expectError(appCall(t, 'getOrganizationNamespaceAvailability', { publicNamespace: ns }, owner), { code: status.INVALID_ARGUMENT, reason: expected, field: 'public_namespace' });
    const org = await newOrg(`Namespace ${ns.length}`);
    await expectError(appCall(t, 'updateOrganization', { orgId: org.id, publicNamespace: ns }, owner), { code: status.INVALID_ARGUMENT, reason: expected, field: 'public_namespace' });
  });

  it('is available until taken, set once, and then taken for everyone else', async () => {
    const a = await newOrg('Namespace A');
    const b = await newOrg('Namespace B');
    expect((await appCall(t, 'getOrganizationNamespaceAvailability', { publicNamespace: 'acme-9' }, owner)).available).toBe(true);
    expect((await appCall(t, 'updateOrganization', { orgId: a.id, publicNamespace: 'acme-9' }, owner)).organization?.publicNamespace).toBe('acme-9');
    expect((await appCall(t, 'getOrganizationNamespaceAvailability', { publicNamespace: 'acme-9' }, owner)).available).toBe(false);
    // The same value again changes nothing; another value is refused: it is set once.
    await appCall(t, 'updateOrganization', { orgId: a.id, publicNamespace: 'acme-9' }, owner);
    await expectError(appCall(t, 'updateOrganization', { orgId: a.id, publicNamespace: 'acme-10' }, owner), { code: status.FAILED_PRECONDITION, reason: 'NAMESPACE_ALREADY_SET' });
    await expectError(appCall(t, 'updateOrganization', { orgId: b.id, publicNamespace: 'acme-9' }, owner), { code: status.ALREADY_EXISTS, reason: 'NAMESPACE_TAKEN' });
    // A refused update changes nothing else either.
    await expectError(appCall(t, 'updateOrganization', { orgId: b.id, name: 'Not Renamed', publicNamespace: 'acme-9' }, owner), { code: status.ALREADY_EXISTS });
    expect((await appCall(t, 'getOrganization', { orgId: b.id }, owner)).organization?.name).toBe('Namespace B');
  });
});

describe('DeleteOrganization', () => {
  it('removes everything of the organization and nothing else', async () => {
    const doomed = await newOrg('Doomed Robotics');
    const kept = await newOrg('Kept Robotics');
    const build = async (orgId: string) => {
      const site = (await appCall(t, 'createLocation', { orgId, name: 'Site' }, owner)).location!;
      const floor = (await appCall(t, 'createLocation', { orgId, name: 'Floor', parentLocationId: site.id }, owner)).location!;
      const robot = (await appCall(t, 'newRobot', { name: 'bot', locationId: floor.id }, owner)).id;
      await appCall(t, 'newRobotPart', { robotId: robot, partName: 'bot-cam' }, owner);
      await appCall(t, 'updateRobotMetadata', { robotId: robot, metadata: { a: 1 } }, owner);
      return { site, floor, robot };
    };
    const d = await build(doomed.id);
    const k = await build(kept.id);
    // Shares both ways: the doomed one's location shared with the kept one, and the other way round.
    await appCall(t, 'shareLocation', { organizationId: kept.id, locationId: d.site.id }, owner);
    await appCall(t, 'shareLocation', { organizationId: doomed.id, locationId: k.site.id }, owner);
    // A key holding roles only on the doomed organization's location and machine.
    await scopedKey(t, [
      { resourceType: 'location', resourceId: d.floor.id, role: 'owner', organizationId: doomed.id },
      { resourceType: 'robot', resourceId: d.robot, role: 'operator', organizationId: doomed.id },
    ]);

    await appCall(t, 'deleteOrganization', { orgId: doomed.id }, owner);

    await expectError(appCall(t, 'getOrganization', { orgId: doomed.id }, owner), { code: status.NOT_FOUND, reason: 'ORGANIZATION_NOT_FOUND' });
    expect(count('SELECT count(*) FROM locations WHERE organization_id = ?', doomed.id)).toBe(0);
    expect(count('SELECT count(*) FROM robots WHERE id = ?', d.robot)).toBe(0);
    expect(count('SELECT count(*) FROM robot_parts WHERE robot_id = ?', d.robot)).toBe(0);
    expect(count('SELECT count(*) FROM part_secrets WHERE part_id NOT IN (SELECT id FROM robot_parts)')).toBe(0);
    expect(count('SELECT count(*) FROM location_shares WHERE organization_id = ? OR location_id = ?', doomed.id, d.site.id)).toBe(0);
    expect(count('SELECT count(*) FROM authorizations WHERE organization_id = ? OR resource_id IN (?, ?, ?)', doomed.id, d.site.id, d.floor.id, d.robot)).toBe(0);
    // The kept organization is whole.
    expect((await appCall(t, 'getLocation', { locationId: k.floor.id }, owner)).location?.name).toBe('Floor');
    expect((await appCall(t, 'getRobotParts', { robotId: k.robot }, owner)).parts.map((p) => p.name)).toEqual(['bot-main', 'bot-cam']);
    expect((await appCall(t, 'getRobotMetadata', { robotId: k.robot }, owner)).metadata).toEqual({ a: 1 });
    expect((await appCall(t, 'getOrganizationsWithAccessToLocation', { locationId: k.site.id }, owner)).organizationIdentities.map((o) => o.id)).toEqual([kept.id]);
  });
});

describe('GetOrganizationsWithAccessToLocation and ListOrganizationsByUser', () => {
  it('lists the owner first, then every organization the location is shared with, in share order', async () => {
    const [a, b, c] = [await newOrg('Owner Co'), await newOrg('Partner B'), await newOrg('Partner C')];
    const site = (await appCall(t, 'createLocation', { orgId: a.id, name: 'Shared Site' }, owner)).location!;
    const floor = (await appCall(t, 'createLocation', { orgId: a.id, name: 'Inner', parentLocationId: site.id }, owner)).location!;
    await appCall(t, 'shareLocation', { organizationId: c.id, locationId: site.id }, owner);
    await appCall(t, 'shareLocation', { organizationId: b.id, locationId: site.id }, owner);
    const access = await appCall(t, 'getOrganizationsWithAccessToLocation', { locationId: site.id }, owner);
    expect(access.organizationIdentities).toEqual([
      { id: a.id, name: 'Owner Co' },
      { id: c.id, name: 'Partner C' },
      { id: b.id, name: 'Partner B' },
    ]);
    // A share covers what is under the location.
    expect((await appCall(t, 'getOrganizationsWithAccessToLocation', { locationId: floor.id }, owner)).organizationIdentities.map((o) => o.name)).toEqual(['Owner Co', 'Partner C', 'Partner B']);
  });

  it("lists a user's organizations, only those the caller sees; an unknown user has none", async () => {
    const mine = await newOrg('User Org Mine');
    const other = await createKeyWithOrg(t, 'User Org Hidden');
    const authorizations = (await import('../../service/access/authorizations')).Authorizations;
    const store = new authorizations(t.db());
    store.grant({ type: 'user', id: 'user-42' }, { organizationId: mine.id, resourceType: 'organization', resourceId: mine.id, role: 'operator' });
    store.grant({ type: 'user', id: 'user-42' }, { organizationId: other.orgId, resourceType: 'organization', resourceId: other.orgId, role: 'owner' });
    const result = await appCall(t, 'listOrganizationsByUser', { userId: 'user-42' }, owner);
    expect(result.orgs).toEqual([{ orgId: mine.id, orgName: 'User Org Mine', orgCid: '', publicNamespace: '' }]);
    expect((await appCall(t, 'listOrganizationsByUser', { userId: 'nobody' }, owner)).orgs).toEqual([]);
    await expectError(appCall(t, 'listOrganizationsByUser', { userId: '' }, owner), { code: status.INVALID_ARGUMENT, reason: 'REQUIRED_FIELD_MISSING', field: 'user_id' });
  });
});

describe('metadata', () => {
  it('is an object replaced as a whole, {} when never set, bounded in size and depth', async () => {
    const org = await newOrg('Meta Robotics');
    expect((await appCall(t, 'getOrganizationMetadata', { orgId: org.id }, owner)).metadata).toEqual({});
    await appCall(t, 'updateOrganizationMetadata', { orgId: org.id, metadata: { a: 1, nested: { b: [true, null, 'x'] } } }, owner);
    expect((await appCall(t, 'getOrganizationMetadata', { orgId: org.id }, owner)).metadata).toEqual({ a: 1, nested: { b: [true, null, 'x'] } });
    await appCall(t, 'updateOrganizationMetadata', { orgId: org.id, metadata: { c: 'only' } }, owner);
    expect((await appCall(t, 'getOrganizationMetadata', { orgId: org.id }, owner)).metadata).toEqual({ c: 'only' });

    await expectError(appCall(t, 'updateOrganizationMetadata', { orgId: org.id }, owner), { code: status.INVALID_ARGUMENT, reason: 'REQUIRED_FIELD_MISSING', field: 'metadata' });
    await expectError(appCall(t, 'updateOrganizationMetadata', { orgId: org.id, metadata: { big: 'x'.repeat(70 * 1024) } }, owner), {
      code: status.INVALID_ARGUMENT,
      reason: 'METADATA_TOO_LARGE',
      field: 'metadata',
    });
    const nested = (levels: number) => {
      let deep: Record<string, unknown> = { leaf: 1 };
      for (let i = 1; i < levels; i++) deep = { d: deep };
      return deep;
    };
    await appCall(t, 'updateOrganizationMetadata', { orgId: org.id, metadata: nested(32) }, owner);
    await expectError(appCall(t, 'updateOrganizationMetadata', { orgId: org.id, metadata: nested(33) }, owner), { code: status.INVALID_ARGUMENT, reason: 'FIELD_INVALID', field: 'metadata' });
    // Deeper still, the message cannot even be decoded (the decoder stops at 100 levels of messages): still the caller's mistake.
    await expectError(appCall(t, 'updateOrganizationMetadata', { orgId: org.id, metadata: nested(60) }, owner), { code: status.INVALID_ARGUMENT, reason: 'MESSAGE_MALFORMED' });
    await appCall(t, 'updateOrganizationMetadata', { orgId: org.id, metadata: { c: 'only' } }, owner);
    // Nothing of a refused update was kept.
    expect((await appCall(t, 'getOrganizationMetadata', { orgId: org.id }, owner)).metadata).toEqual({ c: 'only' });
  });
});
