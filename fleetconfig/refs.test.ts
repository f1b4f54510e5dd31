import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkConfigText, checkConfigValue, depthOf, MAX_CONFIG_BYTES, MAX_CONFIG_DEPTH, utf8Length, type JsonObject } from './json';
import { parseFragmentMods, parseFragments, tagProblem, versionKind } from './refs';

describe('parseFragments', () => {
  it('reads ids and {id, version, prefix} objects in order; an empty version tracks the latest', () => {
    const { refs, problems } = parseFragments({ fragments: ['a', { id: 'b', version: '3' }, { id: 'c', version: 'stable', prefix: 'left-' }, { id: 'd', version: '' }, { id: 'e', version: null, prefix: null }] });
    expect(problems).toEqual([]);
    expect(refs).toEqual([
      { id: 'a', prefix: '', path: 'fragments[0]', index: 0 },
      { id: 'b', version: '3', prefix: '', path: 'fragments[1]', index: 1 },
      { id: 'c', version: 'stable', prefix: 'left-', path: 'fragments[2]', index: 2 },
      { id: 'd', prefix: '', path: 'fragments[3]', index: 3 },
      { id: 'e', prefix: '', path: 'fragments[4]', index: 4 },
    ]);
    expect(parseFragments({ components: [] })).toEqual({ refs: [], problems: [] });
  });

  it('names the path and the fault of every malformed entry, keeping the good ones', () => {
    const { refs, problems } = parseFragments({
      fragments: ['ok', '', 7, { version: '1' }, { id: 3 }, { id: 'x', verison: '2' }, { id: 'y', prefix: 'a.b' }, { id: 'z', version: 4 }, 'ok', { id: 'ok', prefix: 'p-' }, 'x'.repeat(201)],
    });
    expect(refs.map((r) => `${r.id}/${r.prefix}`)).toEqual(['ok/', 'ok/p-']);
    expect(problems.map((p) => p.path)).toEqual(['fragments[1]', 'fragments[2]', 'fragments[3]', 'fragments[4].id', 'fragments[5]', 'fragments[6].prefix', 'fragments[7].version', 'fragments[8]', 'fragments[10]']);
    expect(problems.find((p) => p.path === 'fragments[5]')?.message).toMatch(/unknown key "verison"/);
    expect(problems.find((p) => p.path === 'fragments[8]')?.message).toMatch(/names fragment "ok" again, as fragments\[0\] does/);
    expect(parseFragments({ fragments: { id: 'a' } }).problems[0]).toMatchObject({ path: 'fragments', message: expect.stringMatching(/must be an array/) });
  });
});

describe('parseFragmentMods', () => {
  it('reads $set and $unset of dotted paths per fragment', () => {
    const { entries, problems } = parseFragmentMods({
      fragment_mods: [{ fragment_id: 'f', mods: [{ $set: { 'components.lidar.attributes.rate_hz': 20, 'network.port': 8080 } }, { $unset: { 'components.imu': '' } }] }],
    });
    expect(problems).toEqual([]);
    expect(entries).toEqual([
      {
        fragmentId: 'f',
        path: 'fragment_mods[0]',
        mods: [
          { op: '$set', path: 'components.lidar.attributes.rate_hz', value: 20, at: 'fragment_mods[0].mods[0]' },
          { op: '$set', path: 'network.port', value: 8080, at: 'fragment_mods[0].mods[0]' },
          { op: '$unset', path: 'components.imu', at: 'fragment_mods[0].mods[1]' },
        ],
      },
    ]);
  });

  it('refuses what is not of that shape, saying where', () => {
    const { entries, problems } = parseFragmentMods({
      fragment_mods: [
        'x',
        { fragment_id: '', mods: [] },
        { fragment_id: 'f', mods: {} },
        { fragment_id: 'f', mods: [{ $set: { a: 1 }, $unset: { b: 1 } }] },
        { fragment_id: 'f', mods: [{ $push: { a: 1 } }] },
        { fragment_id: 'f', mods: [{ $set: { 'a..b': 1 } }] },
        { fragment_id: 'f', mods: [{ $set: [] }] },
        { fragment_id: 'f', mods: [], extra: 1 },
        { fragment_id: 'g', mods: [] },
      ],
    });
    expect(entries.map((e) => e.fragmentId)).toEqual(['g']);
    expect(problems.map((p) => p.path)).toEqual([
      'fragment_mods[0]',
      'fragment_mods[1].fragment_id',
      'fragment_mods[2].mods',
      'fragment_mods[3].mods[0]',
      'fragment_mods[4].mods[0]',
      'fragment_mods[5].mods[0].$set',
      'fragment_mods[6].mods[0].$set',
      'fragment_mods[7]',
    ]);
  });
});

