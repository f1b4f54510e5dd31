import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../../db/migrate';
import { cacheMigrations } from './index';

describe('cache migration 6: logs', () => {
  it('applies on top of migration 5; keeps the full-text index in step with the lines; refuses a bad level and a second copy of an entry', () => {
    const db = new Database(':memory:');
    migrate(db, cacheMigrations.slice(0, 5));
    expect(migrate(db, cacheMigrations.slice(0, 6))).toEqual({ from: 5, to: 6, applied: ['logs'] });
    const insert = db.prepare("INSERT INTO logs (key, part_id, entry_id, level, source, host, message, detail, bytes, cached_at) VALUES (?, 'p1', ?, ?, 's', 'h', ?, NULL, 10, 0)");
    insert.run(1, 'e1', 3, 'Motor stalled at joint 3');
    insert.run(2, 'e2', 1, 'all good');
    const find = (text: string) => db.prepare('SELECT rowid FROM logs_fts WHERE logs_fts MATCH ?').pluck().all(`"${text}"`);
    expect(find('tor sta')).toEqual([1]);
    expect(find('MOTOR')).toEqual([1]);
    db.prepare('DELETE FROM logs WHERE key = 1').run();
    expect(find('tor sta')).toEqual([]);
    expect(() => insert.run(3, 'e2', 1, 'again')).toThrow(/UNIQUE/);
    expect(() => insert.run(4, 'e4', 7, 'bad level')).toThrow(/CHECK/);
    expect(db.prepare('SELECT lines, bytes FROM log_totals').get()).toEqual({ lines: 0, bytes: 0 });
  });
});
