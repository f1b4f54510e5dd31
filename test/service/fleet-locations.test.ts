// Locations over a real socket: nesting, UpdateLocation's presence rules and moves, refused cycles
// and cross-organization moves, deleting only empty locations, paging, sharing.
import type { Metadata} from '@grpc/grpc-js';
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appCall, expectError, ownerMetadata, scopedKey, startTestService, type TestService } from './helpers';

let t: TestService;
let owner: Metadata;
let orgId: string;
beforeAll(async () => {
  t = await startTestService();
  owner = await ownerMetadata(t);
  orgId = (await appCall(t, 'createOrganization', { name: 'Locations Co' }, owner)).organization!.id;
});
afterAll(async () => {
  await t.stop();
});

const create = async (name: string, parentLocationId = '', org = orgId) => (await appCall(t, 'createLocation', { orgId: org, name, parentLocationId }, owner)).location!;
const get = async (locationId: string, md = owner) => (await appCall(t, 'getLocation', { locationId }, md)).location!;

describe('CreateLocation and GetLocation', () => {
  it('creates at the top level by default, nests to any depth, and reads back', async () => {
    const site = await create('  Site One ');
    expect(site).toMatchObject({ name: 'Site One', parentLocationId: '', region: '', robotCount: 0, organizations: [{ organizationId: orgId, primary: true }] });
    let parent = site;
    for (let depth = 1; depth <= 12; depth++) parent = await create(`Level ${depth}`, parent.id);
    expect(await get(parent.id)).toEqual(parent);
    expect(parent.parentLocationId).not.toBe('');
  });

  it('refuses a nonexistent parent, a parent of another organization, and bad names', async () => {
    await expectError(appCall(t, 'createLocation', { orgId, name: 'x', parentLocationId: '00000000-0000-4000-8000-000000000000' }, owner), {
      code: status.NOT_FOUND,
      reason: 'LOCATION_NOT_FOUND',
      field: 'parent_location_id',
    });
    const other = (await appCall(t, 'createOrganization', { name: 'Other Parent Co' }, owner)).organization!.id;
    const foreign = await create('Foreign', '', other);
    await expectError(appCall(t, 'createLocation', { orgId, name: 'x', parentLocationId: foreign.id }, owner), { code: status.NOT_FOUND, reason: 'LOCATION_NOT_FOUND', field: 'parent_location_id' });
    await expectError(appCall(t, 'createLocation', { orgId, name: '' }, owner), { code: status.INVALID_ARGUMENT, reason: 'REQUIRED_FIELD_MISSING', field: 'name' });
    await expectError(appCall(t, 'createLocation', { orgId, name: 'a\u0007b' }, owner), { code: status.INVALID_ARGUMENT, reason: 'FIELD_INVALID', field: 'name' });
    await expectError(appCall(t, 'createLocation', { orgId, name: 'n'.repeat(201) }, owner), { code: status.INVALID_ARGUMENT, reason: 'FIELD_TOO_LONG', field: 'name' });
    await expectError(appCall(t, 'getLocation', { locationId: '' }, owner), { code: status.INVALID_ARGUMENT, reason: 'REQUIRED_FIELD_MISSING', field: 'location_id' });
    await expectError(appCall(t, 'getLocation', { locationId: 'x'.repeat(201) }, owner), { code: status.INVALID_ARGUMENT, reason: 'FIELD_TOO_LONG', field: 'location_id' });
  });
});

describe('UpdateLocation', () => {
  it('leaves the name when it is empty or omitted, and the parent when omitted', async () => {
    const top = await create('Top');
    const loc = await create('Keep Me', top.id);
    expect(await appCall(t, 'updateLocation', { locationId: loc.id, name: '' }, owner)).toEqual({ location: loc });
    expect(await appCall(t, 'updateLocation', { locationId: loc.id }, owner)).toEqual({ location: loc });
    const renamed = (await appCall(t, 'updateLocation', { locationId: loc.id, name: 'Renamed' }, owner)).location!;
    expect(renamed).toMatchObject({ name: 'Renamed', parentLocationId: top.id });
    expect((await appCall(t, 'updateLocation', { locationId: loc.id, region: 'eu' }, owner)).location).toMatchObject({ name: 'Renamed', region: 'eu', parentLocationId: top.id });
  });

  it('moves under another location, and to the top level with an explicit empty parent', async () => {
    const a = await create('Move A');
    const b = await create('Move B');
    const loc = await create('Mover', a.id);
    expect((await appCall(t, 'updateLocation', { locationId: loc.id, parentLocationId: b.id }, owner)).location?.parentLocationId).toBe(b.id);
    expect((await appCall(t, 'updateLocation', { locationId: loc.id, parentLocationId: '' }, owner)).location?.parentLocationId).toBe('');
    expect((await get(loc.id)).parentLocationId).toBe('');
  });

  it('refuses a move under itself or a descendant, to another organization, or under a location that does not exist', async () => {
    const a = await create('Cycle A');
    const b = await create('Cycle B', a.id);
    const c = await create('Cycle C', b.id);
    await expectError(appCall(t, 'updateLocation', { locationId: a.id, parentLocationId: a.id }, owner), { code: status.FAILED_PRECONDITION, reason: 'LOCATION_CYCLE', field: 'parent_location_id' });
    await expectError(appCall(t, 'updateLocation', { locationId: a.id, parentLocationId: c.id }, owner), { code: status.FAILED_PRECONDITION, reason: 'LOCATION_CYCLE', message: /inside "Cycle A"/ });
    const other = (await appCall(t, 'createOrganization', { name: 'Other Move Co' }, owner)).organization!.id;
    const foreign = await create('Foreign Parent', '', other);
    await expectError(appCall(t, 'updateLocation', { locationId: c.id, parentLocationId: foreign.id }, owner), { code: status.FAILED_PRECONDITION, reason: 'CROSS_ORGANIZATION_MOVE' });
    await expectError(appCall(t, 'updateLocation', { locationId: c.id, parentLocationId: '00000000-0000-4000-8000-000000000000' }, owner), {
      code: status.NOT_FOUND,
      reason: 'LOCATION_NOT_FOUND',
      field: 'parent_location_id',
    });
    await expectError(appCall(t, 'updateLocation', { locationId: c.id, name: 'x'.repeat(201) }, owner), { code: status.INVALID_ARGUMENT, reason: 'FIELD_TOO_LONG', field: 'name' });
    // Nothing moved.
    expect((await get(c.id)).parentLocationId).toBe(b.id);
    expect((await get(a.id)).parentLocationId).toBe('');
  });
});

