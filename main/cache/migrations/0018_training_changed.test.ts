import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../../db/migrate';
import { cacheMigrations } from './index';

describe('cache migration 18: training_changed', () => {
  it('applies on top of migration 17, and the jobs written since a time are found by index, not by a scan of the organization', () => {
    const db = new Database(':memory:');
    migrate(db, cacheMigrations.slice(0, 17));
    expect(migrate(db, cacheMigrations.slice(0, 18))).toEqual({ from: 17, to: 18, applied: ['training_changed'] });
    const insert = db.prepare("INSERT INTO training_jobs (id, org_id, status, created_on, job, cached_at) VALUES (?, 'o', 'succeeded', ?, '{}', ?)");
    insert.run('old', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');
    insert.run('new', '2026-01-02T00:00:00.000Z', '2026-01-03T00:00:00.000Z');
    const query = "SELECT id FROM training_jobs WHERE org_id = ? AND cached_at >= ? ORDER BY created_on DESC, id";
    expect(db.prepare(query).pluck().all('o', '2026-01-02T00:00:00.000Z')).toEqual(['new']);
    const plan = (db.prepare(`EXPLAIN QUERY PLAN ${query}`).all('o', '2026-01-02T00:00:00.000Z') as { detail: string }[]).map((p) => p.detail).join();
    expect(plan).toMatch(/training_jobs_by_org_cached/);
  });
});
