import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../../db/migrate';
import { cacheMigrations } from './index';

describe('cache migration 9: levels in the per-part index', () => {
  it('applies on top of migration 8, keeps the lines, and answers a view’s keys and levels from the index alone', () => {
    const db = new Database(':memory:');
    migrate(db, cacheMigrations.slice(0, 8));
    db.prepare("INSERT INTO logs (key, part_id, entry_id, level, source, host, message, detail, bytes, cached_at) VALUES (16, 'p', 'e1', 2, 's', 'h', 'm', NULL, 60, 1)").run();
    expect(migrate(db, cacheMigrations.slice(0, 9))).toEqual({ from: 8, to: 9, applied: ['logs_by_part_levels'] });
    expect(db.prepare('SELECT key, level FROM logs WHERE part_id = ?').all('p')).toEqual([{ key: 16, level: 2 }]);
    const plan = db.prepare('EXPLAIN QUERY PLAN SELECT key, level FROM logs WHERE part_id IN (?, ?) ORDER BY key').all('p', 'q') as { detail: string }[];
    expect(plan.map((p) => p.detail).join()).toMatch(/COVERING INDEX logs_by_part/);
    const lookup = db.prepare('EXPLAIN QUERY PLAN SELECT 1 FROM logs WHERE part_id = ? AND key >= ? AND key < ? AND entry_id = ?').all('p', 1, 2, 'e') as { detail: string }[];
    expect(lookup.map((p) => p.detail).join()).toMatch(/logs_by_part \(part_id=\? AND key>\? AND key<\?\)/);
  });
});
