import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../../db/migrate';
import { cacheMigrations } from './index';

describe('cache migration 10: training', () => {
  it('applies on top of migration 9, keeps jobs by organization newest first, and refuses an unknown status or bad JSON', () => {
    const db = new Database(':memory:');
    migrate(db, cacheMigrations.slice(0, 9));
    expect(migrate(db, cacheMigrations.slice(0, 10))).toEqual({ from: 9, to: 10, applied: ['training'] });
    const insert = db.prepare("INSERT INTO training_jobs (id, org_id, status, created_on, job, cached_at) VALUES (?, 'o', ?, ?, '{}', 'now')");
    insert.run('a', 'succeeded', '2026-01-01T00:00:00.000Z');
    insert.run('b', 'running', '2026-02-01T00:00:00.000Z');
    expect(db.prepare("SELECT id FROM training_jobs WHERE org_id = 'o' ORDER BY created_on DESC, id").pluck().all()).toEqual(['b', 'a']);
    const plan = db.prepare("EXPLAIN QUERY PLAN SELECT id FROM training_jobs WHERE org_id = ? ORDER BY created_on DESC, id").all('o') as { detail: string }[];
    expect(plan.map((p) => p.detail).join()).toMatch(/training_jobs_by_org/);
    expect(() => insert.run('c', 'exploded', null)).toThrow(/CHECK/);
    expect(() => db.prepare("INSERT INTO training_jobs VALUES ('d', 'o', 'pending', NULL, 'not json', 'now')").run()).toThrow(/CHECK/);
    db.prepare("INSERT INTO training_watched VALUES ('a', 'now')").run();
    expect(() => db.prepare("INSERT INTO training_watched VALUES ('a', 'later')").run()).toThrow(/UNIQUE|PRIMARY/);
  });
});
