import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../../db/migrate';
import { cacheMigrations } from './index';

describe('cache migration 14: machine_fragments', () => {
  it('applies on top of migration 13 and keeps one JSON list per machine', () => {
    const db = new Database(':memory:');
    migrate(db, cacheMigrations.slice(0, 13));
    expect(migrate(db, cacheMigrations.slice(0, 14))).toEqual({ from: 13, to: 14, applied: ['machine_fragments'] });
    const insert = db.prepare('INSERT INTO machine_fragments (machine_id, fragments, synced_at) VALUES (?, ?, ?)');
    insert.run('m', '[{"id": "f"}]', 'now');
    expect(db.prepare("SELECT json_array_length(fragments) FROM machine_fragments WHERE machine_id = 'm'").pluck().get()).toBe(1);
    expect(() => insert.run('m', '[]', 'later')).toThrow(/UNIQUE|PRIMARY/);
    expect(() => insert.run('n', '{"id": "f"}', 'now')).toThrow(/CHECK/);
    expect(() => insert.run('n', 'nope', 'now')).toThrow(/CHECK|malformed JSON/);
  });
});
