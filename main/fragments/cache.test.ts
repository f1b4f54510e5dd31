import { describe, expect, it } from 'vitest';
import type { Fragment } from '../../common/fragments';
import { openCache } from '../cache/cache';
import { cachedDraft, cachedDrafts, cachedFragment, cachedOrgFragments, cachedRevisionConfig, cachedRevisionOf, dropDraft, MAX_DRAFTS, putDraft, putFragments, removeFragment, replaceOrgFragments, roomForDraft } from './cache';

const fragment = (id: string, name: string, latest: number, extra: Partial<Fragment> = {}): Fragment => ({
  id,
  name,
  orgId: 'o',
  orgName: 'Org',
  visibility: 'private',
  createdOn: '2026-01-01T00:00:00.000Z',
  lastUpdated: `2026-01-0${latest}T00:00:00.000Z`,
  latestRevision: String(latest),
  revisions: Array.from({ length: latest }, (_, i) => ({ revision: String(i + 1), createdOn: null })),
  tags: [],
  partCount: 0,
  ...extra,
});

describe('fragments in the cache', () => {
  it('keep the config of every revision read: a later listing (which reads the latest) does not forget an older one', () => {
    const db = openCache(':memory:');
    putFragments(db, [{ fragment: fragment('f', 'Arm', 1, { tags: [{ tag: 'stable', revision: '1', updatedOn: null }] }), revision: '1', config: { v: 1 } }], 'a');
    replaceOrgFragments(db, 'o', ['private'], [{ fragment: fragment('f', 'Arm', 2), revision: '2', config: { v: 2 } }], 'b');
    expect(cachedRevisionConfig(db, 'f', '1')).toEqual({ v: 1 });
    expect(cachedRevisionConfig(db, 'f', '2')).toEqual({ v: 2 });
    const cached = cachedFragment(db, 'f')!;
    expect(cached.fragment.revisions.map((r) => r.revision)).toEqual(['1', '2']);
    // The listing's tags replace the ones read before (the tag was deleted meanwhile).
    expect(cached.fragment.tags).toEqual([]);
    expect(cached.syncedAt).toBe('b');
  });

  it('drop from an organization what its listing of those visibilities no longer holds, and only of those visibilities', () => {
    const db = openCache(':memory:');
    putFragments(db, [
      { fragment: fragment('a', 'A', 1), revision: '1', config: {} },
      { fragment: fragment('b', 'B', 1, { visibility: 'public' }), revision: '1', config: {} },
    ], 'x');
    replaceOrgFragments(db, 'o', ['private'], [], 'y');
    expect(cachedFragment(db, 'a')).toBeNull();
    expect(cachedRevisionConfig(db, 'a', '1')).toBeNull();
    expect(cachedOrgFragments(db, 'o', ['private', 'public'], undefined)?.fragments.map((f) => f.id)).toEqual(['b']);
    removeFragment(db, 'b');
    expect(cachedOrgFragments(db, 'o', ['public'], undefined)).toEqual({ fragments: [], syncedAt: 'y' });
    expect(cachedOrgFragments(db, 'elsewhere', ['public'], undefined)).toBeNull();
  });

  it('search by name or id in any case, in the service order (name, then id)', () => {
    const db = openCache(':memory:');
    putFragments(db, ['Lidar', 'AMR base', 'lidar (old)'].map((name, i) => ({ fragment: fragment(`id-${i}`, name, 1), revision: '1', config: {} })), 'x');
    expect(cachedOrgFragments(db, 'o', ['private'], 'LIDAR')?.fragments.map((f) => f.name)).toEqual(['Lidar', 'lidar (old)']);
    expect(cachedOrgFragments(db, 'o', ['private'], 'id-1')?.fragments.map((f) => f.name)).toEqual(['AMR base']);
  });

  it('place a version as the cache knows it: latest, a revision it lists, a tag as last read', () => {
    const f = fragment('f', 'F', 3, { tags: [{ tag: 'stable', revision: '2', updatedOn: null }] });
    expect(cachedRevisionOf(f, undefined)).toBe('3');
    expect(cachedRevisionOf(f, '1')).toBe('1');
    expect(cachedRevisionOf(f, '4')).toBeNull();
    expect(cachedRevisionOf(f, 'stable')).toBe('2');
    expect(cachedRevisionOf(f, 'beta')).toBeNull();
  });
});

describe('fragment drafts in the cache', () => {
  it('name their fragment as last read, survive its removal from the cache, list newest first, and are bounded', () => {
    const db = openCache(':memory:');
    putFragments(db, [{ fragment: fragment('f', 'Arm', 1), revision: '1', config: {} }], 'x');
    putDraft(db, { fragmentId: 'f', configJson: '{"a": 1}', baseConfigJson: '{}', baseLastUpdated: 't', savedAt: '2026-05-02T00:00:00.000Z' });
    putDraft(db, { fragmentId: 'g', configJson: '{}', baseConfigJson: '{}', baseLastUpdated: 't', savedAt: '2026-05-03T00:00:00.000Z' });
    expect(cachedDraft(db, 'f')).toMatchObject({ fragmentId: 'f', orgId: 'o', name: 'Arm' });
    expect(cachedDrafts(db).map((d) => d.fragmentId)).toEqual(['g', 'f']);
    removeFragment(db, 'f');
    expect(cachedDraft(db, 'f')).toMatchObject({ fragmentId: 'f', orgId: '', name: '' });
    dropDraft(db, 'f');
    expect(cachedDraft(db, 'f')).toBeNull();
    const insert = db.prepare("INSERT INTO fragment_drafts VALUES (?, '{}', '{}', 't', 't')");
    db.transaction(() => {
      for (let i = 1; i < MAX_DRAFTS; i++) insert.run(`f${i}`);
    })();
    expect(roomForDraft(db, 'g')).toBe(true);
    expect(roomForDraft(db, 'new')).toBe(false);
  });
});
