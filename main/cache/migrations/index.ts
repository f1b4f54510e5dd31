import type { Migration } from '../../../service/db/migrate';
import syncState from './0001_sync_state';
import organizations from './0002_organizations';

/** Every schema step of the cache, in order. A step, once shipped, is never edited: add the next one. */
export const cacheMigrations: readonly Migration[] = [syncState, organizations];
