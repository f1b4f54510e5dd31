import { describe, expect, it } from 'vitest';
import { fixtureConfig } from '../testing/config-fixtures';
import { describeChanges, sameConfigValues, summarizeChange } from './summary';

const text = (value: unknown) => JSON.stringify(value, null, 2);

describe('summarizeChange', () => {
  const before = {
    components: [
      { name: 'base', api: 'rdk:component:base', model: 'rdk:builtin:wheeled', attributes: { width_mm: 400, wheel_circumference_mm: 200 } },
      { name: 'camera-1', api: 'rdk:component:camera', model: 'rdk:builtin:webcam' },
    ],
    fragments: ['lidar', { id: 'amr-base', version: 'stable' }],
    network: { fqdn: 'amr-1.local' },
  };

  it('names resources by name: added, removed, and changed with how many of their values', () => {
    const after = {
      components: [
        { name: 'base', api: 'rdk:component:base', model: 'rdk:builtin:wheeled', attributes: { width_mm: 420, wheel_circumference_mm: 210 } },
        { name: 'camera-1', api: 'rdk:component:camera', model: 'rdk:builtin:webcam' },
        { name: 'camera-2', api: 'rdk:component:camera', model: 'rdk:builtin:webcam' },
      ],
      fragments: [{ id: 'amr-base', version: 'stable' }],
      network: { fqdn: 'amr-1.local' },
    };
    expect(summarizeChange(text(before), text(after))).toBe('components: ~base (2 fields), +camera-2; fragments: -lidar');
  });

  it('sees an edited entry that also moved as itself, and says the order changed', () => {
    const after = { ...before, components: [{ ...before.components[1]!, model: 'acme:cams:x' }, before.components[0]] };
    expect(summarizeChange(text(before), text(after))).toBe('components: ~camera-1 (1 field), reordered');
  });

  it('counts values in sections that are not lists, and says when a section comes or goes', () => {
    const after = { components: before.components, fragments: before.fragments, network: { fqdn: 'amr-2.local', bind_address: ':8081' }, auth: { handlers: [] } };
    expect(summarizeChange(text(before), text(after))).toBe('network (2 fields); auth: added');
    expect(summarizeChange(text(after), text({ components: before.components }))).toBe('fragments: -lidar, -amr-base; network: removed; auth: removed');
  });

  it('shortens long lists of items', () => {
    const many = { components: Array.from({ length: 10 }, (_, i) => ({ name: `c${i}`, api: 'rdk:component:camera' })) };
    expect(summarizeChange(text({}), text(many))).toBe('components: +c0, +c1, +c2, +c3, and 6 more');
    expect(summarizeChange(text({}), text(many), 2)).toBe('components: +c0, +c1, and 8 more');
  });

  it('tells a change of layout only, no change, and text that is not JSON', () => {
    expect(summarizeChange(text(before), JSON.stringify(before))).toBe('Layout only (the same values)');
    expect(summarizeChange('{}', '{}')).toBe('No changes');
    expect(summarizeChange('{}', '{')).toBe('Config is not valid JSON');
    expect(summarizeChange('[', '{}')).toBe('Config was not valid JSON; now it is');
    expect(summarizeChange('', '{"a": 1}')).toBe('a: added');
  });

  it('keeps entries with the same name or without one apart', () => {
    const was = { components: [{ name: 'x', model: 'a' }, { name: 'x', model: 'b' }], processes: [{ name: 'no-id' }] };
    const now = { components: [{ name: 'x', model: 'a' }, { name: 'x', model: 'c' }], processes: [{ name: 'no-id', args: ['-v'] }] };
    expect(describeChanges(was, now)).toEqual([
      { section: 'components', kind: 'changed', items: [{ kind: 'changed', name: 'x (2)', fields: 1 }] },
      { section: 'processes', kind: 'changed', items: [{ kind: 'changed', name: '#0', fields: 1 }] },
    ]);
  });

  it('summarizes two 1 MiB configs quickly (keyed by name, not matched as lists)', () => {
    const base = fixtureConfig(5_000);
    const edited = fixtureConfig(5_000, (i, c) => (i === 10 ? [] : i === 4_999 ? [c, { ...c, name: 'new-cam' }] : i % 1_000 === 7 ? { ...c, model: 'acme:x:y' } : c));
    const started = performance.now();
    expect(summarizeChange(base, edited)).toBe('components: ~component-00007 (1 field), -component-00010, ~component-01007 (1 field), ~component-02007 (1 field), and 3 more');
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe('sameConfigValues', () => {
  it('sees the same values laid out otherwise as the same config, and any changed value as another', () => {
    expect(sameConfigValues('{"a":1,"b":[1,2]}', '{\n  "a": 1,\n  "b": [\n    1,\n    2\n  ]\n}')).toBe(true);
    expect(sameConfigValues('{"a":1}', '{"a":2}')).toBe(false);
    expect(sameConfigValues('{"a":1}', '{ "a": ')).toBe(false);
  });
});
