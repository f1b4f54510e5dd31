/**
 * Effective configs, a machine's fragments and a fragment's reach, through the backend against a
 * real fleet service on a loopback port: an AMR base fragment nesting a lidar fragment with a
 * prefix, used by one machine that tracks its latest revision (with a machine-level mod), one pinned
 * to revision 1 and one asking for the tag "stable". Changing the fragment changes only the tracking
 * machine; moving the tag changes the third; a preview shows either before it is made; offline, the
 * cached fragments resolve the same.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EffectiveConfig } from '../../common/config';
import type { FragmentView } from '../../common/fragments';
import { trustedSender } from '../helpers/backend';
import { startConfigFleet, type ConfigFleet } from '../helpers/config-fleet';

let fleet: ConfigFleet;
let lidar: FragmentView;
let base: FragmentView;
const machines = { tracking: { machineId: '', partId: '' }, pinned: { machineId: '', partId: '' }, tagged: { machineId: '', partId: '' } };

const BASE_V1 = { components: [{ name: 'base', model: 'diff-drive' }] };
const BASE_V2 = { components: [{ name: 'base', model: 'omni-drive' }] };

async function setPartConfig(partId: string, config: object) {
  const { lastUpdated } = await fleet.a.value('config.part', { partId });
  return fleet.a.value('config.save', { partId, configJson: JSON.stringify(config), lastUpdated });
}

const model = (e: EffectiveConfig, name: string) => (e.effective.components as { name: string; model?: string }[]).find((c) => c.name === name)?.model;

beforeAll(async () => {
  fleet = await startConfigFleet('effective');
  const create = (name: string, config: object) => fleet.a.value('fragments.create', { orgId: fleet.orgId, name, configJson: JSON.stringify(config) });
  lidar = await create('Lidar', { components: [{ name: 'lidar', model: 'rplidar', attributes: { rate_hz: 10 } }] });
  base = await create('AMR base', { ...BASE_V1, fragments: [{ id: lidar.fragment.id, prefix: 'front-' }] });
  await fleet.a.value('fragments.setTag', { fragmentId: base.fragment.id, tag: 'stable', revision: '1' });
  machines.tracking = await fleet.machine('amr-tracking');
  machines.pinned = await fleet.machine('amr-pinned');
  machines.tagged = await fleet.machine('amr-tagged');
  await setPartConfig(machines.tracking.partId, {
    components: [{ name: 'cam', model: 'rgb' }],
    fragments: [base.fragment.id],
    fragment_mods: [{ fragment_id: lidar.fragment.id, mods: [{ $set: { 'components.front-lidar.attributes.rate_hz': 20 } }] }],
  });
  await setPartConfig(machines.pinned.partId, { fragments: [{ id: base.fragment.id, version: '1' }] });
  await setPartConfig(machines.tagged.partId, { fragments: [{ id: base.fragment.id, version: 'stable' }] });
}, 60_000);
afterAll(async () => {
  await fleet?.close();
});

async function failure(result: Promise<{ ok: boolean; error?: { kind: string; message: string } }>) {
  const r = await result;
  expect(r.ok).toBe(false);
  return r.error!;
}

describe('effective config', () => {
  it('brings in the fragments depth first, prefix applied, with where every block came from and what each mod overrode', async () => {
    const e = await fleet.a.value('config.effective', { partId: machines.tracking.partId });
    expect(e).toMatchObject({ partId: machines.tracking.partId, machineId: machines.tracking.machineId, fromCache: false, issues: [] });
    expect(e.effective).toEqual({
      components: [
        { name: 'cam', model: 'rgb' },
        { name: 'base', model: 'diff-drive' },
        { name: 'front-lidar', model: 'rplidar', attributes: { rate_hz: 20 } },
      ],
    });
    expect(e.blocks).toEqual([
      { section: 'components', index: 0, name: 'cam', source: { kind: 'own' } },
      { section: 'components', index: 1, name: 'base', source: { kind: 'fragment', fragmentId: base.fragment.id, revision: '1', chain: [base.fragment.id] } },
      {
        section: 'components',
        index: 2,
        name: 'front-lidar',
        originalName: 'lidar',
        source: { kind: 'fragment', fragmentId: lidar.fragment.id, revision: '1', chain: [base.fragment.id, lidar.fragment.id] },
      },
    ]);
    expect(e.fragments.map((f) => [f.name, f.depth, f.prefix])).toEqual([
      ['AMR base', 1, ''],
      ['Lidar', 2, 'front-'],
    ]);
    expect(e.mods).toEqual([expect.objectContaining({ applied: true, path: 'components.front-lidar.attributes.rate_hz', previous: 10, overrode: expect.objectContaining({ fragmentId: lidar.fragment.id }) })]);
  });

  it("lists the machine's fragments with their revisions and tags, and more on request", async () => {
    const listed = await fleet.a.value('config.machineFragments', { machineId: machines.tagged.machineId });
    expect(listed.fromCache).toBe(false);
    expect(listed.fragments.map((f) => [f.name, f.revision])).toEqual([
      ['AMR base', '1'],
      ['Lidar', '1'],
    ]);
    expect(listed.fragments[0]!.tags).toEqual([expect.objectContaining({ tag: 'stable', revision: '1' })]);
    expect(listed.fragments[0]!.config).toEqual({ ...BASE_V1, fragments: [{ id: lidar.fragment.id, prefix: 'front-' }] });
    const other = await fleet.a.value('fragments.create', { orgId: fleet.orgId, name: 'Spare', configJson: '{}' });
    const more = await fleet.a.value('config.machineFragments', { machineId: machines.tagged.machineId, additionalFragmentIds: [other.fragment.id] });
    expect(more.fragments.map((f) => f.name)).toContain('Spare');
  });

  it('resolves an unsaved edit, fetching the fragment versions the machine does not use yet', async () => {
    const e = await fleet.a.value('config.effective', { partId: machines.pinned.partId, configJson: JSON.stringify({ fragments: [{ id: lidar.fragment.id, version: '1', prefix: 'rear-' }] }) });
    expect(e.issues).toEqual([]);
    expect(e.effective).toEqual({ components: [{ name: 'rear-lidar', model: 'rplidar', attributes: { rate_hz: 10 } }] });
    const unknown = await fleet.a.value('config.effective', { partId: machines.pinned.partId, configJson: '{"fragments": ["no-such-fragment"]}' });
    expect(unknown.issues.map((i) => i.kind)).toEqual(['unknown-fragment']);
  });

  it('previews a save of the fragment: the tracking machine would change, the pinned and tagged ones would not', async () => {
    const preview = { fragmentId: base.fragment.id, configJson: JSON.stringify({ ...BASE_V2, fragments: [{ id: lidar.fragment.id, prefix: 'front-' }] }) };
    const tracking = await fleet.a.value('config.effective', { partId: machines.tracking.partId, preview });
    expect(model(tracking, 'base')).toBe('omni-drive');
    expect(tracking.fragments[0]!.revision).toBe('2');
    expect(model(await fleet.a.value('config.effective', { partId: machines.pinned.partId, preview }), 'base')).toBe('diff-drive');
    expect(model(await fleet.a.value('config.effective', { partId: machines.tagged.partId, preview }), 'base')).toBe('diff-drive');
    // Only a preview: nothing changed.
    expect(model(await fleet.a.value('config.effective', { partId: machines.tracking.partId }), 'base')).toBe('diff-drive');
  });

  it('says how many machines a change reaches before it is made: directly and through nesting', async () => {
    const usage = await fleet.a.value('fragments.usage', { fragmentId: base.fragment.id });
    expect(usage).toMatchObject({ fragmentId: base.fragment.id, orgId: fleet.orgId, partCount: 3, machineCount: 3 });
    expect(usage.machines.map((m) => m.machineName).sort()).toEqual(['amr-pinned', 'amr-tagged', 'amr-tracking']);
    expect(usage.machines.every((m) => m.locationId === fleet.locationId && m.locationName !== '')).toBe(true);
    const nested = await fleet.a.value('fragments.usage', { fragmentId: lidar.fragment.id, orgId: fleet.orgId });
    expect(nested).toMatchObject({ partCount: 3, machineCount: 3 });
    expect((await failure(fleet.a.call('fragments.usage', { fragmentId: 'no-such-fragment' }))).kind).toBe('not-found');
  });

  it('changes the tracking machine when the fragment changes, and not the pinned or tagged ones', async () => {
    const current = await fleet.a.value('fragments.get', { fragmentId: base.fragment.id });
    await fleet.a.value('fragments.update', { fragmentId: base.fragment.id, lastUpdated: current.fragment.lastUpdated, configJson: JSON.stringify({ ...BASE_V2, fragments: [{ id: lidar.fragment.id, prefix: 'front-' }] }) });
    const tracking = await fleet.a.value('config.effective', { partId: machines.tracking.partId });
    expect(model(tracking, 'base')).toBe('omni-drive');
    expect(tracking.blocks.find((b) => b.name === 'base')?.source).toMatchObject({ revision: '2' });
    expect(model(await fleet.a.value('config.effective', { partId: machines.pinned.partId }), 'base')).toBe('diff-drive');
    expect(model(await fleet.a.value('config.effective', { partId: machines.tagged.partId }), 'base')).toBe('diff-drive');
  });

  it('previews a tag move, then moving it changes the machine asking for the tag', async () => {
    const preview = { fragmentId: base.fragment.id, tag: 'stable', revision: '2' };
    expect(model(await fleet.a.value('config.effective', { partId: machines.tagged.partId, preview }), 'base')).toBe('omni-drive');
    expect(model(await fleet.a.value('config.effective', { partId: machines.pinned.partId, preview }), 'base')).toBe('diff-drive');
    await fleet.a.value('fragments.setTag', { fragmentId: base.fragment.id, tag: 'stable', revision: '2' });
    expect(model(await fleet.a.value('config.effective', { partId: machines.tagged.partId }), 'base')).toBe('omni-drive');
    expect(model(await fleet.a.value('config.effective', { partId: machines.pinned.partId }), 'base')).toBe('diff-drive');
  });
});

describe('payloads the bridge refuses, with what is wrong', () => {
  it.each([
    ['config.effective', { partId: 'p', preview: { fragmentId: 'f' } }, /preview must give either configJson .* or tag with revision/],
    ['config.effective', { partId: 'p', preview: { fragmentId: 'f', configJson: '{}', tag: 'stable', revision: '2' } }, /preview must give either configJson/],
    ['config.effective', { partId: 'p', preview: { fragmentId: 'f', tag: 'stable' } }, /preview must give tag and revision together/],
    ['config.effective', { partId: 'p', preview: { fragmentId: 'f', tag: 'stable', revision: 'two' } }, /preview.revision must be a revision number/],
    ['config.effective', { partId: 'p', configJson: '[]' }, /configJson must be a JSON object/],
    ['config.machineFragments', { machineId: 'm', additionalFragmentIds: ['a', 'a'] }, /additionalFragmentIds names a fragment twice/],
    ['config.machineFragments', { machineId: 'm', additionalFragmentIds: Array.from({ length: 101 }, (_, i) => `f${i}`) }, /additionalFragmentIds names more than 100/],
    ['fragments.usage', { fragmentId: '' }, /fragmentId must not be empty/],
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
  let online: EffectiveConfig;

  beforeAll(async () => {
    online = await fleet.a.value('config.effective', { partId: machines.tracking.partId });
    await fleet.a.value('config.effective', { partId: machines.pinned.partId });
    await fleet.stopService();
  });
  afterAll(async () => {
    await fleet.startService();
  });

  it('resolves from the cached config and fragments the same as online, saying so', async () => {
    const e = await fleet.a.value('config.effective', { partId: machines.tracking.partId });
    expect(e.fromCache).toBe(true);
    expect(e.effective).toEqual(online.effective);
    expect(e.blocks).toEqual(online.blocks);
    expect(e.mods).toEqual(online.mods);
    // An unsaved edit resolves with what the cache holds; a preview of the next revision needs nothing more.
    const preview = { fragmentId: base.fragment.id, configJson: JSON.stringify({ components: [{ name: 'base', model: 'tracked' }] }) };
    expect(model(await fleet.a.value('config.effective', { partId: machines.tracking.partId, preview }), 'base')).toBe('tracked');
    const listed = await fleet.a.value('config.machineFragments', { machineId: machines.pinned.machineId });
    expect(listed.fromCache).toBe(true);
    expect(listed.fragments.map((f) => [f.name, f.revision])).toEqual([['AMR base', '1'], ['Lidar', '1']]);
  });

  it('says a machine never read is not in the cache', async () => {
    expect((await failure(fleet.b.call('config.effective', { partId: machines.tracking.partId }))).kind).toBe('offline');
    expect((await failure(fleet.a.call('fragments.usage', { fragmentId: base.fragment.id }))).kind).toBe('offline');
  });
});
