// A generic schema migration runner over `PRAGMA user_version`.
// Shared by the fleet service and the desktop app's local cache, so it knows nothing about either schema.
import type Database from 'better-sqlite3';

/** One schema step. `version` counts up from 1 with no gaps; `sql` may hold several statements. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** What {@link migrate} did. `applied` lists the names of the steps run by this call, in order. */
export interface MigrationResult {
  readonly from: number;
  readonly to: number;
  readonly applied: readonly string[];
}

/**
 * Bring `db` up to the last of `migrations`, running each missing step in its own IMMEDIATE
 * transaction that also records the step in `user_version`, so a failing step leaves the database
 * at the previous version with none of its changes.
 *
 * Safe against another process migrating the same file at the same time: each step takes the
 * write lock first and re-reads the version, so a step already applied by the other process is
 * skipped (the connection's busy_timeout decides how long it waits for the lock).
 *
 * Throws when the list is not numbered 1, 2, 3… in order, when the database is newer than the
 * list (a newer build wrote it: refusing beats silently running against an unknown schema), or when
 * a step leaves a foreign key violation behind.
 *
 * A step runs inside a transaction, where `PRAGMA foreign_keys` cannot be changed: a step that
 * rebuilds a table must not rely on switching foreign keys off.
 */
export function migrate(db: Database.Database, migrations: readonly Migration[]): MigrationResult {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) {
      throw new Error(`migration "${m.name}" has version ${m.version}; expected ${i + 1} (versions count up from 1 with no gaps)`);
    }
  });
  const latest = migrations.length;
  const from = userVersion(db);
  if (from > latest) {
    throw new Error(`the database is at schema version ${from}, newer than this build knows (${latest}); use a newer build or another database`);
  }

  const applied: string[] = [];
  for (const m of migrations.slice(from)) {
    const step = db.transaction(() => {
      if (userVersion(db) >= m.version) return false;
      db.exec(m.sql);
      const violations = db.pragma('foreign_key_check') as unknown[];
      if (violations.length > 0) {
        throw new Error(`migration ${m.version} "${m.name}" leaves ${violations.length} foreign key violation(s)`);
      }
      // The version lives in the file header, which is written by this same transaction.
      db.pragma(`user_version = ${m.version}`);
      return true;
    });
    try {
      if (step.immediate()) applied.push(m.name);
    } catch (e) {
      throw new Error(`migration ${m.version} "${m.name}" failed: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
  }
  return { from, to: userVersion(db), applied };
}

/** The schema version recorded in the database file (0 for a new one). */
export function userVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}
