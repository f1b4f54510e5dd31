import { describe, expect, it } from 'vitest';
import type { EffectiveConfig, PartConfig, ResolvedFragment } from '../../../../common/config';
import { err, ok } from '../../../../common/result';
import { fakeBridge, settle } from '../../lib/testing/fake-transport';
import { fragmentTree, MachineFragmentsPage } from './machine-fragments.svelte';

const resolved = (id: string, depth: number, path: string, extra: Partial<ResolvedFragment> = {}): ResolvedFragment => ({ id, name: id.toUpperCase(), revision: '2', prefix: '', depth, chain: [id], path, ...extra });

// Spacing and key order as a person left them: edits must keep them.
const stored = '{\n    "agent": {"version": "0.41.0"},\n    "fragments": ["amr", {"id": "cam", "version": "stable"}],\n    "components": [ {"name": "bumper"} ]\n}';
const part = (configJson: string, lastUpdated: string): PartConfig => ({ partId: 'p1', machineId: 'm1', name: 'amr-1-main', configJson, lastUpdated, fromCache: false, syncedAt: lastUpdated, draft: null });
const effective = (configJson: string): EffectiveConfig => ({
  partId: 'p1',
  machineId: 'm1',
  configJson,
  lastUpdated: '2026-11-26T10:00:00.000Z',
  effective: {},
  fragments: [resolved('amr', 1, 'fragments[0]'), resolved('lidar', 2, 'fragments[0] › fragments[0]', { version: '3', chain: ['amr', 'lidar'] }), resolved('cam', 1, 'fragments[1]', { version: 'stable', prefix: 'rear-' })],
  blocks: [],
  fields: [],
  mods: [],
  issues: [],
  fromCache: false,
  syncedAt: '2026-11-26T10:00:00.000Z',
});

describe('the fragment tree', () => {
  it('nests each fragment under the last shallower one, with the version asked and the top-level index', () => {
    const tree = fragmentTree([...effective(stored).fragments, resolved('deep', 3, 'x'), resolved('solo', 1, 'fragments[2]')].map((f, i) => (i === 3 ? { ...f, depth: 3 } : f)));
    expect(tree.map((n) => n.label)).toEqual(['AMR', 'CAM', 'SOLO']);
    const [amr, cam, solo] = tree;
    expect(amr?.children?.map((n) => n.label)).toEqual(['LIDAR']);
    expect(amr?.data).toMatchObject({ topIndex: 0, asked: 'latest' });
    expect(amr?.children?.[0]?.data).toMatchObject({ topIndex: null, asked: 'revision 3' });
    // A depth past its parent's (3 under a depth-1 node) nests under the deepest open node.
    expect(cam?.children?.map((n) => n.label)).toEqual(['DEEP']);
    expect(cam?.data).toMatchObject({ topIndex: 1, asked: 'tag stable' });
    expect(solo?.children).toBeUndefined();
  });
});

/** A page over main faked: `service` is what the service has now. */
async function setup() {
  const { transport, bridge } = fakeBridge();
  let service = part(stored, '2026-11-26T10:00:00.000Z');
  transport
    .handle('config.part', () => ok(service))
    .handle('config.effective', () => ok(effective(service.configJson)))
    .handle('config.machineFragments', () => ok({ machineId: 'm1', fragments: [], fromCache: false, syncedAt: '2026-11-26T10:00:00.000Z' }))
    .handle('config.save', (r) => {
      if (r.lastUpdated !== service.lastUpdated) return err('conflict', 'Someone else changed this config since you read it.');
      service = part(r.configJson, '2026-11-26T10:05:00.000Z');
      return ok(service);
    });
  const page = new MachineFragmentsPage(bridge, 'o1', 'm1');
  await page.load('p1');
  await settle();
  const theyChange = (configJson: string) => (service = part(configJson, '2026-11-26T10:02:00.000Z'));
  return { transport, page, theyChange, saved: () => service.configJson };
}

describe('a machine fragments page', () => {
  it('loads the tree of the main part', async () => {
    const { page } = await setup();
    expect(page.error).toBeNull();
    expect(page.tree.map((n) => n.label)).toEqual(['AMR', 'CAM']);
  });

  it('adds, re-versions, overrides and removes fragments, each saved with its conflict token and the rest of the text verbatim', async () => {
    const { transport, page, saved } = await setup();
    expect((await page.add({ id: 'lidar', version: 'stable', prefix: 'rear-' }, 'Lidar')).ok).toBe(true);
    expect(transport.callsTo('config.save')[0]).toMatchObject({ partId: 'p1', lastUpdated: '2026-11-26T10:00:00.000Z' });
    expect(JSON.parse(saved()).fragments).toEqual(['amr', { id: 'cam', version: 'stable' }, { id: 'lidar', version: 'stable', prefix: 'rear-' }]);
    expect((await page.setRef(0, { version: '2' }, 'AMR')).ok).toBe(true);
    expect(JSON.parse(saved()).fragments[0]).toEqual({ id: 'amr', version: '2' });
    expect((await page.setMods('amr', [{ op: '$set', path: 'components.base.attributes.max_speed_mps', value: '0.8' }], 'AMR')).ok).toBe(true);
    expect(page.mods('amr')).toEqual([{ op: '$set', path: 'components.base.attributes.max_speed_mps', value: '0.8' }]);
    expect((await page.remove(1, 'CAM')).ok).toBe(true);
    expect(JSON.parse(saved()).fragments.map((f: string | { id: string }) => (typeof f === 'string' ? f : f.id))).toEqual(['amr', 'lidar']);
    expect(saved()).toContain('"agent": {"version": "0.41.0"}');
    expect(saved()).toContain('"components": [ {"name": "bumper"} ]');
    expect(page.part?.lastUpdated).toBe('2026-11-26T10:05:00.000Z');
  });

  it('someone saved meanwhile: nothing is overwritten, the config is reloaded and the user asked to retry', async () => {
    const { page, theyChange, saved } = await setup();
    const theirs = stored.replace('"bumper"', '"bumper-2"');
    theyChange(theirs);
    const result = await page.add({ id: 'lidar' }, 'Lidar');
    expect(result.ok).toBe(false);
    expect(saved()).toBe(theirs);
    expect(page.saveError).toMatch(/try again/);
    expect(page.part?.configJson).toBe(theirs);
    expect((await page.add({ id: 'lidar' }, 'Lidar')).ok).toBe(true);
    expect(saved()).toContain('"bumper-2"');
  });

  it('a machine without a main part says so', async () => {
    const { bridge } = fakeBridge();
    const page = new MachineFragmentsPage(bridge, 'o1', 'm1');
    await page.load(null);
    expect(page.error?.message).toMatch(/no main part/);
  });
});
