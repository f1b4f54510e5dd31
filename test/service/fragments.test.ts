// Fragments over a real socket: visibility, revisions and their history, versions by revision or tag,
// tags set, moved and deleted, listing by visibility, the parts a fragment reaches, configs that must
// resolve (themselves, cycles, unknown or unreadable fragments, nesting), and deleting what is in use.
import type { Metadata } from '@grpc/grpc-js';
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FragmentVisibility } from '../../proto/gen/fleet/app/v1/fragments';
import { appCall, bearer, createKeyWithOrg, expectError, ownerMetadata, scopedKey, startTestService, tokenFor, type TestService } from './helpers';

const PRIVATE = FragmentVisibility.FRAGMENT_VISIBILITY_PRIVATE;
const PUBLIC = FragmentVisibility.FRAGMENT_VISIBILITY_PUBLIC;

let t: TestService;
let owner: Metadata;
let orgId: string;
let robots = 0;
beforeAll(async () => {
  t = await startTestService();
  owner = await ownerMetadata(t);
  orgId = (await appCall(t, 'createOrganization', { name: 'Fragments Co' }, owner)).organization!.id;
});
afterAll(async () => {
  await t.stop();
});

const create = async (name: string, config: Record<string, unknown> = {}, visibility = FragmentVisibility.FRAGMENT_VISIBILITY_UNSPECIFIED, org = orgId, md = owner) =>
  (await appCall(t, 'createFragment', { orgId: org, name, config, visibility }, md)).fragment!;
const get = async (fragmentId: string, version = '', md = owner) => (await appCall(t, 'getFragment', { fragmentId, version }, md)).fragment!;
const update = async (fragmentId: string, request: Record<string, unknown>, md = owner) => (await appCall(t, 'updateFragment', { fragmentId, ...request }, md)).fragment!;
const lidar = (rate: number) => ({ components: [{ name: 'lidar', type: 'camera', model: 'rplidar-s2', attributes: { rate_hz: rate } }] });

/** A machine's main part in a new location of `org`. */
async function part(org = orgId, md = owner): Promise<{ id: string; name: string; robotId: string }> {
  robots += 1;
  const locationId = (await appCall(t, 'createLocation', { orgId: org, name: `Floor ${robots}` }, md)).location!.id;
  const robotId = (await appCall(t, 'newRobot', { name: `amr-${robots}`, locationId }, md)).id;
  const main = (await appCall(t, 'getRobotParts', { robotId }, md)).parts[0]!;
  return { id: main.id, name: main.name, robotId };
}
const useIn = (p: { id: string; name: string }, fragments: unknown[], md = owner) => appCall(t, 'updateRobotPart', { robotPartId: p.id, name: p.name, robotConfig: { fragments } }, md);

