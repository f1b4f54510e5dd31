import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../../db/migrate';
import { cacheMigrations } from './index';

describe('cache migration 20: tree_parts_narrow', () => {
  it('applies on top of migration 19 with parts cached; the tree reads its parts (no address) from the narrower covering index, in the same order, and the addresses stay', () => {
    const db = new Database(':memory:');
    migrate(db, cacheMigrations.slice(0, 19));
    const at = '2026-11-27T10:00:00.000Z';
    const part = db.prepare("INSERT INTO parts (org_id, id, machine_id, name, main_part, position, fqdn, fetched_at) VALUES ('o', ?, ?, ?, ?, ?, ?, ?)");
    part.run('p3', 'm2', 'beta-arm', 0, 1, 'beta-arm-3.fleet.internal', at);
    part.run('p2', 'm2', 'beta-main', 1, 0, 'beta-main-2.fleet.internal', at);
    part.run('p1', 'm1', 'alpha-main', 1, 0, 'alpha-main-1.fleet.internal', at);
    expect(migrate(db, cacheMigrations.slice(0, 20))).toEqual({ from: 19, to: 20, applied: ['tree_parts_narrow'] });
    // main/fleet/tree.ts readTreeColumns' read of parts.
    const parts = 'SELECT machine_id, id, name, last_access, main_part, marked_for_restart FROM parts WHERE org_id = ? ORDER BY machine_id, position';
    expect(db.prepare(parts).raw().all('o').map((r) => (r as unknown[])[1])).toEqual(['p1', 'p2', 'p3']);
    const plan = (db.prepare(`EXPLAIN QUERY PLAN ${parts}`).all('o') as { detail: string }[]).map((p) => p.detail).join('; ');
    expect(plan).toMatch(/COVERING INDEX parts_tree/);
    expect(plan).not.toMatch(/TEMP B-TREE/);
    const columns = (db.prepare("SELECT name FROM pragma_index_info('parts_tree') ORDER BY seqno").pluck().all() as string[]);
    expect(columns).toEqual(['org_id', 'machine_id', 'position', 'id', 'name', 'last_access', 'main_part', 'marked_for_restart']);
    expect(db.prepare("SELECT fqdn FROM parts WHERE id = 'p2'").pluck().get()).toBe('beta-main-2.fleet.internal');
  });
});
