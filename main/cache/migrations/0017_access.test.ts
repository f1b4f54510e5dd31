import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../../db/migrate';
import { cacheMigrations } from './index';

describe('cache migration 17: access', () => {
  it('applies on top of migration 16, keys rows per organization, refuses roles and types outside the contract and what is not JSON, and has no column for a secret', () => {
    const db = new Database(':memory:');
    migrate(db, cacheMigrations.slice(0, 16));
    expect(migrate(db, cacheMigrations.slice(0, 17))).toEqual({ from: 16, to: 17, applied: ['access'] });
    const member = db.prepare('INSERT INTO access_members (org_id, user_id, position, name, emails, grants) VALUES (?, ?, ?, ?, ?, ?)');
    member.run('o1', 'u1', 0, 'Ana', '["ana@example.com"]', '[]');
    member.run('o2', 'u1', 0, 'Ana', '["ana@example.com"]', '[]');
    expect(() => member.run('o1', 'u1', 1, 'Ana', '[]', '[]')).toThrow(/UNIQUE|PRIMARY/);
    expect(() => member.run('o1', 'u2', 1, 'Bo', 'nope', '[]')).toThrow(/CHECK/);
    const role = db.prepare('INSERT INTO access_roles (org_id, resource_type, resource_id, identity_type, identity_id, role) VALUES (?, ?, ?, ?, ?, ?)');
    role.run('o1', 'location', 'l1', 'key', 'k1', 'owner');
    expect(() => role.run('o1', 'robot', 'm1', 'key', 'k1', 'owner')).toThrow(/CHECK/);
    expect(() => role.run('o1', 'machine', 'm1', 'key', 'k1', 'admin')).toThrow(/CHECK/);
    expect(() => role.run('o1', 'machine', 'm1', 'group', 'k1', 'owner')).toThrow(/CHECK/);
    expect(() => db.prepare('INSERT INTO access_keys (org_id, key_id, position, name, created_on) VALUES (?, ?, ?, ?, ?)').run('o1', 'k1', 0, 'ci', Buffer.from('x'))).toThrow(/cannot store BLOB/);
    expect(() => db.prepare('INSERT INTO key_permissions (org_id, organization, locations, machines, checked_at) VALUES (?, ?, ?, ?, ?)').run('o1', 3, '{', '{}', 'x')).toThrow(/CHECK/);
    const columns = ['access_members', 'access_invites', 'access_keys', 'access_roles', 'key_permissions'].flatMap((t) =>
      (db.prepare(`PRAGMA table_info(${t})`).all() as { name: string }[]).map((c) => c.name),
    );
    expect(columns.filter((c) => /secret|key$|token|payload/.test(c))).toEqual([]);
  });
});