describe('DeleteLocation', () => {
  it('refuses a location that holds machines or locations, saying what is in it, and deletes an empty one', async () => {
    const site = await create('Full Site');
    const floor = await create('Floor 9', site.id);
    await appCall(t, 'newRobot', { name: 'rover-1', locationId: site.id }, owner);
    await appCall(t, 'newRobot', { name: 'rover-2', locationId: site.id }, owner);
    await expectError(appCall(t, 'deleteLocation', { locationId: site.id }, owner), {
      code: status.FAILED_PRECONDITION,
      reason: 'LOCATION_NOT_EMPTY',
      message: /still holds 2 machines \("rover-1", "rover-2"\) and 1 location \("Floor 9"\)/,
    });
    await appCall(t, 'deleteLocation', { locationId: floor.id }, owner);
    await expectError(appCall(t, 'getLocation', { locationId: floor.id }, owner), { code: status.NOT_FOUND, reason: 'LOCATION_NOT_FOUND' });
    await expectError(appCall(t, 'deleteLocation', { locationId: floor.id }, owner), { code: status.NOT_FOUND, reason: 'LOCATION_NOT_FOUND' });
  });
});

describe('ListLocations', () => {
  it('pages by name with opaque tokens bound to the request, none twice', async () => {
    const org = (await appCall(t, 'createOrganization', { name: 'Paging Co' }, owner)).organization!.id;
    const names = ['delta', 'alpha', 'echo', 'charlie', 'bravo'];
    for (const name of names) await create(name, '', org);
    const seen: string[] = [];
    let token = '';
    let pages = 0;
    do {
      const page = await appCall(t, 'listLocations', { orgId: org, pageSize: 2, pageToken: token }, owner);
      expect(page.locations.length).toBeLessThanOrEqual(2);
      seen.push(...page.locations.map((l) => l.name));
      token = page.nextPageToken;
      pages += 1;
    } while (token !== '');
    expect(seen).toEqual([...names].sort());
    expect(pages).toBe(3);

    const first = await appCall(t, 'listLocations', { orgId: org, pageSize: 2 }, owner);
    await expectError(appCall(t, 'listLocations', { orgId, pageSize: 2, pageToken: first.nextPageToken }, owner), { code: status.INVALID_ARGUMENT, reason: 'PAGE_TOKEN_INVALID', field: 'page_token' });
    await expectError(appCall(t, 'listLocations', { orgId: org, pageToken: 'garbage' }, owner), { code: status.INVALID_ARGUMENT, reason: 'PAGE_TOKEN_INVALID' });
    await expectError(appCall(t, 'listLocations', { orgId: org, pageToken: `${first.nextPageToken.slice(0, -2)}xx` }, owner), { code: status.INVALID_ARGUMENT, reason: 'PAGE_TOKEN_INVALID' });
    await expectError(appCall(t, 'listLocations', { orgId: org, pageSize: -1 }, owner), { code: status.INVALID_ARGUMENT, reason: 'PAGE_SIZE_INVALID', field: 'page_size' });
    // The page size may change between pages.
    const rest = await appCall(t, 'listLocations', { orgId: org, pageSize: 10, pageToken: first.nextPageToken }, owner);
    expect(rest.locations.map((l) => l.name)).toEqual(['charlie', 'delta', 'echo']);
  });
});

