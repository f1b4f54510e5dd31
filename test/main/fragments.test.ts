/**
 * Fragments through the backend, as the renderer calls them, against a real fleet service on a
 * loopback port with two apps (real backends, real SQLite caches): an organization's list (filter,
 * search, usage count), revisions and tags, the conflict of a stale update, history pages, deletes
 * refused while in use, default fragments of an organization, offline reads from the cache after the
 * service stops, and payloads the bridge refuses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FragmentView } from '../../common/fragments';
import { trustedSender } from '../helpers/backend';
import { startConfigFleet, type ConfigFleet } from '../helpers/config-fleet';

let fleet: ConfigFleet;

beforeAll(async () => {
  fleet = await startConfigFleet('fragments');
}, 60_000);
afterAll(async () => {
  await fleet?.close();
});

async function failure(result: Promise<{ ok: boolean; error?: { kind: string; message: string } }>) {
  const r = await result;
  expect(r.ok).toBe(false);
  return r.error!;
}

const create = (name: string, config: object = {}, visibility?: 'private' | 'public') =>
  fleet.a.value('fragments.create', { orgId: fleet.orgId, name, configJson: JSON.stringify(config), ...(visibility ? { visibility } : {}) });

/** Update the fragment's config from what `from` read, answering the new view. */
const update = (from: FragmentView, config: object) => fleet.a.value('fragments.update', { fragmentId: from.fragment.id, lastUpdated: from.fragment.lastUpdated, configJson: JSON.stringify(config) });

/** Point a part's config at `config` (from whatever it holds now). */
async function setPartConfig(partId: string, config: object) {
  const { lastUpdated } = await fleet.a.value('config.part', { partId });
  return fleet.a.value('config.save', { partId, configJson: JSON.stringify(config), lastUpdated });
}

