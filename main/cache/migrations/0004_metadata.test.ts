import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../../db/migrate';
import { cacheMigrations } from './index';
import { cachedMetadata, putMetadata } from '../metadata';

describe('cache migration 4: metadata', () => {
  it('applies on top of migration 3 and keeps one JSON object per resource', () => {
    const db = new Database(':memory:');
    migrate(db, cacheMigrations.slice(0, 3));
    expect(migrate(db, cacheMigrations.slice(0, 4))).toEqual({ from: 3, to: 4, applied: ['metadata'] });
    putMetadata(db, 'machine', 'm1', { a: 1 }, '2026-11-23T10:00:00.000Z');
    putMetadata(db, 'machine', 'm1', { b: 2 }, '2026-11-23T11:00:00.000Z');
    expect(cachedMetadata(db, 'machine', 'm1')).toEqual({ metadata: { b: 2 }, fetchedAt: '2026-11-23T11:00:00.000Z' });
    expect(() => db.prepare("INSERT INTO metadata VALUES ('robot', 'x', '{}', 't')").run()).toThrow(/CHECK/);
    expect(() => db.prepare("INSERT INTO metadata VALUES ('part', 'x', '[1]', 't')").run()).toThrow(/CHECK/);
  });
});
