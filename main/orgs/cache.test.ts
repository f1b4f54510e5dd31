// Migration 2's table through the organizations' own reads and writes: beside them, since the kernel's
// migrations folder imports no domain.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../db/migrate';
import { cacheMigrations } from '../cache/migrations/index';
import { getOrg, listOrgs, replaceOrgs, upsertOrg } from './cache';
import type { Organization } from '../../common/orgs';

const org = (id: string, name: string): Organization => ({
  id,
  name,
  createdOn: '2026-11-01T00:00:00.000Z',
  publicNamespace: '',
  region: 'eu-west',
  cid: '',
  defaultFragments: [{ fragmentId: 'f1', version: null }],
});

describe('cache migration 2: organizations', () => {
  it('applies on top of migration 1 and stores organizations whole', () => {
    const db = new Database(':memory:');
    migrate(db, cacheMigrations.slice(0, 1));
    expect(migrate(db, cacheMigrations.slice(0, 2))).toEqual({ from: 1, to: 2, applied: ['organizations'] });
    upsertOrg(db, org('b', 'beta'));
    upsertOrg(db, org('a', 'Alpha'));
    expect(listOrgs(db).map((o) => o.name)).toEqual(['Alpha', 'beta']);
    expect(getOrg(db, 'a')).toEqual(org('a', 'Alpha'));
  });

  it('rejects default_fragments that are not JSON', () => {
    const db = new Database(':memory:');
    migrate(db, cacheMigrations);
    expect(() => db.prepare("INSERT INTO organizations (id, name, default_fragments) VALUES ('x', 'x', 'not json')").run()).toThrow(/CHECK constraint/);
  });

  it('replaces the list in one transaction: a failure keeps the previous list', () => {
    const db = new Database(':memory:');
    migrate(db, cacheMigrations);
    replaceOrgs(db, [org('a', 'Alpha'), org('b', 'Beta')], '2026-11-22T10:00:00.000Z');
    const broken = { ...org('c', 'Gamma'), name: null } as unknown as Organization;
    expect(() => replaceOrgs(db, [org('a', 'Alpha'), broken], '2026-11-22T11:00:00.000Z')).toThrow();
    expect(listOrgs(db).map((o) => o.id)).toEqual(['a', 'b']);
    replaceOrgs(db, [org('c', 'Gamma')], '2026-11-22T12:00:00.000Z');
    expect(listOrgs(db).map((o) => o.id)).toEqual(['c']);
  });
});