describe("an organization's fragments", () => {
  it('creates a private fragment at revision 1 by default, and lists by visibility and search with the usage count', async () => {
    const lidar = await create('Lidar 2D', { components: [{ name: 'lidar', model: 'rplidar' }] });
    expect(lidar).toMatchObject({ revision: '1', fromCache: false, draft: null });
    expect(lidar.fragment).toMatchObject({ name: 'Lidar 2D', orgId: fleet.orgId, visibility: 'private', latestRevision: '1', partCount: 0, tags: [] });
    expect(lidar.fragment.revisions.map((r) => r.revision)).toEqual(['1']);
    expect(JSON.parse(lidar.configJson)).toEqual({ components: [{ name: 'lidar', model: 'rplidar' }] });
    const pub = await create('Public camera', { components: [{ name: 'cam' }] }, 'public');
    expect(pub.fragment.visibility).toBe('public');

    const all = await fleet.a.value('fragments.list', { orgId: fleet.orgId });
    expect(all.fromCache).toBe(false);
    expect(all.fragments.map((f) => f.name)).toEqual(expect.arrayContaining(['Lidar 2D', 'Public camera']));
    const names = all.fragments.map((f) => f.name);
    expect([...names].sort()).toEqual(names);
    expect((await fleet.a.value('fragments.list', { orgId: fleet.orgId, visibilities: ['public'] })).fragments.every((f) => f.visibility === 'public')).toBe(true);
    expect((await fleet.a.value('fragments.list', { orgId: fleet.orgId, search: 'LIDAR' })).fragments.map((f) => f.id)).toEqual([lidar.fragment.id]);
    expect((await fleet.a.value('fragments.list', { orgId: fleet.orgId, search: lidar.fragment.id.slice(0, 12) })).fragments.map((f) => f.id)).toContain(lidar.fragment.id);

    // A part using it counts in the list.
    const { partId } = await fleet.machine('lidar-user');
    await setPartConfig(partId, { fragments: [lidar.fragment.id] });
    const listed = (await fleet.b.value('fragments.list', { orgId: fleet.orgId, search: 'Lidar 2D' })).fragments[0]!;
    expect(listed.partCount).toBe(1);
  });

  it("refuses the second app's stale update as a conflict that says so, changes nothing, and keeps the name when none is given", async () => {
    const base = await create('Shared base', { services: [] });
    const seenByB = await fleet.b.value('fragments.get', { fragmentId: base.fragment.id });
    const mine = await update(base, { services: [{ name: 'nav' }] });
    expect(mine.revision).toBe('2');
    const conflict = await failure(fleet.b.call('fragments.update', { fragmentId: base.fragment.id, lastUpdated: seenByB.fragment.lastUpdated, configJson: '{"services": []}' }));
    expect(conflict.kind).toBe('conflict');
    expect(conflict.message).toMatch(/someone else changed this fragment/i);
    const now = await fleet.b.value('fragments.get', { fragmentId: base.fragment.id });
    expect(now.revision).toBe('2');
    expect(JSON.parse(now.configJson)).toEqual({ services: [{ name: 'nav' }] });
    const merged = await fleet.b.value('fragments.update', { fragmentId: base.fragment.id, lastUpdated: now.fragment.lastUpdated, configJson: '{"services": [{"name": "nav"}, {"name": "slam"}]}' });
    expect(merged.revision).toBe('3');
    expect(merged.fragment.name).toBe('Shared base');
    // Visibility and name change without touching the config.
    const renamed = await fleet.b.value('fragments.update', { fragmentId: base.fragment.id, lastUpdated: merged.fragment.lastUpdated, name: 'Shared base v2', visibility: 'public' });
    expect(renamed.fragment).toMatchObject({ name: 'Shared base v2', visibility: 'public', latestRevision: '4' });
    expect(JSON.parse(renamed.configJson)).toEqual(JSON.parse(merged.configJson));
  });

  it('reads a revision or a tag, sets and moves tags, and says which version does not exist', async () => {
    const arm = await create('Arm', { components: [{ name: 'arm', attributes: { speed: 1 } }] });
    const second = await update(arm, { components: [{ name: 'arm', attributes: { speed: 2 } }] });
    const tagged = await fleet.a.value('fragments.setTag', { fragmentId: arm.fragment.id, tag: 'stable', revision: '1' });
    expect(tagged.tags).toEqual([expect.objectContaining({ tag: 'stable', revision: '1' })]);
    expect((await fleet.a.value('fragments.get', { fragmentId: arm.fragment.id, version: 'stable' })).configJson).toBe(arm.configJson);
    expect((await fleet.a.value('fragments.get', { fragmentId: arm.fragment.id, version: '2' })).configJson).toBe(second.configJson);
    const latest = await fleet.a.value('fragments.get', { fragmentId: arm.fragment.id });
    expect(latest).toMatchObject({ revision: '2' });
    expect(latest.fragment.tags.map((t) => t.tag)).toEqual(['stable']);
    // Moved to the latest (no revision given).
    expect((await fleet.a.value('fragments.setTag', { fragmentId: arm.fragment.id, tag: 'stable' })).tags[0]!.revision).toBe('2');
    expect((await fleet.a.value('fragments.get', { fragmentId: arm.fragment.id, version: 'stable' })).revision).toBe('2');
    expect((await failure(fleet.a.call('fragments.get', { fragmentId: arm.fragment.id, version: 'beta' }))).kind).toBe('not-found');
    expect((await failure(fleet.a.call('fragments.get', { fragmentId: arm.fragment.id, version: '9' }))).kind).toBe('not-found');
    expect((await failure(fleet.a.call('fragments.setTag', { fragmentId: arm.fragment.id, tag: 'beta', revision: '9' }))).kind).toBe('not-found');
    expect((await fleet.a.value('fragments.deleteTag', { fragmentId: arm.fragment.id, tag: 'stable' })).tags).toEqual([]);
  });

  it('pages the history newest first, one entry per revision, the creation last without a previous state', async () => {
    let current = await create('Busy', { n: 0 });
    for (let n = 1; n <= 11; n++) current = await update(current, { n });
    const revisions: string[] = [];
    const previous: unknown[] = [];
    let pageToken: string | undefined;
    let pages = 0;
    do {
      const page = await fleet.b.value('fragments.history', { fragmentId: current.fragment.id, pageSize: 5, ...(pageToken ? { pageToken } : {}) });
      expect(page.fromCache).toBe(false);
      for (const entry of page.entries) {
        revisions.push(entry.revision);
        previous.push(entry.previous === null ? null : (JSON.parse(entry.previous.configJson) as { n: number }).n);
        expect(entry.editedBy).toMatchObject({ kind: 'key', id: fleet.target.apiKeyId });
      }
      pageToken = page.nextPageToken || undefined;
      pages += 1;
    } while (pageToken && pages < 10);
    expect(pages).toBe(3);
    expect(revisions).toEqual(['12', '11', '10', '9', '8', '7', '6', '5', '4', '3', '2', '1']);
    expect(previous).toEqual([10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, null]);
  });

  it('refuses to delete a fragment, or a tag, while a part uses it (with the count), and deletes it once unused', async () => {
    const cam = await create('Wrist camera', { components: [{ name: 'wrist-cam' }] });
    await fleet.a.value('fragments.setTag', { fragmentId: cam.fragment.id, tag: 'stable', revision: '1' });
    const { partId } = await fleet.machine('camera-user');
    await setPartConfig(partId, { fragments: [{ id: cam.fragment.id, version: 'stable' }] });

    const refused = await failure(fleet.a.call('fragments.delete', { fragmentId: cam.fragment.id }));
    expect(refused.kind).toBe('conflict');
    expect(refused.message).toMatch(/1 machine part/);
    const tagRefused = await failure(fleet.a.call('fragments.deleteTag', { fragmentId: cam.fragment.id, tag: 'stable' }));
    expect(tagRefused.kind).toBe('conflict');
    expect(tagRefused.message).toMatch(/1 machine part/);
    expect((await fleet.a.value('fragments.get', { fragmentId: cam.fragment.id })).fragment.partCount).toBe(1);

    await setPartConfig(partId, {});
    expect(await fleet.a.value('fragments.delete', { fragmentId: cam.fragment.id })).toEqual({});
    expect((await failure(fleet.a.call('fragments.get', { fragmentId: cam.fragment.id }))).kind).toBe('not-found');
    expect((await fleet.a.value('fragments.list', { orgId: fleet.orgId })).fragments.map((f) => f.id)).not.toContain(cam.fragment.id);
  });
});

