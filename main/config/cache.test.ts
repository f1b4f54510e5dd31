import { describe, expect, it } from 'vitest';
import { openCache } from '../cache/cache';
import type { PartHistoryEntry } from '../../common/config';
import { cachedDraft, cachedDrafts, cachedPartConfig, cachedPartHistory, dropDraft, forgetPart, MAX_CACHED_HISTORY, MAX_DRAFTS, putDraft, putPartConfig, putPartHistory, roomForDraft } from './cache';

const config = (lastUpdated: string, configJson = '{}') => ({ partId: 'p', machineId: 'm', name: 'p-main', configJson, lastUpdated, syncedAt: '2026-05-01T00:00:00.000Z' });

describe('part configs in the cache', () => {
  it('keep the newest answer: a read that comes back after a save does not undo it', () => {
    const db = openCache(':memory:');
    putPartConfig(db, config('2026-05-01T10:00:00.002Z', '{"saved": true}'));
    putPartConfig(db, config('2026-05-01T10:00:00.001Z', '{"late read": true}'));
    expect(cachedPartConfig(db, 'p')?.configJson).toBe('{"saved": true}');
    putPartConfig(db, config('2026-05-01T10:00:00.003Z', '{"next": true}'));
    expect(cachedPartConfig(db, 'p')).toEqual(config('2026-05-01T10:00:00.003Z', '{"next": true}'));
    forgetPart(db, 'p');
    expect(cachedPartConfig(db, 'p')).toBeNull();
  });
});

const entry = (n: number): PartHistoryEntry => ({
  partId: 'p',
  when: null,
  editedBy: null,
  previous: { name: 'p-main', configJson: `{"n": ${n}}`, mainPart: true, markedForRestart: false, lastUpdated: null },
});
const ns = (entries: readonly PartHistoryEntry[] | undefined) => entries?.map((e) => (JSON.parse(e.previous.configJson) as { n: number }).n);

describe('part histories in the cache', () => {
  it('write later pages at their offset, and a fresh first page replaces the rest (the history grew at its new end)', () => {
    const db = openCache(':memory:');
    expect(cachedPartHistory(db, 'p', 0, 10)).toBeNull();
    putPartHistory(db, 'p', 0, [entry(9), entry(8)], '2026-05-01T00:00:00.000Z');
    putPartHistory(db, 'p', 2, [entry(7), entry(6)], '2026-05-01T00:00:01.000Z');
    expect(ns(cachedPartHistory(db, 'p', 0, 10)?.entries)).toEqual([9, 8, 7, 6]);
    expect(cachedPartHistory(db, 'p', 1, 2)).toMatchObject({ more: true, syncedAt: '2026-05-01T00:00:00.000Z' });
    putPartHistory(db, 'p', 0, [entry(10), entry(9)], '2026-05-02T00:00:00.000Z');
    expect(ns(cachedPartHistory(db, 'p', 0, 10)?.entries)).toEqual([10, 9]);
    forgetPart(db, 'p');
    expect(cachedPartHistory(db, 'p', 0, 10)).toBeNull();
  });

  it(`keep at most the newest ${MAX_CACHED_HISTORY} entries of a part`, () => {
    const db = openCache(':memory:');
    putPartHistory(db, 'p', MAX_CACHED_HISTORY - 1, [entry(2), entry(1)], '2026-05-01T00:00:00.000Z');
    expect(db.prepare("SELECT max(position) FROM part_history WHERE part_id = 'p'").pluck().get()).toBe(MAX_CACHED_HISTORY - 1);
  });
});

describe('config drafts in the cache', () => {
  const draft = (partId: string, savedAt: string) => ({ partId, configJson: '{"mine": 1}', baseConfigJson: '{}', baseLastUpdated: '2026-05-01T10:00:00.000Z', savedAt });

  it('name their part as last read, outlive the part config being forgotten, and list newest first', () => {
    const db = openCache(':memory:');
    putPartConfig(db, config('2026-05-01T10:00:00.000Z'));
    putDraft(db, draft('p', '2026-05-02T00:00:00.000Z'));
    putDraft(db, draft('q', '2026-05-03T00:00:00.000Z'));
    expect(cachedDraft(db, 'p')).toMatchObject({ partId: 'p', machineId: 'm', partName: 'p-main', configJson: '{"mine": 1}' });
    expect(cachedDrafts(db).map((d) => d.partId)).toEqual(['q', 'p']);
    // Someone's unsaved work is not a copy of the service's: forgetting the part's cached config keeps it.
    forgetPart(db, 'p');
    expect(cachedDraft(db, 'p')).toMatchObject({ partId: 'p', machineId: '', partName: '' });
    dropDraft(db, 'p');
    expect(cachedDraft(db, 'p')).toBeNull();
  });

  it(`refuse room for a new draft past ${MAX_DRAFTS}, but always let a part replace its own`, () => {
    const db = openCache(':memory:');
    const insert = db.prepare("INSERT INTO part_config_drafts VALUES (?, '{}', '{}', 't', 't')");
    db.transaction(() => {
      for (let i = 0; i < MAX_DRAFTS; i++) insert.run(`p${i}`);
    })();
    expect(roomForDraft(db, 'p0')).toBe(true);
    expect(roomForDraft(db, 'another')).toBe(false);
  });
});
