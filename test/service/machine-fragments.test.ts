// What a machine uses, over a real socket: ListMachineFragments (top-level and nested fragments at the
// revisions the configs resolve to, plus additional ones), resolving a machine's effective config from
// its answer the way the desktop does (fleetconfig), an organization's default fragments given to
// machines created afterwards, and ListMachineSummaries' fragment filter through nesting and versions.
import type { Metadata } from '@grpc/grpc-js';
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lookupFrom, resolveConfig, type JsonObject, type KnownFragment } from '../../fleetconfig';
import { FragmentVisibility, type Fragment } from '../../proto/gen/fleet/app/v1/fragments';
import { appCall, expectError, ownerMetadata, scopedKey, startTestService, type TestService } from './helpers';

const PUBLIC = FragmentVisibility.FRAGMENT_VISIBILITY_PUBLIC;

let t: TestService;
let owner: Metadata;
let orgId: string;
let locationId: string;
let robots = 0;
beforeAll(async () => {
  t = await startTestService();
  owner = await ownerMetadata(t);
  orgId = (await appCall(t, 'createOrganization', { name: 'Machine Fragments Co' }, owner)).organization!.id;
  locationId = (await appCall(t, 'createLocation', { orgId, name: 'Depot' }, owner)).location!.id;
});
afterAll(async () => {
  await t.stop();
});

const create = async (name: string, config: Record<string, unknown> = {}, org = orgId, visibility = FragmentVisibility.FRAGMENT_VISIBILITY_UNSPECIFIED) =>
  (await appCall(t, 'createFragment', { orgId: org, name, config, visibility }, owner)).fragment!;
const update = (fragmentId: string, name: string, config: Record<string, unknown>) => appCall(t, 'updateFragment', { fragmentId, name, config }, owner);
const sensor = (name: string, rate: number) => ({ components: [{ name, type: 'camera', attributes: { rate_hz: rate } }] });

async function machine(where = locationId): Promise<{ robotId: string; main: { id: string; name: string } }> {
  robots += 1;
  const robotId = (await appCall(t, 'newRobot', { name: `mf-${robots}`, locationId: where }, owner)).id;
  const main = (await appCall(t, 'getRobotParts', { robotId }, owner)).parts[0]!;
  return { robotId, main: { id: main.id, name: main.name } };
}
const configure = (p: { id: string; name: string }, config: Record<string, unknown>) => appCall(t, 'updateRobotPart', { robotPartId: p.id, name: p.name, robotConfig: config }, owner);
const listed = async (robotId: string, additionalFragmentIds: string[] = [], md = owner) =>
  (await appCall(t, 'listMachineFragments', { machineId: robotId, additionalFragmentIds }, md)).fragments;

/** What the desktop does: resolve a part's config with the fragments ListMachineFragments answered. */
function effective(config: JsonObject, fragments: readonly Fragment[]) {
  const known: KnownFragment[] = fragments.map((f) => ({
    id: f.id,
    name: f.name,
    revision: f.revision,
    config: f.config as JsonObject,
    latestRevision: f.revisions.at(-1)!.revision,
    tags: Object.fromEntries(f.tags.map((x) => [x.tag, x.revision])),
  }));
  return resolveConfig(config, lookupFrom(known));
}

