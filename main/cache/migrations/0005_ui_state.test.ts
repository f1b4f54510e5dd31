import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../../db/migrate';
import { cacheMigrations } from './index';
import { getUiState, setUiState } from '../ui-state';

describe('cache migration 5: ui_state', () => {
  it('applies on top of migration 4 and keeps JSON values by key', () => {
    const db = new Database(':memory:');
    migrate(db, cacheMigrations.slice(0, 4));
    expect(migrate(db, cacheMigrations.slice(0, 5))).toEqual({ from: 4, to: 5, applied: ['ui_state'] });
    expect(getUiState(db, 'tree.expanded')).toBeNull();
    setUiState(db, 'tree.expanded', ['a']);
    setUiState(db, 'tree.expanded', ['a', 'b']);
    expect(getUiState(db, 'tree.expanded')).toEqual(['a', 'b']);
    expect(() => db.prepare("INSERT INTO ui_state VALUES ('k', 'not json')").run()).toThrow(/CHECK/);
  });
});
