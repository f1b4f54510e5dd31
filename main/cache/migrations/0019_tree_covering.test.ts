import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../../db/migrate';
import { cacheMigrations } from './index';

describe('cache migration 19: tree_covering', () => {
  it('applies on top of migration 18 with parts and machines cached, and the tree reads them from covering indexes, in the same order', () => {
    const db = new Database(':memory:');
    migrate(db, cacheMigrations.slice(0, 18));
    const at = '2026-11-26T10:00:00.000Z';
    const machine = db.prepare("INSERT INTO machines (org_id, id, name, location_id, fetched_at) VALUES ('o', ?, ?, 'l', ?)");
    const part = db.prepare("INSERT INTO parts (org_id, id, machine_id, name, main_part, position, fetched_at) VALUES ('o', ?, ?, ?, ?, ?, ?)");
    machine.run('m2', 'beta', at);
    machine.run('m1', 'alpha', at);
    part.run('p3', 'm2', 'beta-arm', 0, 1, at);
    part.run('p2', 'm2', 'beta-main', 1, 0, at);
    part.run('p1', 'm1', 'alpha-main', 1, 0, at);
    expect(migrate(db, cacheMigrations.slice(0, 19))).toEqual({ from: 18, to: 19, applied: ['tree_covering'] });
    const parts = 'SELECT machine_id, id, name, fqdn, last_access, main_part, marked_for_restart FROM parts WHERE org_id = ? ORDER BY machine_id, position';
    const machines = 'SELECT id, name, location_id FROM machines WHERE org_id = ? ORDER BY name, id';
    expect(db.prepare(parts).raw().all('o').map((r) => (r as unknown[])[1])).toEqual(['p1', 'p2', 'p3']);
    expect(db.prepare(machines).pluck().all('o')).toEqual(['m1', 'm2']);
    const plan = (sql: string) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all('o') as { detail: string }[]).map((p) => p.detail).join('; ');
    expect(plan(parts)).toMatch(/COVERING INDEX parts_tree/);
    expect(plan(machines)).toMatch(/COVERING INDEX machines_tree/);
    expect(plan(machines)).not.toMatch(/TEMP B-TREE/);
    expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'parts_by_machine'").pluck().get()).toBe(0);
  });
});
