/** Small UI state a profile keeps across restarts (a log retention, a page's layout), by key. */
import type { CacheDb } from './cache';

export function getUiState(db: CacheDb, key: string): unknown {
  const json = db.prepare('SELECT value FROM ui_state WHERE key = ?').pluck().get(key) as string | undefined;
  return json === undefined ? null : (JSON.parse(json) as unknown);
}

export function setUiState(db: CacheDb, key: string, value: unknown): void {
  db.prepare('INSERT INTO ui_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, JSON.stringify(value));
}
