import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../../db/migrate';
import { cacheMigrations } from './index';

describe('cache migration 16: fragment_drafts', () => {
  it('applies on top of migration 15, keeps one draft per fragment with its base, newest first from its index, and refuses what is not JSON', () => {
    const db = new Database(':memory:');
    migrate(db, cacheMigrations.slice(0, 15));
    expect(migrate(db, cacheMigrations.slice(0, 16))).toEqual({ from: 15, to: 16, applied: ['fragment_drafts'] });
    const insert = db.prepare('INSERT INTO fragment_drafts (fragment_id, config_json, base_config_json, base_last_updated, saved_at) VALUES (?, ?, ?, ?, ?)');
    insert.run('a', '{"mine": 1}', '{}', '2026-01-01T00:00:00.000Z', '2026-01-02T00:00:00.000Z');
    insert.run('b', '{"mine": 2}', '{}', '2026-01-01T00:00:00.000Z', '2026-01-03T00:00:00.000Z');
    expect(db.prepare('SELECT fragment_id FROM fragment_drafts ORDER BY saved_at DESC, fragment_id').pluck().all()).toEqual(['b', 'a']);
    const plan = (db.prepare('EXPLAIN QUERY PLAN SELECT fragment_id FROM fragment_drafts ORDER BY saved_at DESC, fragment_id').all() as { detail: string }[]).map((p) => p.detail).join();
    expect(plan).toMatch(/fragment_drafts_by_time/);
    expect(plan).not.toMatch(/TEMP B-TREE/);
    expect(() => insert.run('a', '{}', '{}', 'x', 'y')).toThrow(/UNIQUE|PRIMARY/);
    expect(() => insert.run('c', '{', '{}', 'x', 'y')).toThrow(/CHECK/);
    expect(() => insert.run('c', '{}', 'nope', 'x', 'y')).toThrow(/CHECK/);
  });
});
