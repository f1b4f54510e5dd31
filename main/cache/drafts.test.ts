import { describe, expect, it } from 'vitest';
import { openCache } from './cache';
import { draftTable, MAX_DRAFTS } from './drafts';

/** A domain's draft table as its migration would make it, and a table that names its drafts. */
function setup() {
  const db = openCache(':memory:');
  db.exec('CREATE TABLE things (id TEXT PRIMARY KEY, name TEXT NOT NULL)');
  db.exec('CREATE TABLE thing_drafts (thing_id TEXT PRIMARY KEY, config_json TEXT NOT NULL, base_config_json TEXT NOT NULL, base_last_updated TEXT NOT NULL, saved_at TEXT NOT NULL)');
  db.prepare("INSERT INTO things VALUES ('a', 'Thing A')").run();
  const drafts = draftTable({
    table: 'thing_drafts',
    key: 'thing_id',
    join: 'LEFT JOIN things t ON t.id = d.thing_id',
    joined: 't.name',
    fromRow: (r, t) => ({ id: r.id, name: r['name'] ?? '', configJson: t.configJson, base: t.baseConfigJson, savedAt: t.savedAt }),
  });
  return { db, drafts };
}
const text = (configJson: string, savedAt: string) => ({ configJson, baseConfigJson: '{}', baseLastUpdated: '2026-05-01T00:00:00.000Z', savedAt });

describe('a table of drafts', () => {
  it('keeps one draft per thing (a newer replaces it), named by the join, listed newest first, dropped on request', () => {
    const { db, drafts } = setup();
    drafts.put(db, 'a', text('{"v": 1}', '2026-05-02T00:00:00.000Z'));
    drafts.put(db, 'b', text('{"w": 1}', '2026-05-03T00:00:00.000Z'));
    drafts.put(db, 'a', text('{"v": 2}', '2026-05-04T00:00:00.000Z'));
    expect(drafts.get(db, 'a')).toEqual({ id: 'a', name: 'Thing A', configJson: '{"v": 2}', base: '{}', savedAt: '2026-05-04T00:00:00.000Z' });
    expect(drafts.get(db, 'b')?.name).toBe('');
    expect(drafts.all(db).map((d) => d.id)).toEqual(['a', 'b']);
    drafts.drop(db, 'a');
    expect(drafts.get(db, 'a')).toBeNull();
    expect(drafts.all(db).map((d) => d.id)).toEqual(['b']);
  });

  it('has room for a new draft until it holds the most it keeps; replacing one always may', () => {
    const { db, drafts } = setup();
    const insert = db.prepare("INSERT INTO thing_drafts VALUES (?, '{}', '{}', '2026-05-01T00:00:00.000Z', '2026-05-01T00:00:00.000Z')");
    db.transaction(() => {
      for (let i = 0; i < MAX_DRAFTS; i++) insert.run(`t${i}`);
    })();
    expect(drafts.room(db, 't0')).toBe(true);
    expect(drafts.room(db, 'another')).toBe(false);
  });
});