describe('what the service refuses in a fragment config', () => {
  it('passes on a self-reference and a cycle as invalid with the path, and nothing changes', async () => {
    const a = await create('Cycle A', {});
    const b = await create('Cycle B', { fragments: [a.fragment.id] });
    const self = await failure(fleet.a.call('fragments.update', { fragmentId: a.fragment.id, lastUpdated: a.fragment.lastUpdated, configJson: JSON.stringify({ fragments: [a.fragment.id] }) }));
    expect(self.kind).toBe('invalid');
    expect(self.message).toMatch(/fragments\[0\].*itself/);
    const cycle = await failure(fleet.a.call('fragments.update', { fragmentId: a.fragment.id, lastUpdated: a.fragment.lastUpdated, configJson: JSON.stringify({ fragments: [b.fragment.id] }) }));
    expect(cycle.kind).toBe('invalid');
    expect(cycle.message).toMatch(/cycle/);
    expect((await fleet.a.value('fragments.get', { fragmentId: a.fragment.id })).revision).toBe('1');
    expect((await failure(fleet.a.call('fragments.create', { orgId: 'no-such-org', name: 'x' }))).kind).toBe('not-found');
  });
});

describe("an organization's default fragments", () => {
  it('are set through orgs.update and given to machines created afterwards', async () => {
    const base = await create('Default base', { services: [{ name: 'telemetry' }] });
    await fleet.a.value('fragments.setTag', { fragmentId: base.fragment.id, tag: 'stable' });
    const org = await fleet.a.value('orgs.update', { orgId: fleet.orgId, defaultFragments: [{ fragmentId: base.fragment.id, version: 'stable' }] });
    expect(org.defaultFragments).toEqual([{ fragmentId: base.fragment.id, version: 'stable' }]);
    const { partId } = await fleet.machine('born-with-defaults');
    expect(JSON.parse((await fleet.a.value('config.part', { partId })).configJson)).toEqual({ fragments: [{ id: base.fragment.id, version: 'stable' }] });
    const unknown = await failure(fleet.a.call('orgs.update', { orgId: fleet.orgId, defaultFragments: [{ fragmentId: 'no-such-fragment' }] }));
    expect(unknown.kind).toBe('not-found');
    // An empty list clears them; absent leaves them alone.
    expect((await fleet.a.value('orgs.update', { orgId: fleet.orgId, defaultFragments: [] })).defaultFragments).toEqual([]);
    expect((await fleet.a.value('orgs.update', { orgId: fleet.orgId, region: 'eu' })).defaultFragments).toEqual([]);
  });
});

