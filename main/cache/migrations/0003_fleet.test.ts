import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../../db/migrate';
import { cacheMigrations } from './index';
import { readTree, replaceFleet } from '../../fleet/tree';

const at = '2026-11-23T10:00:00.000Z';

describe('cache migration 3: fleet', () => {
  it('applies on top of migration 2 with STRICT tables keyed by organization and id', () => {
    const db = new Database(':memory:');
    migrate(db, cacheMigrations.slice(0, 2));
    expect(migrate(db, cacheMigrations.slice(0, 3))).toEqual({ from: 2, to: 3, applied: ['fleet'] });
    for (const table of ['fleet_sync', 'locations', 'machines', 'parts']) {
      expect((db.pragma(`table_list(${table})`) as { strict: number }[])[0]?.strict, table).toBe(1);
    }
    // The same location may be in two organizations' trees (a share), not twice in one.
    const insert = db.prepare("INSERT INTO locations (org_id, id, name, owner_org_id, fetched_at) VALUES (?, 'l1', 'Site', 'a', ?)");
    insert.run('a', at);
    insert.run('b', at);
    expect(() => insert.run('a', at)).toThrow(/UNIQUE|PRIMARY/);
    expect(() => db.prepare("INSERT INTO locations (org_id, id, name, owner_org_id, shared_with, fetched_at) VALUES ('c', 'l2', 'x', 'c', 'nope', ?)").run(at)).toThrow(/CHECK/);
  });

  it('stores what the tree reads', () => {
    const db = new Database(':memory:');
    migrate(db, cacheMigrations);
    replaceFleet(
      db,
      'a',
      {
        locations: [{ id: 'l1', name: 'Site', parentLocationId: '', region: '', ownerOrgId: 'a', sharedWithOrgIds: ['b'], createdOn: null, robotCount: 1 }],
        machines: [{ id: 'm1', name: 'bot', locationId: 'l1', createdOn: null, parts: [{ id: 'p1', name: 'bot-main', mainPart: true, fqdn: 'f', lastAccess: at, markedForRestart: true }] }],
      },
      at,
    );
    expect(readTree(db, 'a')).toEqual({
      orgId: 'a',
      syncedAt: at,
      locations: [{ id: 'l1', name: 'Site', parentLocationId: '', ownerOrgId: 'a', sharedWithOrgIds: ['b'] }],
      machines: [{ id: 'm1', name: 'bot', locationId: 'l1', parts: [{ id: 'p1', name: 'bot-main', mainPart: true, lastAccess: at, markedForRestart: true }] }],
    });
    // The address is kept for the part's page, not drawn in the tree.
    expect(db.prepare('SELECT fqdn FROM parts WHERE id = ?').pluck().get('p1')).toBe('f');
  });
});
