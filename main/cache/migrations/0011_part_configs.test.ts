import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../../db/migrate';
import { cacheMigrations } from './index';

describe('cache migration 11: part_configs', () => {
  it('applies on top of migration 10, keeps one config per part as text, indexed by machine, and refuses what is not JSON', () => {
    const db = new Database(':memory:');
    migrate(db, cacheMigrations.slice(0, 10));
    expect(migrate(db, cacheMigrations.slice(0, 11))).toEqual({ from: 10, to: 11, applied: ['part_configs'] });
    const insert = db.prepare('INSERT INTO part_configs (part_id, machine_id, name, config_json, last_updated, synced_at) VALUES (?, ?, ?, ?, ?, ?)');
    // Stored as given: spacing and key order are the service's.
    const text = '{ "b": 1,\n  "a": [ ] }';
    insert.run('p1', 'm1', 'arm-main', text, '2026-01-01T00:00:00.000Z', '2026-01-02T00:00:00.000Z');
    expect(db.prepare("SELECT config_json FROM part_configs WHERE part_id = 'p1'").pluck().get()).toBe(text);
    expect(() => insert.run('p1', 'm1', 'again', '{}', 'x', 'y')).toThrow(/UNIQUE|PRIMARY/);
    expect(() => insert.run('p2', 'm1', 'x', '{not json', 'x', 'y')).toThrow(/CHECK/);
    // STRICT: bytes where text belongs are refused, not kept as they came.
    expect(() => insert.run('p3', 'm1', 'x', '{}', Buffer.from('2026'), 'y')).toThrow(/cannot store BLOB/);
    const plan = db.prepare('EXPLAIN QUERY PLAN SELECT part_id FROM part_configs WHERE machine_id = ?').all('m1') as { detail: string }[];
    expect(plan.map((p) => p.detail).join()).toMatch(/part_configs_by_machine/);
  });
});
