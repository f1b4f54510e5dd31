import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FEED_INTERVAL_MS, LogFeed } from './feed';
import { migrate } from '../../db/migrate';
import { serviceMigrations } from '../db/migrations';
import { LogStore, RETAIN_DAYS, RETAIN_PER_PART, type NewLogEntry } from './store';

const open: Database.Database[] = [];
afterEach(() => {
  for (const db of open.splice(0)) db.close();
});

const NOW = '2026-11-01T00:00:00.000Z';
const ORG = '11111111-1111-4111-8111-111111111111';
const LOC = '22222222-2222-4222-8222-222222222222';
const ROBOT = '33333333-3333-4333-8333-333333333333';
const P1 = '44444444-4444-4444-8444-444444444444';
const P2 = '55555555-5555-4555-8555-555555555555';
const NOW_US = Date.parse(NOW) * 1000;

/** A database with two parts, P1 and P2. */
function withParts(): Database.Database {
  const db = new Database(':memory:');
  open.push(db);
  db.pragma('foreign_keys = ON');
  migrate(db, serviceMigrations);
  db.prepare("INSERT INTO organizations (id, name, created_on) VALUES (?, 'Org', ?)").run(ORG, NOW);
  db.prepare("INSERT INTO locations (id, organization_id, name, created_on) VALUES (?, ?, 'Site', ?)").run(LOC, ORG, NOW);
  db.prepare("INSERT INTO robots (id, location_id, name, created_on) VALUES (?, ?, 'bot', ?)").run(ROBOT, LOC, NOW);
  for (const [id, main] of [[P1, 1], [P2, 0]] as const) {
    db.prepare("INSERT INTO robot_parts (id, robot_id, location_id, name, main_part, fqdn, created_on, last_updated) VALUES (?, ?, ?, ?, ?, 'x', ?, ?)").run(id, ROBOT, LOC, `bot-${main}`, main, NOW, NOW);
  }
  return db;
}

const lines = (partId: string, n: number, fromUs: number): NewLogEntry[] => Array.from({ length: n }, (_, i) => ({ partId, timeUs: fromUs + i, level: 'INFO', message: `line ${i}` }));

describe('LogStore.prune', () => {
  it(`keeps the newest ${RETAIN_PER_PART} entries of each part and none older than ${RETAIN_DAYS} days`, () => {
    const db = withParts();
    const logs = new LogStore(db);
    logs.append(lines(P1, RETAIN_PER_PART + 5, NOW_US - 1_000_000));
    logs.append(lines(P2, 10, NOW_US - (RETAIN_DAYS * 86_400 + 5) * 1_000_000)); // over a week old
    logs.append(lines(P2, 3, NOW_US - 1_000_000));
    expect(logs.prune(NOW_US)).toBe(5 + 10);
    const count = (part: string) => db.prepare('SELECT count(*) FROM part_logs WHERE part_id = ?').pluck().get(part);
    expect(count(P1)).toBe(RETAIN_PER_PART);
    expect(count(P2)).toBe(3);
    // The oldest went: what is left of P1 starts at its sixth line.
    expect(db.prepare('SELECT message FROM part_logs WHERE part_id = ? ORDER BY time_us LIMIT 1').pluck().get(P1)).toBe('line 5');
    expect(logs.prune(NOW_US)).toBe(0);
    // A part that logged nothing since is left to the sweep (run when the service starts).
    logs.append(lines(P2, 1, NOW_US - (RETAIN_DAYS * 86_400 + 1) * 1_000_000));
    new LogStore(db).prune(NOW_US);
    expect(count(P2)).toBe(4);
    expect(new LogStore(db).sweep(NOW_US)).toBe(1);
    expect(count(P2)).toBe(3);
  });

  it('prunes after each append exactly what the append pushed past the bound, whatever was deleted elsewhere', () => {
    const db = withParts();
    const logs = new LogStore(db);
    const count = (part: string) => db.prepare('SELECT count(*) FROM part_logs WHERE part_id = ?').pluck().get(part);
    logs.append(lines(P1, RETAIN_PER_PART - 10, NOW_US - 10_000_000));
    expect(logs.prune(NOW_US)).toBe(0);
    for (let i = 0; i < 5; i++) {
      logs.append(lines(P1, 7, NOW_US - 1_000_000 + i * 10));
      logs.prune(NOW_US);
    }
    expect(count(P1)).toBe(RETAIN_PER_PART);
    logs.append(lines(P1, 1, NOW_US + 1000));
    expect(logs.prune(NOW_US)).toBe(1);
    expect(count(P1)).toBe(RETAIN_PER_PART);
    // Entries deleted behind the store's back (here all of them) are counted out too.
    db.prepare('DELETE FROM part_logs WHERE part_id = ?').run(P1);
    logs.append(lines(P1, 150, NOW_US));
    expect(logs.prune(NOW_US)).toBe(0);
    logs.append(lines(P1, RETAIN_PER_PART - 150, NOW_US + 200));
    expect(logs.prune(NOW_US)).toBe(0);
    logs.append(lines(P1, 3, NOW_US + 100_000));
    expect(logs.prune(NOW_US)).toBe(3);
    expect(count(P1)).toBe(RETAIN_PER_PART);
  });
});

