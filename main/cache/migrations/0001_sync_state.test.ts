import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../../db/migrate';
import { cacheMigrations } from './index';
import { markSynced, syncedAt } from '../cache';

describe('cache migration 1: sync_state', () => {
  it('creates a strict table keyed by resource', () => {
    const db = new Database(':memory:');
    expect(migrate(db, cacheMigrations.slice(0, 1))).toEqual({ from: 0, to: 1, applied: ['sync_state'] });
    markSynced(db, 'organizations', '2026-11-22T10:00:00.000Z');
    markSynced(db, 'organizations', '2026-11-22T11:00:00.000Z');
    expect(syncedAt(db, 'organizations')).toBe('2026-11-22T11:00:00.000Z');
    expect(syncedAt(db, 'locations')).toBeNull();
    // STRICT: a number is not a resource name.
    expect(() => db.prepare('INSERT INTO sync_state (resource, synced_at) VALUES (?, ?)').run(1, Buffer.from('x'))).toThrow(/cannot store/);
  });
});