describe('CreateFragment', () => {
  it('makes a private fragment at revision 1 unless visibility says otherwise', async () => {
    const before = Date.now();
    const f = await create(' Lidar ', lidar(10));
    expect(f).toMatchObject({ name: 'Lidar', organizationId: orgId, organizationName: 'Fragments Co', visibility: PRIVATE, revision: '1', robotPartCount: 0, tags: [], config: lidar(10) });
    expect(f.revisions.map((r) => r.revision)).toEqual(['1']);
    expect(f.createdOn!.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(f.lastUpdated).toEqual(f.createdOn);
    expect((await create('Public one', {}, PUBLIC)).visibility).toBe(PUBLIC);
    expect((await create('No config')).config).toEqual({});
  });

  it('refuses a bad name, a bad visibility, fragment_mods, and a config that does not resolve', async () => {
    await expectError(appCall(t, 'createFragment', { orgId, name: ' ' }, owner), { code: status.INVALID_ARGUMENT, reason: 'REQUIRED_FIELD_MISSING', field: 'name' });
    await expectError(appCall(t, 'createFragment', { orgId, name: 'x', visibility: 7 as FragmentVisibility }, owner), { code: status.INVALID_ARGUMENT, reason: 'ENUM_VALUE_INVALID', field: 'visibility' });
    await expectError(appCall(t, 'createFragment', { orgId, name: 'x', config: { fragment_mods: [] } }, owner), { code: status.INVALID_ARGUMENT, reason: 'CONFIG_INVALID', field: 'config', message: /only a machine part's config may have/ });
    await expectError(appCall(t, 'createFragment', { orgId, name: 'x', config: { fragments: ['00000000-0000-4000-8000-000000000000'] } }, owner), {
      code: status.INVALID_ARGUMENT,
      reason: 'CONFIG_INVALID',
      field: 'config',
      message: /fragments\[0\] names fragment "00000000-0000-4000-8000-000000000000", which does not exist/,
    });
  });
});

describe('UpdateFragment', () => {
  it('makes the next revision at each update, keeping config and visibility when absent; each revision with its history entry', async () => {
    const f = await create('AMR base', lidar(10));
    const editor = await scopedKey(t, [{ resourceType: 'organization', resourceId: orgId, role: 'owner', organizationId: orgId }]);
    const r2 = await update(f.id, { name: 'AMR base', config: lidar(15) }, editor.metadata);
    expect(r2).toMatchObject({ revision: '2', config: lidar(15), visibility: PRIVATE });
    const r3 = await update(f.id, { name: 'AMR base v3' });
    expect(r3).toMatchObject({ revision: '3', name: 'AMR base v3', config: lidar(15), visibility: PRIVATE });
    const r4 = await update(f.id, { name: 'AMR base v3', visibility: PUBLIC });
    expect(r4).toMatchObject({ revision: '4', visibility: PUBLIC, config: lidar(15) });
    expect(r4.revisions.map((r) => r.revision)).toEqual(['1', '2', '3', '4']);
    expect(r4.lastUpdated!.getTime()).toBeGreaterThan(r3.lastUpdated!.getTime());

    const { history } = await appCall(t, 'getFragmentHistory', { id: f.id }, owner);
    expect(history.map((h) => [h.revision, h.old?.revision, h.old?.name, h.old?.visibility, JSON.stringify(h.old?.config), h.editedBy?.displayName])).toEqual([
      ['4', '3', 'AMR base v3', PRIVATE, JSON.stringify(lidar(15)), 'bootstrap'],
      ['3', '2', 'AMR base', PRIVATE, JSON.stringify(lidar(15)), 'bootstrap'],
      ['2', '1', 'AMR base', PRIVATE, JSON.stringify(lidar(10)), 'scoped'],
      // The creation: who and when, with no state before it.
      ['1', undefined, undefined, undefined, undefined, 'bootstrap'],
    ]);
    expect(history[2]!.editedBy).toEqual({ identityType: '', identityId: editor.keyId, displayName: 'scoped' });
    expect(history[0]!.editedOn).toEqual(r4.lastUpdated);
    expect(history[3]!.editedOn).toEqual(f.createdOn);
  });

  it('takes the deprecated public alone, refuses it disagreeing with visibility, and an UNSPECIFIED visibility', async () => {
    const f = await create('Legacy');
    expect((await update(f.id, { name: 'Legacy', public: true })).visibility).toBe(PUBLIC);
    expect((await update(f.id, { name: 'Legacy', public: false, visibility: PRIVATE })).visibility).toBe(PRIVATE);
    await expectError(appCall(t, 'updateFragment', { fragmentId: f.id, name: 'Legacy', public: true, visibility: PRIVATE }, owner), { code: status.INVALID_ARGUMENT, reason: 'VISIBILITY_CONFLICT' });
    await expectError(appCall(t, 'updateFragment', { fragmentId: f.id, name: 'Legacy', visibility: FragmentVisibility.FRAGMENT_VISIBILITY_UNSPECIFIED }, owner), {
      code: status.INVALID_ARGUMENT,
      reason: 'ENUM_VALUE_INVALID',
      field: 'visibility',
    });
    await expectError(appCall(t, 'updateFragment', { fragmentId: '00000000-0000-4000-8000-000000000000', name: 'x' }, owner), { code: status.NOT_FOUND, reason: 'FRAGMENT_NOT_FOUND' });
    expect((await get(f.id)).revision).toBe('3');
  });

  it('refuses a stale last_known_update (ABORTED, STALE_UPDATE) and lets the current one through', async () => {
    const f = await create('Contended', lidar(1));
    const a = await update(f.id, { name: 'Contended', config: lidar(2), lastKnownUpdate: f.lastUpdated });
    await expectError(appCall(t, 'updateFragment', { fragmentId: f.id, name: 'Contended', config: lidar(3), lastKnownUpdate: f.lastUpdated }, owner), { code: status.ABORTED, reason: 'STALE_UPDATE', message: /read it again, merge/ });
    expect((await update(f.id, { name: 'Contended', config: lidar(4), lastKnownUpdate: a.lastUpdated })).revision).toBe('3');
    expect((await update(f.id, { name: 'Contended', config: lidar(5) })).revision).toBe('4');
  });

  it('refuses a config naming the fragment itself, forming a cycle, nesting too deep, or asking for an unknown version', async () => {
    const a = await create('Cycle A');
    const b = await create('Cycle B', { fragments: [a.id] });
    const refuse = (id: string, name: string, config: Record<string, unknown>, message: RegExp) =>
      expectError(appCall(t, 'updateFragment', { fragmentId: id, name, config }, owner), { code: status.INVALID_ARGUMENT, reason: 'CONFIG_INVALID', field: 'config', message });
    await refuse(a.id, 'Cycle A', { fragments: [a.id] }, /fragments\[0\] names the fragment itself/);
    await refuse(a.id, 'Cycle A', { fragments: [b.id] }, new RegExp(`forms a cycle of fragments: fragment "Cycle A" \\(${a.id}\\) → fragment "Cycle B" \\(${b.id}\\) → fragment "Cycle A"`));
    await refuse(a.id, 'Cycle A', { fragments: [{ id: b.id, version: 'stable' }] }, /asks for version "stable" of fragment "Cycle B"/);
    // A chain of four below a fragment is the most: five below a part.
    let below = await create('Level 5');
    for (const level of [4, 3, 2]) below = await create(`Level ${level}`, { fragments: [below.id] });
    const top = await create('Level 1', { fragments: [below.id] });
    await refuse(a.id, 'Cycle A', { fragments: [top.id] }, /nests fragments 6 levels deep .*at most 5 levels/);
    expect((await get(a.id)).revision).toBe('1');
  });
});

describe('GetFragment', () => {
  it('reads the latest revision, a revision or a tag: the config and revision asked for, the current name and visibility', async () => {
    const f = await create('Versions', lidar(1));
    await update(f.id, { name: 'Versions', config: lidar(2) });
    await appCall(t, 'setFragmentTag', { fragmentId: f.id, tag: 'stable', revision: '1' }, owner);
    await update(f.id, { name: 'Versions renamed', config: lidar(3), visibility: PUBLIC });
    expect(await get(f.id)).toMatchObject({ revision: '3', config: lidar(3), name: 'Versions renamed', visibility: PUBLIC });
    expect(await get(f.id, '2')).toMatchObject({ revision: '2', config: lidar(2), name: 'Versions renamed', visibility: PUBLIC });
    const stable = await get(f.id, 'stable');
    expect(stable).toMatchObject({ revision: '1', config: lidar(1) });
    expect(stable.tags.map((x) => [x.tag, x.revision])).toEqual([['stable', '1']]);
    expect(stable.revisions.map((r) => r.revision)).toEqual(['1', '2', '3']);
    for (const version of ['4', 'beta', 'v1', '0']) {
      await expectError(appCall(t, 'getFragment', { fragmentId: f.id, version }, owner), { code: status.NOT_FOUND, reason: 'FRAGMENT_VERSION_NOT_FOUND', field: 'version' });
    }
    await expectError(appCall(t, 'getFragment', { fragmentId: '00000000-0000-4000-8000-000000000000' }, owner), { code: status.NOT_FOUND, reason: 'FRAGMENT_NOT_FOUND' });
  });

  it('shows public fragments to any signed-in caller and private ones to the owning organization only', async () => {
    const open = await create('Open to all', lidar(1), PUBLIC);
    const closed = await create('Ours only', lidar(1));
    const stranger = await createKeyWithOrg(t, 'Stranger Co');
    const theirs = bearer(await tokenFor(t, stranger.keyId, stranger.secret));
    expect((await get(open.id, '', theirs)).organizationName).toBe('Fragments Co');
    await expectError(appCall(t, 'getFragment', { fragmentId: closed.id }, theirs), { code: status.NOT_FOUND, reason: 'FRAGMENT_NOT_FOUND', message: /no fragment .* is visible to this API key/ });
    // A role on a location or machine of the organization does not show its private fragments.
    const p = await part();
    const machineOwner = await scopedKey(t, [{ resourceType: 'robot', resourceId: p.robotId, role: 'owner', organizationId: orgId }]);
    await expectError(appCall(t, 'getFragment', { fragmentId: closed.id }, machineOwner.metadata), { code: status.NOT_FOUND, reason: 'FRAGMENT_NOT_FOUND' });
    expect((await get(open.id, '', machineOwner.metadata)).id).toBe(open.id);
  });
});

describe('GetFragmentHistory', () => {
  it('pages newest first, 10 by default, with page_limit and page_token', async () => {
    const f = await create('Busy', { n: 0 });
    for (let n = 1; n <= 11; n++) await update(f.id, { name: 'Busy', config: { n } });
    const first = await appCall(t, 'getFragmentHistory', { id: f.id }, owner);
    expect(first.history.map((h) => h.revision)).toEqual(['12', '11', '10', '9', '8', '7', '6', '5', '4', '3']);
    const second = await appCall(t, 'getFragmentHistory', { id: f.id, pageToken: first.nextPageToken }, owner);
    expect(second.history.map((h) => h.revision)).toEqual(['2', '1']);
    expect(second.nextPageToken).toBe('');
    expect(second.history[0]!.old?.config).toEqual({ n: 0 });
    const small = await appCall(t, 'getFragmentHistory', { id: f.id, pageLimit: 5 }, owner);
    expect(small.history).toHaveLength(5);
    expect((await appCall(t, 'getFragmentHistory', { id: f.id, pageLimit: 500 }, owner)).history).toHaveLength(12);
    await expectError(appCall(t, 'getFragmentHistory', { id: f.id, pageLimit: -1 }, owner), { code: status.INVALID_ARGUMENT, reason: 'PAGE_SIZE_INVALID', field: 'page_limit' });
    await expectError(appCall(t, 'getFragmentHistory', { id: f.id, pageToken: 'bogus' }, owner), { code: status.INVALID_ARGUMENT, reason: 'PAGE_TOKEN_INVALID' });
    const other = await create('Other');
    await expectError(appCall(t, 'getFragmentHistory', { id: other.id, pageToken: first.nextPageToken }, owner), { code: status.INVALID_ARGUMENT, reason: 'PAGE_TOKEN_INVALID' });
    await expectError(appCall(t, 'getFragmentHistory', { id: '00000000-0000-4000-8000-000000000000' }, owner), { code: status.NOT_FOUND, reason: 'FRAGMENT_NOT_FOUND' });
  });
});

describe('ListFragments', () => {
  it('lists the organization’s fragments by name: visibilities decide when given, else show_public (absent or true: public, false: private)', async () => {
    const org = (await appCall(t, 'createOrganization', { name: 'Listing Co' }, owner)).organization!.id;
    for (const [name, v] of [['c-public', PUBLIC], ['a-private', PRIVATE], ['b-public', PUBLIC], ['d-private', PRIVATE]] as const) await create(name, {}, v, org);
    const names = async (request: Record<string, unknown>) => (await appCall(t, 'listFragments', { orgId: org, ...request }, owner)).fragments.map((f) => f.name);
    expect(await names({})).toEqual(['b-public', 'c-public']);
    expect(await names({ showPublic: true })).toEqual(['b-public', 'c-public']);
    expect(await names({ showPublic: false })).toEqual(['a-private', 'd-private']);
    expect(await names({ visibilities: [PRIVATE, PUBLIC] })).toEqual(['a-private', 'b-public', 'c-public', 'd-private']);
    expect(await names({ visibilities: [PRIVATE], showPublic: true })).toEqual(['a-private', 'd-private']);
    await expectError(appCall(t, 'listFragments', { orgId: org, visibilities: [PUBLIC, 0] }, owner), { code: status.INVALID_ARGUMENT, reason: 'ENUM_VALUE_INVALID', field: 'visibilities[1]' });
    const seen: string[] = [];
    let token = '';
    do {
      const page = await appCall(t, 'listFragments', { orgId: org, visibilities: [PRIVATE, PUBLIC], pageSize: 3, pageToken: token }, owner);
      seen.push(...page.fragments.map((f) => f.name));
      token = page.nextPageToken;
    } while (token !== '');
    expect(seen).toEqual(['a-private', 'b-public', 'c-public', 'd-private']);
  });
});

describe('what a fragment reaches', () => {
  it('counts the parts that use it directly or through other fragments, at any revision; a tracking part follows updates, a pinned one stays', async () => {
    const sensor = await create('Reach lidar', lidar(10));
    const base = await create('Reach base', { components: [{ name: 'base', type: 'base' }], fragments: [sensor.id] });
    const direct = await part();
    const nested = await part();
    const pinned = await part();
    await useIn(direct, [sensor.id]);
    await useIn(nested, [base.id]);
    await useIn(pinned, [{ id: base.id, version: '1' }]);
    expect((await get(sensor.id)).robotPartCount).toBe(3);
    expect((await get(base.id)).robotPartCount).toBe(2);
    // The base's latest revision no longer nests the lidar: only the part pinned to revision 1 still reaches it through the base.
    await update(base.id, { name: 'Reach base', config: { components: [{ name: 'base', type: 'base' }] } });
    expect((await get(sensor.id)).robotPartCount).toBe(2);
    // A tag on revision 1 is one more way to reach it.
    await appCall(t, 'setFragmentTag', { fragmentId: base.id, tag: 'stable', revision: '1' }, owner);
    await useIn(nested, [{ id: base.id, version: 'stable' }]);
    expect((await get(sensor.id)).robotPartCount).toBe(3);
    await appCall(t, 'setFragmentTag', { fragmentId: base.id, tag: 'stable', revision: '2' }, owner);
    expect((await get(sensor.id)).robotPartCount).toBe(2);
    expect((await appCall(t, 'listFragments', { orgId, visibilities: [PRIVATE] }, owner)).fragments.find((f) => f.id === sensor.id)?.robotPartCount).toBe(2);
  });

  it('lets a part use public fragments and its organization’s own; another organization’s private one is unknown to a stranger and unreadable to a member of both', async () => {
    const otherOrg = (await appCall(t, 'createOrganization', { name: 'Neighbour Co' }, owner)).organization!.id;
    const theirsPublic = await create('Neighbour public', lidar(1), PUBLIC, otherOrg);
    const theirsPrivate = await create('Neighbour private', lidar(1), PRIVATE, otherOrg);
    const p = await part();
    await useIn(p, [theirsPublic.id]);
    expect((await get(theirsPublic.id)).robotPartCount).toBe(1);
    // The bootstrap key owns both organizations: it sees the private fragment, so it is told why.
    await expectError(useIn(p, [theirsPrivate.id]), { code: status.INVALID_ARGUMENT, reason: 'CONFIG_INVALID', message: /is private to another organization/ });
    const ours = await scopedKey(t, [{ resourceType: 'organization', resourceId: orgId, role: 'owner', organizationId: orgId }]);
    await expectError(useIn(p, [theirsPrivate.id], ours.metadata), { code: status.INVALID_ARGUMENT, reason: 'CONFIG_INVALID', message: /which does not exist or which this organization cannot read/ });
  });
});

describe('tags', () => {
  it('sets, moves and deletes tags named by the rule, answering the fragment’s tags', async () => {
    const f = await create('Tagged', lidar(1));
    await update(f.id, { name: 'Tagged', config: lidar(2) });
    const set = async (tag: string, revision = '') => (await appCall(t, 'setFragmentTag', { fragmentId: f.id, tag, revision }, owner)).tags.map((x) => `${x.tag}=${x.revision}`);
    expect(await set('stable', '1')).toEqual(['stable=1']);
    expect(await set('canary')).toEqual(['canary=2', 'stable=1']);
    expect(await set('stable', '2')).toEqual(['canary=2', 'stable=2']);
    expect((await appCall(t, 'deleteFragmentTag', { fragmentId: f.id, tag: 'canary' }, owner)).tags.map((x) => x.tag)).toEqual(['stable']);
    for (const [tag, reason] of [['', 'REQUIRED_FIELD_MISSING'], ['v2', 'FIELD_INVALID'], ['2fast', 'FIELD_INVALID'], ['Stable', 'FIELD_INVALID'], ['a.b', 'FIELD_INVALID'], ['x'.repeat(61), 'FIELD_TOO_LONG']] as const) {
      await expectError(appCall(t, 'setFragmentTag', { fragmentId: f.id, tag, revision: '1' }, owner), { code: status.INVALID_ARGUMENT, reason, field: 'tag' });
    }
    await expectError(appCall(t, 'setFragmentTag', { fragmentId: f.id, tag: 'x', revision: 'v1' }, owner), { code: status.INVALID_ARGUMENT, reason: 'FIELD_INVALID', field: 'revision' });
    await expectError(appCall(t, 'setFragmentTag', { fragmentId: f.id, tag: 'x', revision: '9' }, owner), { code: status.NOT_FOUND, reason: 'FRAGMENT_VERSION_NOT_FOUND', field: 'revision' });
    await expectError(appCall(t, 'deleteFragmentTag', { fragmentId: f.id, tag: 'canary' }, owner), { code: status.NOT_FOUND, reason: 'FRAGMENT_VERSION_NOT_FOUND', field: 'tag' });
  });

  it('refuses to delete a tag a part or another fragment asks for', async () => {
    const f = await create('Pinned by tag', lidar(1));
    await appCall(t, 'setFragmentTag', { fragmentId: f.id, tag: 'stable' }, owner);
    const p = await part();
    await useIn(p, [{ id: f.id, version: 'stable' }]);
    await expectError(appCall(t, 'deleteFragmentTag', { fragmentId: f.id, tag: 'stable' }, owner), { code: status.FAILED_PRECONDITION, reason: 'FRAGMENT_IN_USE', message: /asked for by 1 machine part/ });
    await useIn(p, []);
    const parent = await create('Asks for stable', { fragments: [{ id: f.id, version: 'stable' }] });
    await expectError(appCall(t, 'deleteFragmentTag', { fragmentId: f.id, tag: 'stable' }, owner), { code: status.FAILED_PRECONDITION, reason: 'FRAGMENT_IN_USE', message: new RegExp(parent.id) });
    await update(parent.id, { name: 'Asks for stable', config: {} });
    await appCall(t, 'deleteFragmentTag', { fragmentId: f.id, tag: 'stable' }, owner);
  });
});

describe('DeleteFragment', () => {
  it('refuses while parts (directly or nested) or other fragments use it, with the count; deletes it, its revisions and tags, once unused', async () => {
    const leaf = await create('Doomed leaf', lidar(1));
    const parent = await create('Doomed parent', { fragments: [leaf.id] });
    await appCall(t, 'setFragmentTag', { fragmentId: leaf.id, tag: 'stable' }, owner);
    const a = await part();
    const b = await part();
    await useIn(a, [leaf.id]);
    await useIn(b, [parent.id]);
    await expectError(appCall(t, 'deleteFragment', { fragmentId: leaf.id }, owner), {
      code: status.FAILED_PRECONDITION,
      reason: 'FRAGMENT_IN_USE',
      message: new RegExp(`still used by 2 machine parts \\(directly or through other fragments\\) and by fragment Doomed parent \\(${parent.id}\\)`),
    });
    await useIn(a, []);
    await useIn(b, []);
    await expectError(appCall(t, 'deleteFragment', { fragmentId: leaf.id }, owner), { code: status.FAILED_PRECONDITION, reason: 'FRAGMENT_IN_USE', message: /by fragment Doomed parent/ });
    await appCall(t, 'deleteFragment', { fragmentId: parent.id }, owner);
    await appCall(t, 'deleteFragment', { fragmentId: leaf.id }, owner);
    await expectError(appCall(t, 'getFragment', { fragmentId: leaf.id }, owner), { code: status.NOT_FOUND, reason: 'FRAGMENT_NOT_FOUND' });
    for (const table of ['fragment_revisions', 'fragment_tags', 'fragment_refs']) expect(t.db().prepare(`SELECT count(*) FROM ${table} WHERE fragment_id IN (?, ?)`).pluck().get(leaf.id, parent.id), table).toBe(0);
  });
});
