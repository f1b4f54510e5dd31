import { describe, expect, it } from 'vitest';
import type { EffectiveConfig, PartConfig } from '../../../../common/config';
import { err, ok } from '../../../../common/result';
import { fakeBridge } from '../../lib/testing/fake-transport';
import { PartsComparison } from './compare.svelte';

const part = (partId: string, configJson: string): PartConfig => ({ partId, machineId: 'm1', name: `${partId}-main`, configJson, lastUpdated: '2026-11-26T10:00:00.000Z', fromCache: false, syncedAt: '2026-11-26T10:00:00.000Z', draft: null });

function setup() {
  const { transport, bridge } = fakeBridge();
  transport
    .handle('config.part', (r) => (r.partId === 'gone' ? err('not-found', 'No such part.') : ok(part(r.partId, `{"own": "${r.partId}"}`))))
    .handle('config.effective', (r) => ok({ partId: r.partId, effective: { resolved: r.partId }, fromCache: r.partId === 'b' } as unknown as EffectiveConfig));
  return { transport, comparison: new PartsComparison(bridge) };
}

describe('two parts compared', () => {
  it('reads both own configs verbatim, named by their parts', async () => {
    const { comparison } = setup();
    await comparison.load('a', 'b', 'own');
    expect(comparison.left).toEqual({ partId: 'a', name: 'a-main', text: '{"own": "a"}', fromCache: false });
    expect(comparison.right?.text).toBe('{"own": "b"}');
  });

  it('reads both effective configs, laid out alike', async () => {
    const { comparison } = setup();
    await comparison.load('a', 'b', 'effective');
    expect(comparison.left?.text).toBe('{\n  "resolved": "a"\n}');
    expect(comparison.right).toMatchObject({ name: 'b-main', fromCache: true });
  });

  it('leaves a side not chosen empty, and keeps a side’s failure to show', async () => {
    const { transport, comparison } = setup();
    await comparison.load('a', '', 'own');
    expect(comparison.right).toBeNull();
    expect(transport.callsTo('config.part')).toEqual([{ partId: 'a' }]);
    await comparison.load('a', 'gone', 'own');
    expect(comparison.rightError?.message).toBe('No such part.');
    expect(comparison.left).not.toBeNull();
  });
});
