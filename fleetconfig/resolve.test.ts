import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from './json';
import { blockingIssues, lookupFrom, MAX_NESTING, resolveConfig, type FragmentLookup, type KnownFragment } from './resolve';

/** Fragments by id, each a list of revisions (revision n at index n - 1), with tags. */
type Store = Record<string, { name?: string; revisions: JsonObject[]; tags?: Record<string, string>; privateTo?: string }>;

function lookupIn(store: Store, org = 'mine'): FragmentLookup {
  const known: KnownFragment[] = Object.entries(store)
    .filter(([, f]) => f.privateTo === undefined || f.privateTo === org)
    .flatMap(([id, f]) => f.revisions.map((config, i) => ({ id, ...(f.name === undefined ? {} : { name: f.name }), revision: String(i + 1), config, latestRevision: String(f.revisions.length), tags: f.tags ?? {} })));
  const inner = lookupFrom(known);
  return (id, version) => (store[id]?.privateTo !== undefined && store[id]!.privateTo !== org ? { found: false, reason: 'unreadable' } : inner(id, version));
}

const base = (name: string, extra: JsonObject = {}): JsonObject => ({ components: [{ name, type: 'sensor', model: 'x', attributes: { rate_hz: 10 } }], ...extra });

describe('resolveConfig: the order', () => {
  it('keeps the config itself first, then each fragment with the fragments it nests before the next one', () => {
    const store: Store = {
      amr: { name: 'AMR base', revisions: [{ components: [{ name: 'base', type: 'base' }], fragments: ['lidar'], services: [{ name: 'nav', type: 'navigation' }] }] },
      lidar: { name: 'Lidar', revisions: [{ components: [{ name: 'lidar', type: 'camera' }] }] },
      cam: { name: 'Camera', revisions: [{ components: [{ name: 'cam', type: 'camera' }] }] },
    };
    const r = resolveConfig({ components: [{ name: 'own', type: 'arm' }], fragments: ['amr', 'cam'], network: { port: 1 } }, lookupIn(store));
    expect(r.issues).toEqual([]);
    expect(r.effective).toEqual({
      components: [
        { name: 'own', type: 'arm' },
        { name: 'base', type: 'base' },
        { name: 'lidar', type: 'camera' },
        { name: 'cam', type: 'camera' },
      ],
      network: { port: 1 },
      services: [{ name: 'nav', type: 'navigation' }],
    });
    expect(Object.keys(r.effective)).toEqual(['components', 'network', 'services']);
    expect(r.fragments.map((f) => [f.id, f.revision, f.depth, f.chain.join('>'), f.path])).toEqual([
      ['amr', '1', 1, 'amr', 'fragments[0]'],
      ['lidar', '1', 2, 'amr>lidar', 'fragments[0] › fragments[0]'],
      ['cam', '1', 1, 'cam', 'fragments[1]'],
    ]);
    expect(r.blocks.map((b) => `${b.section}.${b.name}:${b.source.kind === 'own' ? 'own' : b.source.chain.join('>')}`)).toEqual([
      'components.own:own',
      'components.base:amr',
      'components.lidar:amr>lidar',
      'components.cam:cam',
      'services.nav:amr',
    ]);
    expect(r.fields).toEqual([{ key: 'network', source: { kind: 'own' } }]);
  });

  it('resolves versions: latest when absent, a revision, a tag; each revision brings its own config', () => {
    const store: Store = { f: { revisions: [base('v1'), base('v2'), base('v3')], tags: { stable: '2' } } };
    const names = (version?: string) => {
      const r = resolveConfig({ fragments: [version === undefined ? 'f' : { id: 'f', version }] }, lookupIn(store));
      return [r.fragments[0]?.revision, (r.effective.components as JsonObject[] | undefined)?.[0]?.name];
    };
    expect(names()).toEqual(['3', 'v3']);
    expect(names('1')).toEqual(['1', 'v1']);
    expect(names('stable')).toEqual(['2', 'v2']);
    const missing = resolveConfig({ fragments: [{ id: 'f', version: 'beta' }, { id: 'f', version: '9', prefix: 'x-' }] }, lookupIn(store));
    expect(missing.issues.map((i) => [i.kind, i.path])).toEqual([
      ['unknown-version', 'fragments[0]'],
      ['unknown-version', 'fragments[1]'],
    ]);
    expect(missing.issues[0]!.message).toMatch(/asks for version "beta" of fragment "f", which has no such revision or tag/);
  });

  it('applies prefixes to names and depends_on, adding a nested fragment’s to its parent’s', () => {
    const store: Store = {
      arm: { revisions: [{ components: [{ name: 'arm', depends_on: ['cam', 7] }], fragments: [{ id: 'cam', prefix: 'wrist-' }] }] },
      cam: { revisions: [{ components: [{ name: 'cam' }] }] },
    };
    const r = resolveConfig({ fragments: [{ id: 'arm', prefix: 'left-' }, { id: 'arm', prefix: 'right-' }] }, lookupIn(store));
    expect(r.issues).toEqual([]);
    expect(r.effective.components).toEqual([
      { name: 'left-arm', depends_on: ['left-cam', 7] },
      { name: 'left-wrist-cam' },
      { name: 'right-arm', depends_on: ['right-cam', 7] },
      { name: 'right-wrist-cam' },
    ]);
    expect(r.blocks.map((b) => [b.name, b.originalName])).toEqual([
      ['left-arm', 'arm'],
      ['left-wrist-cam', 'cam'],
      ['right-arm', 'arm'],
      ['right-wrist-cam', 'cam'],
    ]);
    expect(r.fragments.map((f) => f.prefix)).toEqual(['left-', 'left-wrist-', 'right-', 'right-wrist-']);
  });

  it('keeps the first of two blocks of one name (the machine overrides a fragment), reporting the clash without blocking', () => {
    const store: Store = { f: { name: 'F', revisions: [{ components: [{ name: 'lidar', model: 'fragment' }, { name: 'imu' }], debug: true }] } };
    const r = resolveConfig({ components: [{ name: 'lidar', model: 'mine' }], debug: false, fragments: ['f'] }, lookupIn(store));
    expect(r.effective).toEqual({ components: [{ name: 'lidar', model: 'mine' }, { name: 'imu' }], debug: false });
    expect(r.issues.map((i) => [i.kind, i.path])).toEqual([
      ['conflict', 'components.lidar'],
      ['conflict', 'debug'],
    ]);
    expect(r.issues[0]!.message).toMatch(/components "lidar" from fragment "F" \(f\) at revision 1 is already defined by the config itself/);
    expect(blockingIssues(r)).toEqual([]);
  });

  it('brings a fragment reached twice at the same revision and prefix once (a diamond is no cycle)', () => {
    const store: Store = { a: { revisions: [{ fragments: ['c'] }] }, b: { revisions: [{ fragments: ['c'] }] }, c: { revisions: [base('c')] } };
    const r = resolveConfig({ fragments: ['a', 'b'] }, lookupIn(store));
    expect(r.issues).toEqual([]);
    expect(r.fragments.map((f) => f.id)).toEqual(['a', 'c', 'b']);
    expect(r.effective.components).toHaveLength(1);
  });
});