describe('sharing', () => {
  it('makes a location and its machines visible to the other organization, until unshared', async () => {
    const owning = (await appCall(t, 'createOrganization', { name: 'Sharing Owner' }, owner)).organization!.id;
    const partner = (await appCall(t, 'createOrganization', { name: 'Sharing Partner' }, owner)).organization!.id;
    const site = await create('Shared Depot', '', owning);
    const bay = await create('Bay', site.id, owning);
    const robot = (await appCall(t, 'newRobot', { name: 'shared-bot', locationId: bay.id }, owner)).id;
    // A key of the partner organization only.
    const partnerKey = await scopedKey(t, [{ resourceType: 'organization', resourceId: partner, role: 'owner', organizationId: partner }]);
    const summaries = async () =>
      (await appCall(t, 'listMachineSummaries', { organizationId: partner }, partnerKey.metadata)).machineSummaries.map((m) => m.machineName);

    await expectError(appCall(t, 'getLocation', { locationId: site.id }, partnerKey.metadata), { code: status.NOT_FOUND, reason: 'LOCATION_NOT_FOUND' });
    await expectError(appCall(t, 'getRobot', { robotId: robot }, partnerKey.metadata), { code: status.NOT_FOUND, reason: 'ROBOT_NOT_FOUND' });
    expect(await summaries()).toEqual([]);

    await appCall(t, 'shareLocation', { organizationId: partner, locationId: site.id }, owner);
    expect((await get(site.id, partnerKey.metadata)).organizations).toEqual([
      { organizationId: owning, primary: true },
      { organizationId: partner, primary: false },
    ]);
    expect((await get(bay.id, partnerKey.metadata)).name).toBe('Bay');
    expect((await appCall(t, 'getRobot', { robotId: robot }, partnerKey.metadata)).robot?.name).toBe('shared-bot');
    expect((await appCall(t, 'listLocations', { orgId: partner }, partnerKey.metadata)).locations.map((l) => l.name)).toEqual(['Bay', 'Shared Depot']);
    expect(await summaries()).toEqual(['shared-bot']);
    // Roles through a share cover reads and writes of what is shared, but never deleting, moving or sharing it.
    await appCall(t, 'updateLocationMetadata', { locationId: bay.id, metadata: { by: 'partner' } }, partnerKey.metadata);
    await expectError(appCall(t, 'deleteLocation', { locationId: bay.id }, partnerKey.metadata), { code: status.PERMISSION_DENIED, reason: 'PERMISSION_DENIED' });
    await expectError(appCall(t, 'shareLocation', { organizationId: orgId, locationId: site.id }, partnerKey.metadata), { code: status.PERMISSION_DENIED });

    await expectError(appCall(t, 'shareLocation', { organizationId: partner, locationId: site.id }, owner), { code: status.ALREADY_EXISTS, reason: 'LOCATION_ALREADY_SHARED' });
    await expectError(appCall(t, 'shareLocation', { organizationId: partner, locationId: bay.id }, owner), { code: status.ALREADY_EXISTS, reason: 'LOCATION_ALREADY_SHARED' });
    await expectError(appCall(t, 'shareLocation', { organizationId: owning, locationId: site.id }, owner), { code: status.ALREADY_EXISTS, reason: 'LOCATION_ALREADY_SHARED' });
    await expectError(appCall(t, 'shareLocation', { organizationId: '00000000-0000-4000-8000-000000000000', locationId: site.id }, owner), {
      code: status.NOT_FOUND,
      reason: 'ORGANIZATION_NOT_FOUND',
      field: 'organization_id',
    });

    await expectError(appCall(t, 'unshareLocation', { organizationId: owning, locationId: site.id }, owner), { code: status.FAILED_PRECONDITION, reason: 'PRIMARY_ORGANIZATION' });
    await expectError(appCall(t, 'unshareLocation', { organizationId: partner, locationId: bay.id }, owner), { code: status.NOT_FOUND, reason: 'LOCATION_NOT_SHARED' });
    await appCall(t, 'unshareLocation', { organizationId: partner, locationId: site.id }, owner);
    await expectError(appCall(t, 'getLocation', { locationId: site.id }, partnerKey.metadata), { code: status.NOT_FOUND, reason: 'LOCATION_NOT_FOUND' });
    expect(await summaries()).toEqual([]);
    await expectError(appCall(t, 'unshareLocation', { organizationId: partner, locationId: site.id }, owner), { code: status.NOT_FOUND, reason: 'LOCATION_NOT_SHARED' });
  });
});

describe('location metadata', () => {
  it('replaces the object as a whole', async () => {
    const loc = await create('Meta Loc');
    expect((await appCall(t, 'getLocationMetadata', { locationId: loc.id }, owner)).metadata).toEqual({});
    await appCall(t, 'updateLocationMetadata', { locationId: loc.id, metadata: { timezone: 'UTC', dock: 4 } }, owner);
    await appCall(t, 'updateLocationMetadata', { locationId: loc.id, metadata: { dock: 5 } }, owner);
    expect((await appCall(t, 'getLocationMetadata', { locationId: loc.id }, owner)).metadata).toEqual({ dock: 5 });
  });
});