describe('versions and tags', () => {
  it('tells the latest, revisions and tags apart', () => {
    expect(versionKind(undefined)).toEqual({ kind: 'latest' });
    expect(versionKind('')).toEqual({ kind: 'latest' });
    expect(versionKind('12')).toEqual({ kind: 'revision', revision: 12 });
    expect(versionKind('012')).toEqual({ kind: 'tag', tag: '012' });
    expect(versionKind('stable')).toEqual({ kind: 'tag', tag: 'stable' });
  });

  it('accepts tags of lowercase letters, digits, - and _, not starting with a digit or v, at most 60 characters', () => {
    for (const ok of ['stable', 'prod-2026', 'a', '_x', '-beta', 'w'.repeat(60)]) expect(tagProblem(ok), ok).toBeUndefined();
    for (const bad of ['', '1st', 'v2', 'version', 'Stable', 'a b', 'a.b', 'ü', 'x'.repeat(61)]) expect(tagProblem(bad), bad).toBeDefined();
  });

  it('never takes a valid tag for a revision', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z0-9_-]{1,60}$/), (tag) => {
        if (tagProblem(tag) === undefined) expect(versionKind(tag).kind).toBe('tag');
      }),
    );
  });
});

describe('config bounds', () => {
  it('takes JSON objects only, within the size and depth bounds, saying what is wrong', () => {
    expect(checkConfigText('{"b": 1, "a": 2}')).toEqual({ ok: true, config: { b: 1, a: 2 } });
    expect(checkConfigText('[1]')).toEqual({ ok: false, message: 'the config must be a JSON object, not an array' });
    expect(checkConfigText('null')).toMatchObject({ ok: false, message: expect.stringMatching(/not null/) });
    expect(checkConfigText('{"a":')).toMatchObject({ ok: false, message: expect.stringMatching(/not valid JSON/) });
    expect(checkConfigText(`{"a": "${'x'.repeat(MAX_CONFIG_BYTES)}"}`)).toMatchObject({ ok: false, message: expect.stringMatching(/MiB of JSON/) });
    const deep = `${'{"a":'.repeat(MAX_CONFIG_DEPTH + 1)}1${'}'.repeat(MAX_CONFIG_DEPTH + 1)}`;
    expect(checkConfigText(deep)).toMatchObject({ ok: false, message: expect.stringMatching(/nests more than 32/) });
    const deepest = `${'{"a":'.repeat(MAX_CONFIG_DEPTH)}1${'}'.repeat(MAX_CONFIG_DEPTH)}`;
    expect(checkConfigText(deepest).ok).toBe(true);
    expect(checkConfigText(`${'['.repeat(200_000)}${']'.repeat(200_000)}`).ok).toBe(false);
    expect(checkConfigValue('x')).toMatchObject({ ok: false });
  });

  it('counts depth and UTF-8 length as JSON.parse and TextEncoder would', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.string({ unit: 'grapheme' }), (value, text) => {
        expect(depthOf(value)).toBe(naiveDepth(value));
        expect(utf8Length(text)).toBe(new TextEncoder().encode(text).length);
      }),
    );
    const object: JsonObject = { a: [{ b: [] }] };
    expect(depthOf(object)).toBe(4);
  });
});

function naiveDepth(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  return 1 + Math.max(0, ...(Array.isArray(value) ? value : Object.values(value)).map(naiveDepth));
}
