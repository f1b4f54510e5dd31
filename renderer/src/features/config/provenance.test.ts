import { describe, expect, it } from 'vitest';
import type { EffectiveConfig } from '../../../../common/config';
import { ok } from '../../../../common/result';
import { fakeBridge, settle } from '../../lib/testing/fake-transport';
import { EffectiveConfigView } from './effective.svelte';
import { markConfig } from './provenance';

const base = { kind: 'fragment', fragmentId: 'amr', revision: '3', chain: ['amr'] } as const;
const lidar = { kind: 'fragment', fragmentId: 'lidar', revision: '2', chain: ['amr', 'lidar'] } as const;
const config: EffectiveConfig = {
  partId: 'p1',
  machineId: 'm1',
  configJson: '{}',
  lastUpdated: '2026-11-26T10:00:00.000Z',
  effective: {
    agent: { version: '1.5.9' },
    components: [
      { name: 'bumper', type: 'input_controller' },
      { name: 'base', type: 'base', attributes: { max_speed_mps: 0.8 } },
      { name: 'rear-lidar', type: 'camera' },
    ],
  },
  fragments: [
    { id: 'amr', name: 'AMR base', revision: '3', prefix: '', depth: 1, chain: ['amr'], path: 'fragments[0]' },
    { id: 'lidar', name: 'Lidar', revision: '2', version: '2', prefix: 'rear-', depth: 2, chain: ['amr', 'lidar'], path: 'fragments[0] › fragments[0]' },
  ],
  blocks: [
    { section: 'components', index: 0, name: 'bumper', source: { kind: 'own' } },
    { section: 'components', index: 1, name: 'base', source: base },
    { section: 'components', index: 2, name: 'rear-lidar', originalName: 'lidar', source: lidar },
  ],
  fields: [{ key: 'agent', source: { kind: 'own' } }],
  mods: [
    { entry: 0, fragmentId: 'amr', op: '$set', path: 'components.base.attributes.max_speed_mps', at: 'fragment_mods[0].mods[0]', applied: true, overrode: base, previous: 1.5 },
    { entry: 0, fragmentId: 'amr', op: '$unset', path: 'components.gone.attributes', at: 'fragment_mods[0].mods[1]', applied: false, reason: 'no component named gone' },
  ],
  issues: [],
  fromCache: false,
  syncedAt: '2026-11-26T10:00:00.000Z',
};

describe('an effective config marked with its provenance', () => {
  it('finds each block in the text and groups them by source, with the nesting chain and renames', () => {
    const marked = markConfig(config);
    expect(JSON.parse(marked.text)).toEqual(config.effective);
    expect(marked.groups.map((g) => [g.label, g.chain, g.color])).toEqual([
      ['Own config', '', -1],
      ['AMR base r3', '', 0],
      ['Lidar r2', 'AMR base › Lidar', 1],
    ]);
    const [, baseBlock, lidarBlock] = marked.blocks;
    expect(JSON.parse(marked.text.slice(baseBlock?.from, baseBlock?.to))).toEqual({ name: 'base', type: 'base', attributes: { max_speed_mps: 0.8 } });
    expect(lidarBlock?.label).toBe('rear-lidar (was lidar)');
  });

  it('marks the value a mod set, says what it replaced, and lists a mod not applied without a place', () => {
    const [set, unset] = markConfig(config).mods;
    const text = markConfig(config).text;
    expect(text.slice(set?.from, set?.to)).toBe('0.8');
    expect(set?.label).toBe('Set by fragment_mods[0].mods[0] on AMR base (was 1.5, from AMR base r3)');
    expect(unset?.from).toBe(-1);
    expect(unset?.label).toMatch(/not applied: no component named gone/);
  });

  it('resolves the stored config, or the unsaved edit (said so)', async () => {
    const { transport, bridge } = fakeBridge();
    transport.handle('config.effective', () => ok(config));
    const view = new EffectiveConfigView(bridge, 'p1');
    await view.load();
    expect(view.ofEdit).toBe(false);
    await view.load('{"components": []}');
    await settle();
    expect(transport.callsTo('config.effective')).toEqual([{ partId: 'p1' }, { partId: 'p1', configJson: '{"components": []}' }]);
    expect(view.ofEdit).toBe(true);
    expect(view.marked?.blocks).toHaveLength(3);
  });
});