describe('fragment drafts', () => {
  it('keeps an edit with its base, shows it with the fragment, drops it once the update is saved', async () => {
    const base = await create('Drafted', { components: [] });
    const kept = await fleet.a.value('fragments.saveDraft', { fragmentId: base.fragment.id, configJson: '{"components": [{"name": "new"}]}', baseConfigJson: base.configJson, baseLastUpdated: base.fragment.lastUpdated });
    expect(kept).toMatchObject({ fragmentId: base.fragment.id, orgId: fleet.orgId, name: 'Drafted', baseLastUpdated: base.fragment.lastUpdated });
    expect((await fleet.a.value('fragments.get', { fragmentId: base.fragment.id })).draft).toEqual(kept);
    expect(await fleet.a.value('fragments.drafts', {})).toContainEqual(kept);
    // The other app has no such draft: drafts are this app's own.
    expect(await fleet.b.value('fragments.draft', { fragmentId: base.fragment.id })).toBeNull();
    const saved = await fleet.a.value('fragments.update', { fragmentId: base.fragment.id, lastUpdated: kept.baseLastUpdated, configJson: kept.configJson });
    expect(saved.draft).toBeNull();
    expect(await fleet.a.value('fragments.draft', { fragmentId: base.fragment.id })).toBeNull();
  });

  it('keeps a draft when its update is refused as a conflict, and drops it when asked', async () => {
    const base = await create('Raced', {});
    const kept = await fleet.a.value('fragments.saveDraft', { fragmentId: base.fragment.id, configJson: '{"mine": true}', baseConfigJson: base.configJson, baseLastUpdated: base.fragment.lastUpdated });
    const seen = await fleet.b.value('fragments.get', { fragmentId: base.fragment.id });
    await fleet.b.value('fragments.update', { fragmentId: base.fragment.id, lastUpdated: seen.fragment.lastUpdated, configJson: '{"theirs": true}' });
    expect((await failure(fleet.a.call('fragments.update', { fragmentId: base.fragment.id, lastUpdated: kept.baseLastUpdated, configJson: kept.configJson }))).kind).toBe('conflict');
    expect(await fleet.a.value('fragments.draft', { fragmentId: base.fragment.id })).toEqual(kept);
    await fleet.a.value('fragments.dropDraft', { fragmentId: base.fragment.id });
    expect(await fleet.a.value('fragments.draft', { fragmentId: base.fragment.id })).toBeNull();
  });
});

describe('payloads the bridge refuses, with what is wrong', () => {
  it.each([
    ['fragments.create', { orgId: 'o', name: 'x', configJson: '{"fragment_mods": []}' }, /configJson must not have fragment_mods/],
    ['fragments.create', { orgId: 'o', name: 'x', configJson: '[]' }, /configJson must be a JSON object/],
    ['fragments.create', { orgId: 'o', name: '', configJson: '{}' }, /name must not be empty/],
    ['fragments.create', { orgId: 'o', name: 'x', visibility: 'secret' }, /visibility must be "private" or "public"/],
    ['fragments.update', { fragmentId: 'f', configJson: '{}' }, /lastUpdated/],
    ['fragments.update', { fragmentId: 'f', lastUpdated: 'now' }, /lastUpdated must be an ISO-8601 time/],
    ['fragments.get', { fragmentId: 'f', version: 'v2' }, /version is neither a revision number nor a tag/],
    ['fragments.get', { fragmentId: 'f', version: '0' }, /version is neither a revision number nor a tag/],
    ['fragments.list', { orgId: 'o', visibilities: ['public', 'public'] }, /visibilities names a visibility twice/],
    ['fragments.list', { orgId: 'o', visibilities: [] }, /visibilities names no visibility/],
    ['fragments.setTag', { fragmentId: 'f', tag: 'Stable' }, /tag may hold only lowercase letters/],
    ['fragments.setTag', { fragmentId: 'f', tag: 'v2' }, /tag must not start with a digit or with v/],
    ['fragments.setTag', { fragmentId: 'f', tag: 'stable', revision: 'latest' }, /revision must be a revision number/],
    ['fragments.deleteTag', { fragmentId: 'f', tag: '' }, /tag must not be empty/],
    ['fragments.history', { fragmentId: 'f', pageSize: 101 }, /pageSize is at most 100/],
    ['fragments.history', { fragmentId: 'f', pageToken: 'forged' }, /pageToken is not a page token this app gave out/],
    ['orgs.update', { orgId: 'o', defaultFragments: [{ fragmentId: 'f', version: 'v1' }] }, /defaultFragments.0.version is neither a revision number nor a tag/],
    ['orgs.update', { orgId: 'o', defaultFragments: [{ fragmentId: 'f' }, { fragmentId: 'f' }] }, /defaultFragments names a fragment twice/],
    ['fragments.saveDraft', { fragmentId: 'f', configJson: '{"fragment_mods": []}', baseConfigJson: '{}', baseLastUpdated: '2026-01-01T00:00:00.000Z' }, /configJson must not have fragment_mods/],
    ['fragments.saveDraft', { fragmentId: 'f', configJson: '{}', baseConfigJson: '{}' }, /baseLastUpdated/],
    ['fragments.drafts', { orgId: 'o' }, /orgId/],
  ])('%s %#', async (channel, payload, message) => {
    const result = await fleet.a.host.dispatch(trustedSender, channel, payload);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.kind).toBe('invalid');
      expect(result.error.message).toMatch(message);
    }
  });
});