describe('resolveConfig: what blocks a config', () => {
  it('a fragment that names itself, a cycle, an unknown or unreadable fragment, nesting past 5 levels', () => {
    const store: Store = {
      self: { revisions: [{ fragments: ['self'] }] },
      a: { name: 'A', revisions: [{ fragments: ['b'] }] },
      b: { name: 'B', revisions: [{ fragments: ['a'] }] },
      theirs: { revisions: [{}], privateTo: 'other' },
    };
    const r = resolveConfig({ fragments: ['a', 'nope', 'theirs'] }, lookupIn(store));
    expect(r.issues.map((i) => [i.kind, i.path])).toEqual([
      ['cycle', 'fragments[0] › fragments[0] › fragments[0]'],
      ['unknown-fragment', 'fragments[1]'],
      ['unreadable-fragment', 'fragments[2]'],
    ]);
    expect(r.issues[0]!.message).toBe('fragments[0] › fragments[0] › fragments[0] forms a cycle of fragments: fragment "A" (a) → fragment "B" (b) → fragment "A" (a); a fragment cannot include itself, directly or through others');
    expect(r.issues[1]!.message).toBe('fragments[1] names fragment "nope", which does not exist or which this organization cannot read');
    // The fragment's own config, checked before it is stored.
    const own = resolveConfig({ fragments: ['self'] }, lookupIn(store), { selfId: 'self', level: 1 });
    expect(own.issues.map((i) => i.kind)).toEqual(['self-reference']);
    expect(resolveConfig({ fragments: ['b'] }, lookupIn(store), { selfId: 'a', selfName: 'A', level: 1 }).issues.map((i) => [i.kind, i.message])).toEqual([
      ['cycle', 'fragments[0] › fragments[0] forms a cycle of fragments: fragment "A" (a) → fragment "B" (b) → fragment "A" (a); a fragment cannot include itself, directly or through others'],
    ]);
  });

  it('allows 5 levels of nesting below a part, 4 below a fragment', () => {
    const chain = (n: number): Store => Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i + 1}`, { revisions: [i + 1 < n ? { fragments: [`f${i + 2}`] } : base('leaf')] }]));
    expect(blockingIssues(resolveConfig({ fragments: ['f1'] }, lookupIn(chain(MAX_NESTING))))).toEqual([]);
    const deep = resolveConfig({ fragments: ['f1'] }, lookupIn(chain(MAX_NESTING + 1)));
    expect(deep.issues.map((i) => i.kind)).toEqual(['too-deep']);
    expect(deep.issues[0]!.message).toMatch(/nests fragments 6 levels deep \(fragment "f1" → .* → fragment "f6"\); at most 5 levels/);
    expect(deep.fragments).toHaveLength(MAX_NESTING);
    expect(resolveConfig({ fragments: ['f2'] }, lookupIn(chain(MAX_NESTING)), { selfId: 'f1', level: 1 }).issues).toEqual([]);
    expect(resolveConfig({ fragments: ['f1'] }, lookupIn(chain(MAX_NESTING)), { selfId: 'top', level: 1 }).issues.map((i) => i.kind)).toEqual(['too-deep']);
  });

  it('a malformed fragments or fragment_mods key', () => {
    const r = resolveConfig({ fragments: [{ id: 1 }], fragment_mods: 'x' }, lookupIn({}));
    expect(blockingIssues(r).map((i) => [i.kind, i.path])).toEqual([
      ['malformed', 'fragments[0].id'],
      ['malformed', 'fragment_mods'],
    ]);
  });
});

describe('resolveConfig: fragment_mods', () => {
  const store: Store = {
    amr: { name: 'AMR base', revisions: [{ components: [{ name: 'base', attributes: { max_speed: 1.2, wheels: [1, 2] } }], fragments: [{ id: 'lidar', prefix: 'front-' }], network: { port: 8080 } }] },
    lidar: { name: 'Lidar', revisions: [{ components: [{ name: 'lidar', attributes: { rate_hz: 10 } }] }] },
  };

  it('sets and unsets what its fragment (or one it nests) brought, saying whose value it replaced', () => {
    const r = resolveConfig(
      {
        components: [{ name: 'mine' }],
        fragments: ['amr'],
        fragment_mods: [
          {
            fragment_id: 'amr',
            mods: [{ $set: { 'components.base.attributes.max_speed': 0.8, 'components.front-lidar.attributes.rate_hz': 20, 'components.base.attributes.new.deep': true, 'network.port': 9090 } }, { $unset: { 'components.base.attributes.wheels.0': '' } }],
          },
          { fragment_id: 'lidar', mods: [{ $unset: { 'components.front-lidar.attributes.rate_hz': '' } }] },
        ],
      },
      lookupIn(store),
    );
    expect(r.issues).toEqual([]);
    expect(r.effective).toEqual({
      components: [{ name: 'mine' }, { name: 'base', attributes: { max_speed: 0.8, wheels: [2], new: { deep: true } } }, { name: 'front-lidar', attributes: {} }],
      network: { port: 9090 },
    });
    expect(r.mods.map((m) => [m.path, m.applied, m.overrode?.kind === 'fragment' ? m.overrode.fragmentId : m.overrode?.kind, m.previous])).toEqual([
      ['components.base.attributes.max_speed', true, 'amr', 1.2],
      ['components.front-lidar.attributes.rate_hz', true, 'lidar', 10],
      ['components.base.attributes.new.deep', true, 'amr', undefined],
      ['network.port', true, 'amr', 8080],
      ['components.base.attributes.wheels.0', true, 'amr', 1],
      ['components.front-lidar.attributes.rate_hz', true, 'lidar', 20],
    ]);
  });

  it('reports, without blocking, mods of a fragment not used, of what another source brought, or of nothing', () => {
    const r = resolveConfig(
      {
        components: [{ name: 'mine' }],
        fragments: ['amr'],
        fragment_mods: [
          { fragment_id: 'other', mods: [{ $set: { 'components.base.x': 1 } }] },
          { fragment_id: 'amr', mods: [{ $set: { 'components.mine.x': 1, 'components.ghost.x': 1, 'components.base': {}, 'components.base.attributes.max_speed.x': 1, 'nothing.x': 1 } }, { $unset: { 'components.base.absent': '' } }] },
          { fragment_id: 'lidar', mods: [{ $set: { 'components.base.attributes.max_speed': 2 } }] },
        ],
      },
      lookupIn(store),
    );
    expect(blockingIssues(r)).toEqual([]);
    expect(r.mods.filter((m) => !m.applied).map((m) => m.reason)).toEqual([
      expect.stringMatching(/changes fragment "other", which this config does not use/),
      expect.stringMatching(/components "mine" comes from the config itself, not from fragment "AMR base" \(amr\)/),
      expect.stringMatching(/components has no block named "ghost"/),
      expect.stringMatching(/a mod changes keys inside a block/),
      expect.stringMatching(/"components.base.attributes.max_speed" is not an object/),
      expect.stringMatching(/the effective config has no "nothing"/),
      expect.stringMatching(/there is nothing at "components.base.absent" to unset/),
      expect.stringMatching(/comes from fragment "AMR base" \(amr\) at revision 1, not from fragment "Lidar" \(lidar\)/),
    ]);
    expect(r.issues.map((i) => i.kind)).toEqual(['mod-unused-fragment', ...Array(7).fill('mod-not-applied')]);
  });

  it('can remove a whole block its fragment brought', () => {
    const r = resolveConfig({ fragments: ['amr'], fragment_mods: [{ fragment_id: 'amr', mods: [{ $unset: { 'components.front-lidar': '' } }] }] }, lookupIn(store));
    expect((r.effective.components as JsonObject[]).map((c) => c.name)).toEqual(['base']);
    expect(r.blocks.map((b) => b.name)).toEqual(['base']);
  });
});

// ---- Properties over generated fragment graphs.

const blockName = fc.stringMatching(/^[a-z]{1,6}$/);
const section = fc.constantFrom('components', 'services', 'modules');
const blocksArb = fc.array(fc.record({ section, name: blockName, value: fc.integer() }), { maxLength: 4 });

/** A store of n fragments f0…f(n-1) whose nested refs point only to later ones (no cycles). */
const acyclic = fc.integer({ min: 1, max: 7 }).chain((n) =>
  fc.tuple(
    fc.array(fc.tuple(blocksArb, fc.subarray(Array.from({ length: n }, (_, i) => i)), fc.option(fc.constantFrom('p-', 'q-'), { nil: undefined })), { minLength: n, maxLength: n }),
    fc.subarray(Array.from({ length: n }, (_, i) => i), { minLength: 1 }),
  ).map(([specs, top]) => {
    const store: Store = {};
    specs.forEach(([blocks, refs, prefix], i) => {
      const config: JsonObject = {};
      for (const b of blocks) ((config[b.section] ??= []) as JsonObject[]).push({ name: b.name, value: b.value });
      const nested = refs.filter((r) => r > i).map((r) => (prefix === undefined ? `f${r}` : { id: `f${r}`, prefix }));
      if (nested.length > 0) config.fragments = nested;
      store[`f${i}`] = { revisions: [config] };
    });
    return { store, top: top.map((i) => `f${i}`) };
  }),
);

function depthOfGraph(store: Store, id: string): number {
  const refs = (store[id]!.revisions[0]!.fragments ?? []) as (string | { id: string })[];
  return 1 + Math.max(0, ...refs.map((r) => depthOfGraph(store, typeof r === 'string' ? r : r.id)));
}

describe('resolveConfig: properties', () => {
  it('never throws, and answers the same twice, whatever the config and the fragments', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 4 })), fc.dictionary(fc.constantFrom('a', 'b', 'c'), fc.jsonValue({ maxDepth: 4 })), (config, configs) => {
        const store: Store = Object.fromEntries(Object.entries(configs).map(([id, c]) => [id, { revisions: [typeof c === 'object' && c !== null && !Array.isArray(c) ? (c as JsonObject) : {}] }]));
        const withRefs = { ...config, fragments: ['a', 'b', { id: 'c', prefix: 'x' }] } as JsonObject;
        const once = resolveConfig(withRefs, lookupIn(store));
        expect(resolveConfig(withRefs, lookupIn(store))).toEqual(once);
        expect(once.effective).not.toHaveProperty('fragments');
      }),
    );
  });

  it('an acyclic graph within the nesting bound resolves without blocking issues; every block has a source, and prefixed fragments’ blocks carry their prefix', () => {
    fc.assert(
      fc.property(acyclic, ({ store, top }) => {
        const r = resolveConfig({ fragments: top }, lookupIn(store));
        const deepest = Math.max(...top.map((id) => depthOfGraph(store, id)));
        if (deepest <= MAX_NESTING) expect(blockingIssues(r)).toEqual([]);
        else expect(r.issues.some((i) => i.kind === 'too-deep')).toBe(true);
        const inEffective = ['components', 'services', 'modules'].reduce((n, s) => n + ((r.effective[s] as unknown[] | undefined)?.length ?? 0), 0);
        expect(r.blocks).toHaveLength(inEffective);
        for (const b of r.blocks) {
          expect(b.source.kind).toBe('fragment');
          const f = r.fragments.find((x) => b.source.kind === 'fragment' && x.id === b.source.fragmentId && x.chain.join() === b.source.chain.join())!;
          expect(b.name!.startsWith(f.prefix)).toBe(true);
        }
        for (const f of r.fragments) expect(f.depth).toBe(f.chain.length);
      }),
    );
  });

  it('a back edge anywhere makes a cycle, reported as such', () => {
    fc.assert(
      fc.property(acyclic, fc.nat(), (graph, pick) => {
        const { store, top } = graph;
        // Point the deepest fragment of the first chain back at the first top-level fragment.
        let id = top[0]!;
        const seen = [id];
        for (;;) {
          const refs = (store[id]!.revisions[0]!.fragments ?? []) as (string | { id: string })[];
          if (refs.length === 0 || seen.length >= MAX_NESTING) break;
          const next = refs[pick % refs.length]!;
          id = typeof next === 'string' ? next : next.id;
          seen.push(id);
        }
        const last = store[id]!.revisions[0]!;
        store[id] = { revisions: [{ ...last, fragments: [...((last.fragments ?? []) as JsonObject[]), top[0]!] }] };
        const r = resolveConfig({ fragments: [top[0]!] }, lookupIn(store));
        expect(r.issues.some((i) => i.kind === 'cycle')).toBe(true);
      }),
    );
  });

  it('a config without fragments is its own effective config, every block its own', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 8 }).filter((k) => k !== 'fragments' && k !== 'fragment_mods'), fc.jsonValue({ maxDepth: 4 })), (config) => {
        const r = resolveConfig(config as JsonObject, lookupIn({}));
        expect(r.fragments).toEqual([]);
        for (const b of r.blocks) expect(b.source).toEqual({ kind: 'own' });
        expect(blockingIssues(r)).toEqual([]);
        // Clashing names within the config itself are the only thing that can change it.
        if (!r.issues.some((i) => i.kind === 'conflict')) expect(r.effective).toEqual(config);
      }),
    );
  });

  it('a $set is read back at its path, and a $unset removes it', () => {
    fc.assert(
      fc.property(blockName, fc.array(fc.stringMatching(/^[a-z]{1,5}$/), { minLength: 1, maxLength: 4 }), fc.jsonValue({ maxDepth: 3 }), (name, keys, generated) => {
        const value = generated as JsonValue;
        const store: Store = { f: { revisions: [{ components: [{ name }] }] } };
        const path = `components.${name}.${keys.join('.')}`;
        const set = resolveConfig({ fragments: ['f'], fragment_mods: [{ fragment_id: 'f', mods: [{ $set: { [path]: value } }] }] }, lookupIn(store));
        if (keys[0] === 'name') return;
        expect(set.mods[0]?.applied).toBe(true);
        let node = (set.effective.components as JsonObject[])[0] as JsonObject;
        for (const k of keys.slice(0, -1)) node = node[k] as JsonObject;
        expect(node[keys.at(-1)!]).toEqual(value);
        const unset = resolveConfig({ fragments: ['f'], fragment_mods: [{ fragment_id: 'f', mods: [{ $set: { [path]: value } }, { $unset: { [path]: '' } }] }] }, lookupIn(store));
        expect(unset.mods.map((m) => m.applied)).toEqual([true, true]);
        let after = (unset.effective.components as JsonObject[])[0] as JsonObject;
        for (const k of keys.slice(0, -1)) after = after[k] as JsonObject;
        expect(Object.hasOwn(after, keys.at(-1)!)).toBe(false);
      }),
    );
  });
});
