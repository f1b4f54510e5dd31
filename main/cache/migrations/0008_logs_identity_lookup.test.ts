import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../../db/migrate';
import { cacheMigrations } from './index';

describe('cache migration 8: identity by lookup', () => {
  it('applies on top of migration 7 and leaves the per-part index the lookups use', () => {
    const db = new Database(':memory:');
    migrate(db, cacheMigrations.slice(0, 7));
    expect(migrate(db, cacheMigrations.slice(0, 8))).toEqual({ from: 7, to: 8, applied: ['logs_identity_lookup'] });
    const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'logs'").pluck().all();
    expect(indexes).toEqual(['logs_by_part']);
    const plan = db.prepare('EXPLAIN QUERY PLAN SELECT 1 FROM logs WHERE part_id = ? AND key >= ? AND key < ? AND entry_id = ?').all('p', 1, 2, 'e') as { detail: string }[];
    expect(plan.map((p) => p.detail).join()).toMatch(/logs_by_part \(part_id=\? AND key>\? AND key<\?\)/);
  });
});
