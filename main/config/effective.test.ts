import { describe, expect, it } from 'vitest';
import type { KnownFragment } from '../../fleetconfig';
import { knownFrom, MAX_FETCHED, resolveKnown, resolveWith } from './effective';

const known = (id: string, revision: string, config: KnownFragment['config'], latestRevision = revision, tags: Record<string, string> = {}): KnownFragment => ({ id, name: id, revision, config, latestRevision, tags });

describe('knownFrom', () => {
  it('takes the latest revision from the list and tags as a map', () => {
    expect(
      knownFrom({
        id: 'f',
        name: 'F',
        revision: '1',
        config: {},
        revisions: [
          { revision: '1', createdOn: null },
          { revision: '3', createdOn: null },
        ],
        tags: [{ tag: 'stable', revision: '1', updatedOn: null }],
      }),
    ).toEqual({ id: 'f', name: 'F', revision: '1', config: {}, latestRevision: '3', tags: { stable: '1' } });
  });
});

describe('previews', () => {
  const fragments = [known('f', '2', { components: [{ name: 'x', v: 2 }] }, '2', { stable: '1' }), known('f', '1', { components: [{ name: 'x', v: 1 }] }, '2', { stable: '1' })];
  const v = (config: KnownFragment['config'], preview?: Parameters<typeof resolveKnown>[2]) => (resolveKnown(config, fragments, preview).effective.components as { v: number }[] | undefined)?.[0]?.v;

  it('give the next revision to configs tracking the latest only', () => {
    const preview = { fragmentId: 'f', configJson: '{"components": [{"name": "x", "v": 3}]}' };
    expect(v({ fragments: ['f'] }, preview)).toBe(3);
    expect(resolveKnown({ fragments: ['f'] }, fragments, preview).fragments[0]?.revision).toBe('3');
    expect(v({ fragments: [{ id: 'f', version: '2' }] }, preview)).toBe(2);
    expect(v({ fragments: [{ id: 'f', version: 'stable' }] }, preview)).toBe(1);
  });

  it('move a tag for the configs asking for it only', () => {
    const preview = { fragmentId: 'f', tag: 'stable', revision: '2' };
    expect(v({ fragments: [{ id: 'f', version: 'stable' }] }, preview)).toBe(2);
    expect(v({ fragments: [{ id: 'f', version: '1' }] }, preview)).toBe(1);
    expect(v({ fragments: ['f'] })).toBe(2);
  });
});

describe('resolveWith', () => {
  it('fetches what the machine list misses, level by level, and resolves again', async () => {
    const asked: string[] = [];
    const store: Record<string, KnownFragment> = {
      'a@': known('a', '1', { fragments: ['b'], components: [{ name: 'a' }] }),
      'b@': known('b', '1', { components: [{ name: 'b' }] }),
    };
    const { resolution, known: all } = await resolveWith({ fragments: ['a'] }, [], undefined, async (id, version) => {
      asked.push(`${id}@${version ?? ''}`);
      return store[`${id}@${version ?? ''}`] ?? null;
    });
    expect(asked).toEqual(['a@', 'b@']);
    expect(resolution.issues).toEqual([]);
    expect(resolution.effective).toEqual({ components: [{ name: 'a' }, { name: 'b' }] });
    expect(all.map((k) => k.id)).toEqual(['a', 'b']);
  });

  it('asks once for what the service does not have, and reports it', async () => {
    let asked = 0;
    const { resolution } = await resolveWith({ fragments: ['gone'] }, [], undefined, async () => {
      asked += 1;
      return null;
    });
    expect(asked).toBe(1);
    expect(resolution.issues.map((i) => i.kind)).toEqual(['unknown-fragment']);
  });

  it(`fetches at most ${MAX_FETCHED} versions, however many a config names`, async () => {
    let asked = 0;
    const config = { fragments: Array.from({ length: 300 }, (_, i) => `f${i}`) };
    await resolveWith(config, [], undefined, async () => {
      asked += 1;
      return null;
    });
    expect(asked).toBe(MAX_FETCHED);
  });
});
