// Machines and parts over a real socket: unique names within a location, the main part rules,
// UpdateRobot's rename and move rules, restart flags, lookups, paging, summaries and their filters,
// metadata, and the simulated liveness.
import type { Metadata} from '@grpc/grpc-js';
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../service/simulator';
import { appCall, expectError, ownerMetadata, scopedKey, startTestService, type TestService } from './helpers';

let t: TestService;
let owner: Metadata;
let orgId: string;
beforeAll(async () => {
  t = await startTestService();
  owner = await ownerMetadata(t);
  orgId = (await appCall(t, 'createOrganization', { name: 'Machines Co' }, owner)).organization!.id;
});
afterAll(async () => {
  await t.stop();
});

const location = async (name: string, parentLocationId = '', org = orgId) => (await appCall(t, 'createLocation', { orgId: org, name, parentLocationId }, owner)).location!;
const robot = async (name: string, locationId: string) => (await appCall(t, 'newRobot', { name, locationId }, owner)).id;
const parts = async (robotId: string) => (await appCall(t, 'getRobotParts', { robotId }, owner)).parts;

describe('NewRobot and NewRobotPart', () => {
  it('creates a machine with one main part named <name>-main, with one secret and an address', async () => {
    const loc = await location('New Site');
    const before = Date.now();
    const id = await robot('  amr-1 ', loc.id);
    const machine = (await appCall(t, 'getRobot', { robotId: id }, owner)).robot!;
    expect(machine).toMatchObject({ id, name: 'amr-1', locationId: loc.id });
    expect(machine.createdOn!.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(machine.lastAccess).toBeUndefined();
    const [main] = await parts(id);
    expect(main).toMatchObject({ name: 'amr-1-main', mainPart: true, robotId: id, locationId: loc.id, robotConfig: {}, markedForRestart: false });
    expect(main!.secrets).toHaveLength(1);
    expect(main!.fqdn).toMatch(/^amr-1-main-[0-9a-f]{8}\.fleet\.internal$/);
    expect((await appCall(t, 'getLocation', { locationId: loc.id }, owner)).location?.robotCount).toBe(1);
  });

  it('keeps machine names and part names unique within a location, not across locations', async () => {
    const a = await location('Unique A');
    const b = await location('Unique B');
    const first = await robot('twin', a.id);
    await expectError(appCall(t, 'newRobot', { name: 'twin', locationId: a.id }, owner), { code: status.ALREADY_EXISTS, reason: 'NAME_TAKEN', message: /location "Unique A" has a machine named "twin"/ });
    await robot('twin', b.id);
    await appCall(t, 'newRobotPart', { robotId: first, partName: 'camera' }, owner);
    const other = await robot('other', a.id);
    // Part names are unique within the location, across machines.
    await expectError(appCall(t, 'newRobotPart', { robotId: other, partName: 'camera' }, owner), { code: status.ALREADY_EXISTS, reason: 'NAME_TAKEN', message: /part named "camera"/ });
    // A machine whose main part name is taken by another machine's part.
    await appCall(t, 'newRobotPart', { robotId: other, partName: 'mule-main' }, owner);
    await expectError(appCall(t, 'newRobot', { name: 'mule', locationId: a.id }, owner), { code: status.ALREADY_EXISTS, reason: 'NAME_TAKEN', message: /"mule-main"/ });
    await expectError(appCall(t, 'newRobotPart', { robotId: other, partName: ' ' }, owner), { code: status.INVALID_ARGUMENT, reason: 'REQUIRED_FIELD_MISSING', field: 'part_name' });
    await expectError(appCall(t, 'newRobot', { name: 'x', locationId: '' }, owner), { code: status.INVALID_ARGUMENT, reason: 'REQUIRED_FIELD_MISSING', field: 'location_id' });
    await expectError(appCall(t, 'newRobot', { name: 'x', locationId: '00000000-0000-4000-8000-000000000000' }, owner), { code: status.NOT_FOUND, reason: 'LOCATION_NOT_FOUND' });
  });
});

describe('main parts', () => {
  it('MarkPartAsMain leaves exactly one main part; the main part cannot be deleted; others can', async () => {
    const loc = await location('Main Site');
    const id = await robot('arm', loc.id);
    const partId = (await appCall(t, 'newRobotPart', { robotId: id, partName: 'arm-gripper' }, owner)).partId;
    const mains = async () => (await parts(id)).filter((p) => p.mainPart).map((p) => p.name);
    expect(await mains()).toEqual(['arm-main']);
    await appCall(t, 'markPartAsMain', { robotPartId: partId }, owner);
    expect(await mains()).toEqual(['arm-gripper']);
    // Main part first in the listing.
    expect((await parts(id)).map((p) => p.name)).toEqual(['arm-gripper', 'arm-main']);
    await appCall(t, 'markPartAsMain', { robotPartId: partId }, owner);
    expect(await mains()).toEqual(['arm-gripper']);
    await expectError(appCall(t, 'deleteRobotPart', { robotPartId: partId }, owner), { code: status.FAILED_PRECONDITION, reason: 'MAIN_PART' });
    const old = (await parts(id)).find((p) => p.name === 'arm-main')!;
    await appCall(t, 'deleteRobotPart', { robotPartId: old.id }, owner);
    expect((await parts(id)).map((p) => p.name)).toEqual(['arm-gripper']);
    await expectError(appCall(t, 'getRobotPart', { robotPartId: old.id }, owner), { code: status.NOT_FOUND, reason: 'ROBOT_PART_NOT_FOUND' });
    await expectError(appCall(t, 'markPartAsMain', { robotPartId: old.id }, owner), { code: status.NOT_FOUND, reason: 'ROBOT_PART_NOT_FOUND' });
  });

  it('MarkPartForRestart sets a flag the part shows, in GetRobotPart and in summaries', async () => {
    const loc = await location('Restart Site');
    const id = await robot('needs-restart', loc.id);
    const [main] = await parts(id);
    await appCall(t, 'markPartForRestart', { robotPartId: main!.id }, owner);
    const read = await appCall(t, 'getRobotPart', { robotPartId: main!.id }, owner);
    expect(read.part?.markedForRestart).toBe(true);
    expect(read.configJson).toBe('{}');
    const summary = (await appCall(t, 'listMachineSummaries', { organizationId: orgId, locationIds: [loc.id] }, owner)).machineSummaries[0]!;
    expect(summary.partSummaries[0]).toMatchObject({ partName: 'needs-restart-main', markedForRestart: true });
  });
});

describe('UpdateRobot', () => {
  it('renames within the location, refusing a name taken there', async () => {
    const loc = await location('Rename Site');
    const id = await robot('old-name', loc.id);
    await robot('taken', loc.id);
    expect((await appCall(t, 'updateRobot', { robotId: id, name: 'new-name', locationId: loc.id }, owner)).robot).toMatchObject({ name: 'new-name', locationId: loc.id });
    await expectError(appCall(t, 'updateRobot', { robotId: id, name: 'taken', locationId: loc.id }, owner), { code: status.ALREADY_EXISTS, reason: 'NAME_TAKEN' });
    await expectError(appCall(t, 'updateRobot', { robotId: id, name: '', locationId: loc.id }, owner), { code: status.INVALID_ARGUMENT, reason: 'REQUIRED_FIELD_MISSING', field: 'name' });
    await expectError(appCall(t, 'updateRobot', { robotId: id, name: 'n', locationId: '' }, owner), { code: status.INVALID_ARGUMENT, reason: 'REQUIRED_FIELD_MISSING', field: 'location_id' });
  });

  it('moves within the organization, parts along; refuses another organization, a name clash, a part name clash, an unknown location', async () => {
    const from = await location('Move From');
    const to = await location('Move To');
    const id = await robot('mover', from.id);
    await appCall(t, 'newRobotPart', { robotId: id, partName: 'mover-cam' }, owner);
    const moved = (await appCall(t, 'updateRobot', { robotId: id, name: 'mover', locationId: to.id }, owner)).robot!;
    expect(moved.locationId).toBe(to.id);
    expect((await parts(id)).map((p) => p.locationId)).toEqual([to.id, to.id]);
    expect((await appCall(t, 'getRobotPartByNameAndLocation', { name: 'mover-cam', locationId: to.id }, owner)).part?.robotId).toBe(id);

    const other = (await appCall(t, 'createOrganization', { name: 'Move Other Co' }, owner)).organization!.id;
    const foreign = await location('Foreign', '', other);
    await expectError(appCall(t, 'updateRobot', { robotId: id, name: 'mover', locationId: foreign.id }, owner), { code: status.FAILED_PRECONDITION, reason: 'CROSS_ORGANIZATION_MOVE' });
    await robot('mover', from.id);
    await expectError(appCall(t, 'updateRobot', { robotId: id, name: 'mover', locationId: from.id }, owner), { code: status.ALREADY_EXISTS, reason: 'NAME_TAKEN' });
    const clash = await location('Clash');
    const clashRobot = await robot('someone', clash.id);
    await appCall(t, 'newRobotPart', { robotId: clashRobot, partName: 'mover-cam' }, owner);
    await expectError(appCall(t, 'updateRobot', { robotId: id, name: 'mover', locationId: clash.id }, owner), { code: status.ALREADY_EXISTS, reason: 'NAME_TAKEN', message: /"mover-cam"/ });
    await expectError(appCall(t, 'updateRobot', { robotId: id, name: 'mover', locationId: '00000000-0000-4000-8000-000000000000' }, owner), {
      code: status.NOT_FOUND,
      reason: 'LOCATION_NOT_FOUND',
      field: 'location_id',
    });
    expect((await appCall(t, 'getRobot', { robotId: id }, owner)).robot?.locationId).toBe(to.id);
  });

  it('moving needs organization owner, or owner on both locations; renaming needs owner on the machine', async () => {
    const a = await location('Perm A');
    const b = await location('Perm B');
    const id = await robot('guarded', a.id);
    const ownsA = await scopedKey(t, [{ resourceType: 'location', resourceId: a.id, role: 'owner', organizationId: orgId }]);
    const ownsBoth = await scopedKey(t, [
      { resourceType: 'location', resourceId: a.id, role: 'owner', organizationId: orgId },
      { resourceType: 'location', resourceId: b.id, role: 'owner', organizationId: orgId },
    ]);
    const ownsRobot = await scopedKey(t, [{ resourceType: 'robot', resourceId: id, role: 'owner', organizationId: orgId }]);
    await expectError(appCall(t, 'updateRobot', { robotId: id, name: 'guarded', locationId: b.id }, ownsA.metadata), { code: status.PERMISSION_DENIED, message: /owner on its organization, or owner on both/ });
    await expectError(appCall(t, 'updateRobot', { robotId: id, name: 'guarded', locationId: b.id }, ownsRobot.metadata), { code: status.PERMISSION_DENIED });
    // The robot owner may rename it in place.
    await appCall(t, 'updateRobot', { robotId: id, name: 'renamed-by-robot-owner', locationId: a.id }, ownsRobot.metadata);
    await appCall(t, 'updateRobot', { robotId: id, name: 'guarded', locationId: b.id }, ownsBoth.metadata);
    await appCall(t, 'updateRobot', { robotId: id, name: 'guarded', locationId: a.id }, owner);
  });
});

describe('reads', () => {
  it('GetRobotPartByNameAndLocation finds a part by name within its location only', async () => {
    const a = await location('Lookup A');
    const b = await location('Lookup B');
    const id = await robot('finder', a.id);
    expect((await appCall(t, 'getRobotPartByNameAndLocation', { name: 'finder-main', locationId: a.id }, owner)).part).toMatchObject({ name: 'finder-main', robotId: id });
    await expectError(appCall(t, 'getRobotPartByNameAndLocation', { name: 'finder-main', locationId: b.id }, owner), { code: status.NOT_FOUND, reason: 'ROBOT_PART_NOT_FOUND' });
    await expectError(appCall(t, 'getRobotPartByNameAndLocation', { name: 'finder-main', locationId: '00000000-0000-4000-8000-000000000000' }, owner), {
      code: status.NOT_FOUND,
      reason: 'LOCATION_NOT_FOUND',
    });
  });

  it('DeleteRobot removes the machine with its parts and metadata', async () => {
    const loc = await location('Delete Site');
    const id = await robot('goner', loc.id);
    const [main] = await parts(id);
    await appCall(t, 'updateRobotPartMetadata', { robotPartId: main!.id, metadata: { fw: '1' } }, owner);
    await appCall(t, 'deleteRobot', { robotId: id }, owner);
    await expectError(appCall(t, 'getRobot', { robotId: id }, owner), { code: status.NOT_FOUND, reason: 'ROBOT_NOT_FOUND' });
    await expectError(appCall(t, 'getRobotPartMetadata', { robotPartId: main!.id }, owner), { code: status.NOT_FOUND, reason: 'ROBOT_PART_NOT_FOUND' });
    expect(t.db().prepare('SELECT count(*) FROM part_secrets WHERE part_id = ?').pluck().get(main!.id)).toBe(0);
  });

  it('ListRobots pages the machines directly in a location, by name', async () => {
    const loc = await location('Paging Robots');
    const inner = await location('Inner', loc.id);
    for (const name of ['r-c', 'r-a', 'r-e', 'r-b', 'r-d']) await robot(name, loc.id);
    await robot('not-direct', inner.id);
    const seen: string[] = [];
    let token = '';
    do {
      const page = await appCall(t, 'listRobots', { locationId: loc.id, pageSize: 2, pageToken: token }, owner);
      seen.push(...page.robots.map((r) => r.name));
      token = page.nextPageToken;
    } while (token !== '');
    expect(seen).toEqual(['r-a', 'r-b', 'r-c', 'r-d', 'r-e']);
    await expectError(appCall(t, 'listRobots', { locationId: inner.id, pageToken: (await appCall(t, 'listRobots', { locationId: loc.id, pageSize: 1 }, owner)).nextPageToken }, owner), {
      code: status.INVALID_ARGUMENT,
      reason: 'PAGE_TOKEN_INVALID',
    });
  });

  it('machine and part metadata replace the object as a whole', async () => {
    const loc = await location('Meta Site');
    const id = await robot('meta-bot', loc.id);
    const [main] = await parts(id);
    await appCall(t, 'updateRobotMetadata', { robotId: id, metadata: { serial: 'A1', tags: ['x'] } }, owner);
    await appCall(t, 'updateRobotMetadata', { robotId: id, metadata: { serial: 'A2' } }, owner);
    expect((await appCall(t, 'getRobotMetadata', { robotId: id }, owner)).metadata).toEqual({ serial: 'A2' });
    expect((await appCall(t, 'getRobotPartMetadata', { robotPartId: main!.id }, owner)).metadata).toEqual({});
    await appCall(t, 'updateRobotPartMetadata', { robotPartId: main!.id, metadata: { fw: '5.1.0' } }, owner);
    expect((await appCall(t, 'getRobotPartMetadata', { robotPartId: main!.id }, owner)).metadata).toEqual({ fw: '5.1.0' });
    await expectError(appCall(t, 'updateRobotMetadata', { robotId: id, metadata: { x: 'y'.repeat(66_000) } }, owner), { code: status.INVALID_ARGUMENT, reason: 'METADATA_TOO_LARGE' });
  });
});

describe('ListMachineSummaries', () => {
  it('draws an organization in one listing, honouring location_ids, fragment_ids and limit across pages', async () => {
    const org = (await appCall(t, 'createOrganization', { name: 'Summaries Co' }, owner)).organization!.id;
    const north = await location('North', '', org);
    const south = await location('South', '', org);
    const names: string[] = [];
    for (let i = 0; i < 7; i++) {
      names.push(`n-${i}`);
      await robot(`n-${i}`, north.id);
    }
    const s1 = await robot('s-1', south.id);
    const cam = (await appCall(t, 'newRobotPart', { robotId: s1, partName: 's-1-cam' }, owner)).partId;
    // Fragments are named in part configs' top-level `fragments` key.
    const frag1 = (await appCall(t, 'createFragment', { orgId: org, name: 'frag-1' }, owner)).fragment!.id;
    const frag2 = (await appCall(t, 'createFragment', { orgId: org, name: 'frag-2' }, owner)).fragment!.id;
    for (let i = 0; i < 2; i++) await appCall(t, 'updateFragment', { fragmentId: frag2, name: 'frag-2' }, owner);
    await appCall(t, 'updateRobotPart', { robotPartId: cam, name: 's-1-cam', robotConfig: { fragments: [frag1, { id: frag2, version: '3' }] } }, owner);

    const all = async (request: { locationIds?: string[]; fragmentIds?: string[]; limit?: number }, pageSize = 3) => {
      const out: string[] = [];
      let token = '';
      let pages = 0;
      do {
        const page = await appCall(t, 'listMachineSummaries', { organizationId: org, ...request, pageSize, pageToken: token }, owner);
        out.push(...page.machineSummaries.map((m) => m.machineName));
        token = page.nextPageToken;
        pages += 1;
      } while (token !== '' && pages < 20);
      return out;
    };
    expect(await all({})).toEqual([...names, 's-1']);
    expect(await all({ locationIds: [south.id] })).toEqual(['s-1']);
    expect(await all({ fragmentIds: [frag2] })).toEqual(['s-1']);
    expect(await all({ fragmentIds: [frag1], locationIds: [north.id] })).toEqual([]);
    expect(await all({ fragmentIds: ['unknown'] })).toEqual([]);
    expect(await all({ limit: 5 })).toEqual(names.slice(0, 5));
    expect(await all({ limit: 5 }, 2)).toEqual(names.slice(0, 5));
    await expectError(appCall(t, 'listMachineSummaries', { organizationId: org, limit: -1 }, owner), { code: status.INVALID_ARGUMENT, reason: 'PAGE_SIZE_INVALID', field: 'limit' });

    const s = (await appCall(t, 'listMachineSummaries', { organizationId: org, locationIds: [south.id] }, owner)).machineSummaries[0]!;
    expect(s).toMatchObject({ machineId: s1, machineName: 's-1', locationId: south.id, locationName: 'South' });
    expect(s.fragmentIds.sort()).toEqual([frag1, frag2].sort());
    expect(s.partSummaries.map((p) => [p.partName, p.mainPart])).toEqual([
      ['s-1-main', true],
      ['s-1-cam', false],
    ]);
  });

  it('lists what the caller can read: a location operator its subtree, a machine operator its machine', async () => {
    const org = (await appCall(t, 'createOrganization', { name: 'Readable Co' }, owner)).organization!.id;
    const site = await location('Site', '', org);
    const floor = await location('Floor', site.id, org);
    const elsewhere = await location('Elsewhere', '', org);
    await robot('on-site', site.id);
    await robot('on-floor', floor.id);
    const far = await robot('far-away', elsewhere.id);
    const siteOperator = await scopedKey(t, [{ resourceType: 'location', resourceId: site.id, role: 'operator', organizationId: org }]);
    const machineOperator = await scopedKey(t, [{ resourceType: 'robot', resourceId: far, role: 'operator', organizationId: org }]);
    const names = async (md: Metadata) => (await appCall(t, 'listMachineSummaries', { organizationId: org }, md)).machineSummaries.map((m) => m.machineName);
    expect(await names(siteOperator.metadata)).toEqual(['on-floor', 'on-site']);
    expect(await names(machineOperator.metadata)).toEqual(['far-away']);
    expect((await appCall(t, 'listLocations', { orgId: org }, siteOperator.metadata)).locations.map((l) => l.name)).toEqual(['Floor', 'Site']);
    expect((await appCall(t, 'listLocations', { orgId: org }, machineOperator.metadata)).locations).toEqual([]);
  });
});

describe('simulated liveness', () => {
  it('checks steady parts in on their interval, flaky ones only in their up phase, never the others; a check-in clears the restart flag', async () => {
    const loc = await location('Sim Site');
    const ids = { steady: await robot('steady', loc.id), flaky: await robot('flaky', loc.id), quiet: await robot('quiet', loc.id) };
    const part = async (robotId: string) => (await parts(robotId))[0]!;
    const steady = await part(ids.steady);
    const flaky = await part(ids.flaky);
    const quiet = await part(ids.quiet);
    const insert = t.db().prepare('INSERT INTO part_simulation (part_id, pattern, interval_s, period_s, phase_s) VALUES (?, ?, ?, ?, ?)');
    insert.run(steady.id, 'steady', 2, 1, 0);
    insert.run(flaky.id, 'flaky', 1, 10, 0);
    await appCall(t, 'markPartForRestart', { robotPartId: steady.id }, owner);
    const sim = startSimulator(t.db(), () => undefined, { autoStart: false });
    const lastAccess = async (id: string) => (await appCall(t, 'getRobotPart', { robotPartId: id }, owner)).part!;

    // t = 1000 s: steady (1000 % 2 = 0) checks in; flaky is up (1000 / 10 = 100, even).
    sim.tick(new Date(1_000_000));
    expect((await lastAccess(steady.id)).lastAccess?.getTime()).toBe(1_000_000);
    expect((await lastAccess(steady.id)).markedForRestart).toBe(false);
    expect((await lastAccess(flaky.id)).lastAccess?.getTime()).toBe(1_000_000);
    // t = 1011 s: flaky is down (101, odd); steady skips odd seconds.
    sim.tick(new Date(1_011_000));
    expect((await lastAccess(flaky.id)).lastAccess?.getTime()).toBe(1_000_000);
    expect((await lastAccess(steady.id)).lastAccess?.getTime()).toBe(1_000_000);
    sim.tick(new Date(1_012_000));
    expect((await lastAccess(steady.id)).lastAccess?.getTime()).toBe(1_012_000);
    expect((await lastAccess(quiet.id)).lastAccess).toBeUndefined();
    // A machine's last access is its most recent part's.
    expect((await appCall(t, 'getRobot', { robotId: ids.steady }, owner)).robot?.lastAccess?.getTime()).toBe(1_012_000);
    sim.stop();
  });
});
