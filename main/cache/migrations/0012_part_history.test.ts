import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../../db/migrate';
import { cacheMigrations } from './index';

describe('cache migration 12: part_history', () => {
  it('applies on top of migration 11 and keeps entries by part and position, in order, from the primary key', () => {
    const db = new Database(':memory:');
    migrate(db, cacheMigrations.slice(0, 11));
    expect(migrate(db, cacheMigrations.slice(0, 12))).toEqual({ from: 11, to: 12, applied: ['part_history'] });
    const insert = db.prepare('INSERT INTO part_history (part_id, position, entry) VALUES (?, ?, ?)');
    insert.run('p', 1, '{"n": 1}');
    insert.run('p', 0, '{"n": 0}');
    insert.run('q', 0, '{"n": 9}');
    expect(db.prepare("SELECT entry FROM part_history WHERE part_id = 'p' AND position >= 0 ORDER BY position").pluck().all()).toEqual(['{"n": 0}', '{"n": 1}']);
    const plan = db.prepare('EXPLAIN QUERY PLAN SELECT entry FROM part_history WHERE part_id = ? AND position >= ? ORDER BY position').all('p', 0) as { detail: string }[];
    expect(plan.map((p) => p.detail).join()).toMatch(/USING PRIMARY KEY|sqlite_autoindex_part_history/);
    expect(plan.map((p) => p.detail).join()).not.toMatch(/TEMP B-TREE/);
    expect(() => insert.run('p', 0, '{}')).toThrow(/UNIQUE|PRIMARY/);
    expect(() => insert.run('p', -1, '{}')).toThrow(/CHECK/);
    expect(() => insert.run('p', 2, 'nope')).toThrow(/CHECK/);
  });
});
