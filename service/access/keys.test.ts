// The key store's per-call check: what a token's secret version says once the key is rotated or
// deleted, and the use record that must never fail a call.
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate } from '../../db/migrate';
import { serviceMigrations } from '../db/migrations';
import { ApiKeyStore } from './keys';

const open: Database.Database[] = [];
afterEach(() => {
  for (const db of open.splice(0)) db.close();
});

function store(): { db: Database.Database; keys: ApiKeyStore } {
  const db = new Database(':memory:');
  open.push(db);
  migrate(db, serviceMigrations);
  return { db, keys: new ApiKeyStore(db) };
}

describe('ApiKeyStore.check', () => {
  it('says active for the current secret version, rotated for an earlier one, deleted once deleted', async () => {
    const { keys } = store();
    const key = keys.prepare('k');
    keys.insert(key);
    expect(await keys.verify(key.id, key.secret)).toBe(1);
    expect(keys.check(key.id, 1)).toBe('active');
    const secret = keys.rotate(key.id)!;
    expect(await keys.verify(key.id, key.secret)).toBeNull();
    expect(await keys.verify(key.id, secret)).toBe(2);
    expect(keys.check(key.id, 1)).toBe('rotated');
    expect(keys.check(key.id, 2)).toBe('active');
    expect(keys.delete(key.id)).toBe(true);
    expect(keys.check(key.id, 2)).toBe('deleted');
    expect(keys.rotate(key.id)).toBeUndefined();
    expect(keys.check('00000000-0000-4000-8000-000000000000', 1)).toBe('deleted');
  });

  it('records a use at most once a minute, and a use that cannot be written fails nothing', () => {
    const { db, keys } = store();
    const key = keys.prepare('k');
    const created = new Date('2026-01-01T00:00:00.000Z');
    keys.insert(key, created);
    const lastUsed = () => db.prepare('SELECT last_used_at FROM api_keys WHERE id = ?').pluck().get(key.id);
    keys.check(key.id, 1, new Date('2026-01-01T00:00:10.000Z'));
    expect(lastUsed()).toBe('2026-01-01T00:00:10.000Z');
    keys.check(key.id, 1, new Date('2026-01-01T00:01:09.000Z'));
    expect(lastUsed()).toBe('2026-01-01T00:00:10.000Z');
    keys.check(key.id, 1, new Date('2026-01-01T00:01:10.000Z'));
    expect(lastUsed()).toBe('2026-01-01T00:01:10.000Z');
    db.exec("CREATE TRIGGER no_writes BEFORE UPDATE ON api_keys BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END");
    expect(keys.check(key.id, 1, new Date('2026-01-01T00:05:00.000Z'))).toBe('active');
    expect(lastUsed()).toBe('2026-01-01T00:01:10.000Z');
  });
});