describe('ListMachineFragments', () => {
  it('lists top-level and nested fragments at the revisions the configs ask for, each once, plus the additional ones', async () => {
    const lidar = await create('MF lidar', sensor('lidar', 10));
    const base = await create('MF base', { components: [{ name: 'base', type: 'base' }], fragments: [lidar.id] });
    await update(lidar.id, 'MF lidar', sensor('lidar', 20));
    await appCall(t, 'setFragmentTag', { fragmentId: lidar.id, tag: 'stable', revision: '1' }, owner);
    const extra = await create('MF extra', sensor('extra', 1));
    const { robotId, main } = await machine();
    const cam = (await appCall(t, 'newRobotPart', { robotId, partName: `mf-${robots}-cam` }, owner)).partId;
    await configure(main, { fragments: [base.id, { id: lidar.id, version: 'stable', prefix: 'rear-' }] });
    await configure({ id: cam, name: `mf-${robots}-cam` }, { fragments: [base.id] });
    const fragments = await listed(robotId, [extra.id, base.id]);
    expect(fragments.map((f) => [f.name, f.revision])).toEqual([
      ['MF base', '1'],
      ['MF lidar', '2'],
      ['MF lidar', '1'],
      ['MF extra', '1'],
    ]);
    const lidarAt1 = fragments[2]!;
    expect(lidarAt1.config).toEqual(sensor('lidar', 10));
    expect(lidarAt1.tags.map((x) => [x.tag, x.revision])).toEqual([['stable', '1']]);
    expect(lidarAt1.revisions.map((r) => r.revision)).toEqual(['1', '2']);
    expect(lidarAt1.robotPartCount).toBe(2);
  });

  it('is what a client resolves a machine’s effective config with: a tracking machine follows an update, a pinned one and one on a tag do not until the tag moves', async () => {
    const lidar = await create('Follow lidar', sensor('lidar', 10));
    await appCall(t, 'setFragmentTag', { fragmentId: lidar.id, tag: 'stable' }, owner);
    const tracking = await machine();
    const pinned = await machine();
    const tagged = await machine();
    const configs = {
      tracking: { fragments: [lidar.id] },
      pinned: { fragments: [{ id: lidar.id, version: '1' }] },
      tagged: { fragments: [{ id: lidar.id, version: 'stable' }], fragment_mods: [{ fragment_id: lidar.id, mods: [{ $set: { 'components.lidar.attributes.rate_hz': 5 } }] }] },
    };
    await configure(tracking.main, configs.tracking);
    await configure(pinned.main, configs.pinned);
    await configure(tagged.main, configs.tagged);
    const rate = async (m: { robotId: string }, config: JsonObject) => {
      const r = effective(config, await listed(m.robotId));
      expect(r.issues).toEqual([]);
      return ((r.effective.components as JsonObject[])[0]!.attributes as JsonObject).rate_hz;
    };
    expect([await rate(tracking, configs.tracking), await rate(pinned, configs.pinned), await rate(tagged, configs.tagged)]).toEqual([10, 10, 5]);
    await update(lidar.id, 'Follow lidar', sensor('lidar', 30));
    expect([await rate(tracking, configs.tracking), await rate(pinned, configs.pinned), await rate(tagged, configs.tagged)]).toEqual([30, 10, 5]);
    const { mods } = effective(configs.tagged, await listed(tagged.robotId));
    expect(mods[0]).toMatchObject({ applied: true, previous: 10, overrode: { kind: 'fragment', fragmentId: lidar.id, revision: '1' } });
    // Moving the tag: how many parts it reaches is what a client shows first.
    expect((await appCall(t, 'getFragment', { fragmentId: lidar.id }, owner)).fragment!.robotPartCount).toBe(3);
    await appCall(t, 'setFragmentTag', { fragmentId: lidar.id, tag: 'stable', revision: '2' }, owner);
    expect((await effective(configs.tagged, await listed(tagged.robotId))).mods[0]).toMatchObject({ applied: true, previous: 30 });
  });

  it('refuses an additional fragment the caller cannot read, and an unknown machine', async () => {
    const { robotId } = await machine();
    const other = (await appCall(t, 'createOrganization', { name: 'MF Other' }, owner)).organization!.id;
    const theirs = await create('Their private', {}, other);
    const theirsPublic = await create('Their public', sensor('x', 1), other, PUBLIC);
    const operator = await scopedKey(t, [{ resourceType: 'robot', resourceId: robotId, role: 'operator', organizationId: orgId }]);
    expect((await listed(robotId, [theirsPublic.id], operator.metadata)).map((f) => f.name)).toEqual(['Their public']);
    await expectError(appCall(t, 'listMachineFragments', { machineId: robotId, additionalFragmentIds: [theirsPublic.id, theirs.id] }, operator.metadata), {
      code: status.NOT_FOUND,
      reason: 'FRAGMENT_NOT_FOUND',
      field: 'additional_fragment_ids[1]',
    });
    await expectError(appCall(t, 'listMachineFragments', { machineId: '00000000-0000-4000-8000-000000000000' }, owner), { code: status.NOT_FOUND, reason: 'ROBOT_NOT_FOUND', field: 'machine_id' });
    await expectError(appCall(t, 'listMachineFragments', { machineId: robotId, additionalFragmentIds: Array.from({ length: 101 }, (_, i) => `f-${i}`) }, owner), {
      code: status.INVALID_ARGUMENT,
      reason: 'FIELD_INVALID',
      field: 'additional_fragment_ids',
    });
  });
});