describe('LogFeed', () => {
  it('hands each subscriber only the entries of its part stored after it subscribed, even when the feed is a look behind', () => {
    vi.useFakeTimers();
    try {
      const db = withParts();
      const logs = new LogStore(db);
      const feed = new LogFeed(logs, () => undefined);
      const seen = { a: [] as string[], b: [] as string[], other: [] as string[] };
      const stopA = feed.subscribe(P1, (entries) => seen.a.push(...entries.map((e) => e.entry.message)));
      feed.subscribe(P2, (entries) => seen.other.push(...entries.map((e) => e.entry.message)));
      logs.append(lines(P1, 2, NOW_US)); // line 0, line 1: before B, not yet looked at
      const stopB = feed.subscribe(P1, (entries) => seen.b.push(...entries.map((e) => e.entry.message)));
      logs.append([{ partId: P1, timeUs: NOW_US + 5, level: 'ERROR', message: 'after B' }]);
      vi.advanceTimersByTime(FEED_INTERVAL_MS);
      expect(seen).toEqual({ a: ['line 0', 'line 1', 'after B'], b: ['after B'], other: [] });
      stopA();
      stopB();
      logs.append(lines(P1, 1, NOW_US + 10));
      vi.advanceTimersByTime(FEED_INTERVAL_MS * 3);
      expect(seen.a).toHaveLength(3);
      feed.stop();
    } finally {
      vi.useRealTimers();
    }
  });
});


describe('LogStore.load', () => {
  it('counts what it loads without the per-row trigger, and puts the trigger back as it was', () => {
    const db = withParts();
    const store = new LogStore(db);
    store.append(lines(P1, 3, NOW_US));
    const trigger = db.prepare("SELECT sql FROM sqlite_schema WHERE name = 'part_logs_counted'").pluck().get();
    store.load([...lines(P1, 5, NOW_US - 1000), ...lines(P2, 4, NOW_US - 1000)]);
    const counts = () => db.prepare('SELECT part_id, n FROM part_log_counts ORDER BY part_id').all();
    expect(counts()).toEqual([{ part_id: P1, n: 8 }, { part_id: P2, n: 4 }]);
    expect(db.prepare("SELECT sql FROM sqlite_schema WHERE name = 'part_logs_counted'").pluck().get()).toBe(trigger);
    // The trigger counts again, and the loaded parts are pruned like appended ones.
    store.append(lines(P2, 1, NOW_US));
    expect(counts()).toEqual([{ part_id: P1, n: 8 }, { part_id: P2, n: 5 }]);
    expect(store.prune(NOW_US)).toBe(0);
  });
});
