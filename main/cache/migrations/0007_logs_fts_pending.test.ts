import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../../db/migrate';
import { cacheMigrations } from './index';

describe('cache migration 7: lines indexed after they are cached', () => {
  it('applies on top of migration 6; a new line waits in log_fts_pending; deleting a line removes it from wherever it is, leaving the index whole', () => {
    const db = new Database(':memory:');
    migrate(db, cacheMigrations.slice(0, 6));
    expect(migrate(db, cacheMigrations.slice(0, 7))).toEqual({ from: 6, to: 7, applied: ['logs_fts_pending'] });
    const insert = db.prepare("INSERT INTO logs (key, part_id, entry_id, level, source, host, message, detail, bytes, cached_at) VALUES (?, 'p1', ?, 1, 's', 'h', ?, NULL, 10, 0)");
    insert.run(1, 'e1', 'Motor stalled at joint 3');
    insert.run(2, 'e2', 'motor fine');
    const find = (text: string) => db.prepare('SELECT rowid FROM logs_fts WHERE logs_fts MATCH ? ORDER BY rowid').pluck().all(`"${text}"`);
    expect(db.prepare('SELECT key FROM log_fts_pending ORDER BY key').pluck().all()).toEqual([1, 2]);
    expect(find('motor')).toEqual([]);
    // Index line 1 as the worker does.
    db.prepare('INSERT INTO logs_fts (rowid, message) SELECT key, message FROM logs WHERE key = 1').run();
    db.prepare('DELETE FROM log_fts_pending WHERE key = 1').run();
    expect(find('motor')).toEqual([1]);
    // Deleting an indexed line and a pending one.
    db.prepare('DELETE FROM logs').run();
    expect(find('motor')).toEqual([]);
    expect(db.prepare('SELECT count(*) FROM log_fts_pending').pluck().get()).toBe(0);
    db.prepare("INSERT INTO logs_fts (logs_fts) VALUES ('integrity-check')").run();
  });
});