describe('default fragments', () => {
  it('are given to the main part of machines created afterwards, answered on the organization, and checked when set', async () => {
    const org = (await appCall(t, 'createOrganization', { name: 'Defaults Co' }, owner)).organization!.id;
    const site = (await appCall(t, 'createLocation', { orgId: org, name: 'Defaults Site' }, owner)).location!.id;
    const telemetry = await create('Telemetry', { services: [{ name: 'telemetry', type: 'generic' }] }, org);
    const safety = await create('Safety', sensor('scanner', 25), org);
    await appCall(t, 'setFragmentTag', { fragmentId: safety.id, tag: 'stable' }, owner);
    const before = await machine(site);
    const answered = (await appCall(t, 'updateOrganization', { orgId: org, defaultFragments: { fragments: [{ fragmentId: telemetry.id }, { fragmentId: safety.id, version: 'stable' }] } }, owner)).organization!;
    expect(answered.defaultFragments).toEqual([{ fragmentId: telemetry.id }, { fragmentId: safety.id, version: 'stable' }]);
    expect((await appCall(t, 'getOrganization', { orgId: org }, owner)).organization!.defaultFragments).toHaveLength(2);
    const after = await machine(site);
    expect(JSON.parse((await appCall(t, 'getRobotPart', { robotPartId: after.main.id }, owner)).configJson)).toEqual({ fragments: [telemetry.id, { id: safety.id, version: 'stable' }] });
    expect((await appCall(t, 'getRobotPart', { robotPartId: before.main.id }, owner)).configJson).toBe('{}');
    expect((await appCall(t, 'getFragment', { fragmentId: safety.id }, owner)).fragment!.robotPartCount).toBe(1);
    // Other calls leave them as they are; an empty list clears them.
    await appCall(t, 'updateOrganization', { orgId: org, region: 'eu' }, owner);
    expect((await appCall(t, 'getOrganization', { orgId: org }, owner)).organization!.defaultFragments).toHaveLength(2);
    await appCall(t, 'updateOrganization', { orgId: org, defaultFragments: { fragments: [] } }, owner);
    expect((await appCall(t, 'getOrganization', { orgId: org }, owner)).organization!.defaultFragments).toEqual([]);
    expect((await appCall(t, 'getRobotPart', { robotPartId: (await machine(site)).main.id }, owner)).configJson).toBe('{}');

    const stranger = (await appCall(t, 'createOrganization', { name: 'Defaults Stranger' }, owner)).organization!.id;
    const strangers = await create('Stranger private', {}, stranger);
    const refuse = (fragments: { fragmentId: string; version?: string }[], expected: { code: status; reason: string; field: string }) =>
      expectError(appCall(t, 'updateOrganization', { orgId: org, defaultFragments: { fragments } }, owner), expected);
    await refuse([{ fragmentId: telemetry.id }, { fragmentId: '00000000-0000-4000-8000-000000000000' }], { code: status.NOT_FOUND, reason: 'FRAGMENT_NOT_FOUND', field: 'default_fragments.fragments[1].fragment_id' });
    await refuse([{ fragmentId: strangers.id }], { code: status.NOT_FOUND, reason: 'FRAGMENT_NOT_FOUND', field: 'default_fragments.fragments[0].fragment_id' });
    await refuse([{ fragmentId: safety.id, version: 'beta' }], { code: status.NOT_FOUND, reason: 'FRAGMENT_VERSION_NOT_FOUND', field: 'default_fragments.fragments[0].version' });
    await refuse([{ fragmentId: safety.id }, { fragmentId: safety.id }], { code: status.INVALID_ARGUMENT, reason: 'CONFIG_INVALID', field: 'default_fragments' });
    await refuse([{ fragmentId: '' }], { code: status.INVALID_ARGUMENT, reason: 'REQUIRED_FIELD_MISSING', field: 'default_fragments.fragments[0].fragment_id' });
    expect((await appCall(t, 'getOrganization', { orgId: org }, owner)).organization!.defaultFragments).toEqual([]);
  });

  it('keep a fragment another organization lists from being deleted, and a tag they ask for; the owner’s own list lets go of it', async () => {
    const home = (await appCall(t, 'createOrganization', { name: 'Publisher Co' }, owner)).organization!.id;
    const user = (await appCall(t, 'createOrganization', { name: 'Subscriber Co' }, owner)).organization!.id;
    const shared = await create('Shared defaults', {}, home, PUBLIC);
    await appCall(t, 'setFragmentTag', { fragmentId: shared.id, tag: 'stable' }, owner);
    await appCall(t, 'updateOrganization', { orgId: home, defaultFragments: { fragments: [{ fragmentId: shared.id }] } }, owner);
    await appCall(t, 'updateOrganization', { orgId: user, defaultFragments: { fragments: [{ fragmentId: shared.id, version: 'stable' }] } }, owner);
    await expectError(appCall(t, 'deleteFragment', { fragmentId: shared.id }, owner), { code: status.FAILED_PRECONDITION, reason: 'FRAGMENT_IN_USE', message: /the default fragments of organization "Subscriber Co"/ });
    await expectError(appCall(t, 'deleteFragmentTag', { fragmentId: shared.id, tag: 'stable' }, owner), { code: status.FAILED_PRECONDITION, reason: 'FRAGMENT_IN_USE', message: /Subscriber Co/ });
    await appCall(t, 'updateOrganization', { orgId: user, defaultFragments: { fragments: [] } }, owner);
    await appCall(t, 'deleteFragment', { fragmentId: shared.id }, owner);
    expect((await appCall(t, 'getOrganization', { orgId: home }, owner)).organization!.defaultFragments).toEqual([]);
  });
});

