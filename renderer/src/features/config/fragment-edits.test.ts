import { describe, expect, it } from 'vitest';
import { addFragment, fragmentRefs, modRowProblem, modsOf, removeFragment, setFragmentRef, setMods } from './fragment-edits';

// Spacing and key order a person might have left: the edits must not touch them.
const config = `{
    "agent": {"version": "0.41.0"},
    "components": [ { "name": "bumper", "model": "gpio" } ],
    "fragments": [
        "f-amr",
        { "id": "f-cam", "version": "stable", "note": "kept" }
    ],
    "fragment_mods": [
        { "fragment_id": "f-amr", "mods": [ { "$set": { "components.base.attributes.max_speed_mps": 0.8 } } ] }
    ]
}`;

const untouched = (text: string) => {
  expect(text).toContain('"agent": {"version": "0.41.0"}');
  expect(text).toContain('"components": [ { "name": "bumper", "model": "gpio" } ]');
};

describe('fragment edits of a config text', () => {
  it('reads the refs, bare ids and objects alike', () => {
    expect(fragmentRefs(config)).toEqual([{ id: 'f-amr' }, { id: 'f-cam', version: 'stable' }]);
  });

  it('adds a fragment at a tag with a prefix, in the text’s own indentation, the rest verbatim', () => {
    const out = addFragment(config, { id: 'f-new', version: 'stable', prefix: 'rear-' });
    untouched(out);
    expect(fragmentRefs(out)).toEqual([{ id: 'f-amr' }, { id: 'f-cam', version: 'stable' }, { id: 'f-new', version: 'stable', prefix: 'rear-' }]);
    expect(out).toContain('\n        {\n            "id": "f-new"');
    expect(JSON.parse(addFragment('{"a": 1}', { id: 'x' }))).toEqual({ a: 1, fragments: ['x'] });
  });

  it('removes a fragment with its mods, leaving the rest', () => {
    const out = removeFragment(config, 0);
    untouched(out);
    expect(fragmentRefs(out)).toEqual([{ id: 'f-cam', version: 'stable' }]);
    expect(JSON.parse(out)).not.toHaveProperty('fragment_mods');
    expect(out).toContain('"note": "kept"');
  });

  it('changes the version and prefix: a bare id becomes an object, an object keeps its other keys', () => {
    const pinned = setFragmentRef(config, 0, { version: '2', prefix: 'a-' });
    untouched(pinned);
    expect(fragmentRefs(pinned)[0]).toEqual({ id: 'f-amr', version: '2', prefix: 'a-' });
    const latest = setFragmentRef(config, 1, {});
    expect(JSON.parse(latest).fragments[1]).toEqual({ id: 'f-cam', note: 'kept' });
    untouched(latest);
  });

  it('reads, replaces and removes a fragment’s mods', () => {
    expect(modsOf(config, 'f-amr')).toEqual([{ op: '$set', path: 'components.base.attributes.max_speed_mps', value: '0.8' }]);
    const out = setMods(config, 'f-amr', [
      { op: '$set', path: 'components.base.attributes.max_speed_mps', value: '1.2' },
      { op: '$unset', path: 'components.imu', value: '' },
    ]);
    untouched(out);
    expect(modsOf(out, 'f-amr')).toEqual([
      { op: '$set', path: 'components.base.attributes.max_speed_mps', value: '1.2' },
      { op: '$unset', path: 'components.imu', value: '' },
    ]);
    const added = setMods(config, 'f-cam', [{ op: '$set', path: 'components.cam.attributes.fps', value: '30' }]);
    expect(JSON.parse(added).fragment_mods).toHaveLength(2);
    expect(modsOf(added, 'f-amr')).toHaveLength(1);
    expect(JSON.parse(setMods(config, 'f-amr', [])).fragment_mods).toBeUndefined();
  });

  it('says what is wrong with a mod row', () => {
    expect(modRowProblem({ op: '$set', path: 'a.b', value: '20' })).toBeNull();
    expect(modRowProblem({ op: '$set', path: 'a.b', value: 'fast' })).toMatch(/not JSON/);
    expect(modRowProblem({ op: '$unset', path: 'a..b', value: '' })).toMatch(/dotted names/);
    expect(modRowProblem({ op: '$unset', path: 'a.b', value: '' })).toBeNull();
  });
});
