import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../../db/migrate';
import { cacheMigrations } from './index';

describe('cache migration 15: part_config_drafts', () => {
  it('applies on top of migration 14, keeps one draft per part with its base, newest first from its index, and refuses what is not JSON', () => {
    const db = new Database(':memory:');
    migrate(db, cacheMigrations.slice(0, 14));
    expect(migrate(db, cacheMigrations.slice(0, 15))).toEqual({ from: 14, to: 15, applied: ['part_config_drafts'] });
    const insert = db.prepare('INSERT INTO part_config_drafts (part_id, config_json, base_config_json, base_last_updated, saved_at) VALUES (?, ?, ?, ?, ?)');
    insert.run('a', '{"mine": 1}', '{}', '2026-01-01T00:00:00.000Z', '2026-01-02T00:00:00.000Z');
    insert.run('b', '{"mine": 2}', '{}', '2026-01-01T00:00:00.000Z', '2026-01-03T00:00:00.000Z');
    expect(db.prepare('SELECT part_id FROM part_config_drafts ORDER BY saved_at DESC, part_id').pluck().all()).toEqual(['b', 'a']);
    const plan = (db.prepare('EXPLAIN QUERY PLAN SELECT part_id FROM part_config_drafts ORDER BY saved_at DESC, part_id').all() as { detail: string }[]).map((p) => p.detail).join();
    expect(plan).toMatch(/part_config_drafts_by_time/);
    expect(plan).not.toMatch(/TEMP B-TREE/);
    expect(() => insert.run('a', '{}', '{}', 'x', 'y')).toThrow(/UNIQUE|PRIMARY/);
    expect(() => insert.run('c', '{', '{}', 'x', 'y')).toThrow(/CHECK/);
    expect(() => insert.run('c', '{}', 'nope', 'x', 'y')).toThrow(/CHECK/);
  });
});