describe('ListMachineSummaries by fragment', () => {
  it('matches machines using a fragment directly or nested, following versions, and lists every fragment each machine uses', async () => {
    const org = (await appCall(t, 'createOrganization', { name: 'Summaries By Fragment' }, owner)).organization!.id;
    const site = (await appCall(t, 'createLocation', { orgId: org, name: 'Yard' }, owner)).location!.id;
    const leaf = await create('Leaf', sensor('leaf', 1), org);
    const mid = await create('Mid', { fragments: [leaf.id] }, org);
    await update(mid.id, 'Mid', {});
    const [a, b, c, d] = [await machine(site), await machine(site), await machine(site), await machine(site)];
    await configure(a.main, { fragments: [leaf.id] });
    await configure(b.main, { fragments: [mid.id] }); // the latest Mid nests nothing
    await configure(c.main, { fragments: [{ id: mid.id, version: '1' }] }); // revision 1 nests the leaf
    await appCall(t, 'setFragmentTag', { fragmentId: mid.id, tag: 'old', revision: '1' }, owner);
    await configure(d.main, { fragments: [{ id: mid.id, version: 'old' }] });
    const names = async (fragmentIds: string[]) => (await appCall(t, 'listMachineSummaries', { organizationId: org, fragmentIds }, owner)).machineSummaries.map((m) => m.machineId);
    expect((await names([leaf.id])).sort()).toEqual([a.robotId, c.robotId, d.robotId].sort());
    expect((await names([mid.id])).sort()).toEqual([b.robotId, c.robotId, d.robotId].sort());
    expect(await names(['00000000-0000-4000-8000-000000000000'])).toEqual([]);
    const summaries = (await appCall(t, 'listMachineSummaries', { organizationId: org }, owner)).machineSummaries;
    const of = (id: string) => summaries.find((m) => m.machineId === id)!.fragmentIds.sort();
    expect(of(a.robotId)).toEqual([leaf.id]);
    expect(of(b.robotId)).toEqual([mid.id]);
    expect(of(c.robotId)).toEqual([leaf.id, mid.id].sort());
    expect(of(d.robotId)).toEqual([leaf.id, mid.id].sort());
  });
});
