import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate, userVersion, type Migration } from './migrate';

const steps: Migration[] = [
  { version: 1, name: 'things', sql: 'CREATE TABLE things (id INTEGER PRIMARY KEY, name TEXT NOT NULL) STRICT;' },
  { version: 2, name: 'thing_tags', sql: 'CREATE TABLE tags (thing_id INTEGER NOT NULL REFERENCES things (id), tag TEXT NOT NULL) STRICT; CREATE INDEX tags_by_thing ON tags (thing_id);' },
];

function tables(db: Database.Database): string[] {
  return (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
}

describe('migrate', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });
  const memory = () => {
    const db = new Database(':memory:');
    db.pragma('foreign_keys = ON');
    cleanups.push(() => db.close());
    return db;
  };

  it('applies every step in order and records the version', () => {
    const db = memory();
    expect(migrate(db, steps)).toEqual({ from: 0, to: 2, applied: ['things', 'thing_tags'] });
    expect(userVersion(db)).toBe(2);
    expect(tables(db)).toEqual(['tags', 'things']);
  });

  it('applies only the missing steps, and nothing the second time', () => {
    const db = memory();
    migrate(db, steps.slice(0, 1));
    expect(migrate(db, steps)).toEqual({ from: 1, to: 2, applied: ['thing_tags'] });
    expect(migrate(db, steps)).toEqual({ from: 2, to: 2, applied: [] });
  });

  it('rolls a failing step back entirely, keeping the steps before it', () => {
    const db = memory();
    const broken: Migration = { version: 2, name: 'broken', sql: 'CREATE TABLE half (id INTEGER) STRICT; CREATE TABLE things (oops TEXT);' };
    expect(() => migrate(db, [steps[0] as Migration, broken])).toThrow(/migration 2 "broken" failed: .*already exists/);
    expect(userVersion(db)).toBe(1);
    expect(tables(db)).toEqual(['things']);
  });

  it('refuses a step that leaves foreign key violations', () => {
    const db = memory();
    migrate(db, steps);
    const dangling: Migration = { version: 3, name: 'dangling', sql: 'CREATE TABLE extra (id INTEGER) STRICT;' };
    // A step cannot switch foreign keys off itself (not inside a transaction), so plant the orphan first.
    db.pragma('foreign_keys = OFF');
    db.prepare("INSERT INTO tags (thing_id, tag) VALUES (42, 'orphan')").run();
    db.pragma('foreign_keys = ON');
    expect(() => migrate(db, [...steps, dangling])).toThrow(/foreign key violation/);
    expect(userVersion(db)).toBe(2);
  });

  it('refuses versions that do not count up from 1', () => {
    const db = memory();
    expect(() => migrate(db, [steps[1] as Migration])).toThrow(/expected 1/);
    expect(() => migrate(db, [steps[0] as Migration, { ...(steps[1] as Migration), version: 3 }])).toThrow(/expected 2/);
    expect(userVersion(db)).toBe(0);
  });

  it('refuses a database newer than the steps it knows', () => {
    const db = memory();
    migrate(db, steps);
    expect(() => migrate(db, steps.slice(0, 1))).toThrow(/schema version 2, newer than this build knows \(1\)/);
  });

  it('lets two connections migrate one file at once without applying a step twice', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleet-migrate-test-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    // db/ imports nothing of ours, so not the service's openDatabase: the same pragmas that matter here.
    const onFile = () => {
      const db = new Database(join(dir, 'db.sqlite'));
      db.pragma('busy_timeout = 5000');
      db.pragma('journal_mode = WAL');
      db.pragma('foreign_keys = ON');
      return db;
    };
    const a = onFile();
    const b = onFile();
    cleanups.push(() => a.close(), () => b.close());
    migrate(a, steps);
    // b reads the version as it was before a migrated, as it would had a won the race after b's first look.
    let firstLook = true;
    const lagging = new Proxy(b, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property, target);
        if (property === 'pragma' && typeof value === 'function') {
          return (source: string, options?: Database.PragmaOptions) => {
            if (source === 'user_version' && firstLook) {
              firstLook = false;
              return 0;
            }
            return target.pragma(source, options);
          };
        }
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    expect(migrate(lagging, steps)).toEqual({ from: 0, to: 2, applied: [] });
    expect(firstLook).toBe(false);
    expect(tables(b)).toEqual(['tags', 'things']);
  });
});
