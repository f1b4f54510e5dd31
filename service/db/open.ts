import { closeSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';

/** How long a connection waits for another connection's write lock before failing with SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5_000;

/**
 * Open (creating if missing) a SQLite database file for one process: WAL journal, foreign keys
 * enforced, a busy timeout so that two processes on the same file wait for each other instead of
 * failing, and `synchronous = NORMAL`, which in WAL mode can lose the last commits on power loss
 * but never corrupts the file.
 *
 * A new file is created with mode 0600 first, because SQLite gives its -wal and -shm files the
 * mode of the database file and the database holds secrets (hashes, the token signing key).
 */
export function openDatabase(path: string): Database.Database {
  closeSync(openSync(path, 'a', 0o600));
  const db = new Database(path);
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    const mode = db.pragma('journal_mode = WAL', { simple: true });
    if (mode !== 'wal') throw new Error(`could not switch ${path} to WAL journal mode (got ${String(mode)})`);
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}