describe('offline, after the service stops', () => {
  let read: FragmentView;
  let tagged: FragmentView;
  let historyOnline: readonly unknown[];

  beforeAll(async () => {
    const first = await create('Offline reader', { n: 1 }, 'public');
    tagged = first;
    await fleet.a.value('fragments.setTag', { fragmentId: first.fragment.id, tag: 'stable', revision: '1' });
    read = await update(first, { n: 2 });
    await fleet.a.value('fragments.get', { fragmentId: first.fragment.id, version: 'stable' });
    await fleet.a.value('fragments.list', { orgId: fleet.orgId });
    historyOnline = (await fleet.a.value('fragments.history', { fragmentId: first.fragment.id })).entries;
    await fleet.stopService();
  });
  afterAll(async () => {
    await fleet.startService();
  });

  it('lists, reads at the latest, a revision or a tag, and pages the history from the cache, saying so', async () => {
    const id = read.fragment.id;
    const list = await fleet.a.value('fragments.list', { orgId: fleet.orgId, visibilities: ['public'], search: 'offline' });
    expect(list.fromCache).toBe(true);
    expect(list.syncedAt).not.toBeNull();
    expect(list.fragments.map((f) => f.id)).toEqual([id]);
    expect(list.fragments[0]!.tags.map((t) => t.tag)).toEqual(['stable']);
    const latest = await fleet.a.value('fragments.get', { fragmentId: id });
    expect(latest).toMatchObject({ revision: '2', configJson: read.configJson, fromCache: true });
    expect(latest.fragment.lastUpdated).toBe(read.fragment.lastUpdated);
    expect((await fleet.a.value('fragments.get', { fragmentId: id, version: 'stable' })).configJson).toBe(tagged.configJson);
    expect((await fleet.a.value('fragments.get', { fragmentId: id, version: '1' })).revision).toBe('1');
    const history = await fleet.a.value('fragments.history', { fragmentId: id });
    expect(history).toMatchObject({ fromCache: true, nextPageToken: '' });
    expect(history.entries).toEqual(historyOnline);
    const paged = await fleet.a.value('fragments.history', { fragmentId: id, pageSize: 1 });
    expect(paged.entries.map((e) => e.revision)).toEqual(['2']);
    expect((await fleet.a.value('fragments.history', { fragmentId: id, pageSize: 1, pageToken: paged.nextPageToken })).entries.map((e) => e.revision)).toEqual(['1']);
  });

  it('says what was never read is not in the cache, and that writes need the service', async () => {
    expect((await failure(fleet.b.call('fragments.get', { fragmentId: read.fragment.id, version: '1' }))).kind).toBe('offline');
    const write = await failure(fleet.a.call('fragments.update', { fragmentId: read.fragment.id, lastUpdated: read.fragment.lastUpdated, configJson: '{}' }));
    expect(write.kind).toBe('offline');
    expect(write.message).toMatch(/Nothing was changed/);
  });
});
