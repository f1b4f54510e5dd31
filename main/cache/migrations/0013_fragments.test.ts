import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../../db/migrate';
import { cacheMigrations } from './index';

const plan = (db: Database.Database, sql: string, ...args: unknown[]) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((p) => p.detail).join();

describe('cache migration 13: fragments', () => {
  it('applies on top of migration 12; an organization lists by name from its index; revisions, tags and history are keyed by fragment', () => {
    const db = new Database(':memory:');
    migrate(db, cacheMigrations.slice(0, 12));
    expect(migrate(db, cacheMigrations.slice(0, 13))).toEqual({ from: 12, to: 13, applied: ['fragments'] });
    const fragment = db.prepare(
      "INSERT INTO fragments (id, org_id, org_name, name, visibility, created_on, last_updated, latest_revision, part_count, synced_at) VALUES (?, 'o', 'Org', ?, ?, NULL, 't', ?, 0, 's')",
    );
    fragment.run('f2', 'Lidar', 'public', 1);
    fragment.run('f1', 'AMR base', 'private', 3);
    expect(db.prepare("SELECT id FROM fragments WHERE org_id = 'o' ORDER BY name, id").pluck().all()).toEqual(['f1', 'f2']);
    const byOrg = plan(db, 'SELECT id FROM fragments WHERE org_id = ? ORDER BY name, id', 'o');
    expect(byOrg).toMatch(/fragments_by_org/);
    expect(byOrg).not.toMatch(/TEMP B-TREE/);
    expect(() => fragment.run('f3', 'x', 'secret', 1)).toThrow(/CHECK/);
    expect(() => fragment.run('f4', 'x', 'private', 0)).toThrow(/CHECK/);

    const revision = db.prepare('INSERT INTO fragment_revisions (fragment_id, revision, created_on, config) VALUES (?, ?, NULL, ?)');
    revision.run('f1', 1, null);
    revision.run('f1', 2, '{"components": []}');
    expect(() => revision.run('f1', 2, '{}')).toThrow(/UNIQUE|PRIMARY/);
    expect(() => revision.run('f1', 3, 'not json')).toThrow(/CHECK/);
    expect(() => revision.run('f1', 0, null)).toThrow(/CHECK/);

    db.prepare("INSERT INTO fragment_tags VALUES ('f1', 'stable', 2, NULL)").run();
    expect(() => db.prepare("INSERT INTO fragment_tags VALUES ('f1', 'stable', 1, NULL)").run()).toThrow(/UNIQUE|PRIMARY/);

    const history = db.prepare('INSERT INTO fragment_history (fragment_id, revision, entry) VALUES (?, ?, ?)');
    history.run('f1', 1, '{}');
    history.run('f1', 2, '{}');
    expect(db.prepare("SELECT revision FROM fragment_history WHERE fragment_id = 'f1' AND revision < 3 ORDER BY revision DESC").pluck().all()).toEqual([2, 1]);
    expect(plan(db, 'SELECT entry FROM fragment_history WHERE fragment_id = ? AND revision < ? ORDER BY revision DESC', 'f1', 3)).not.toMatch(/TEMP B-TREE/);
    expect(() => history.run('f1', 3, '[')).toThrow(/CHECK/);
  });
});
