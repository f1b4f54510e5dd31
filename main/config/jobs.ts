/** The config domain's cache jobs (cache.ts). */
import type { CacheDb } from '../cache/cache';
import { forgetPart, putPartConfig, type CachedPartConfig } from './cache';

export const configJobs = {
  /** A part's config as read or saved (an older answer never replaces a newer one). */
  configPut: (db: CacheDb, config: CachedPartConfig): void => putPartConfig(db, config),
  /** A part the service no longer has: its cached config goes. */
  configForget: (db: CacheDb, partId: string): void => forgetPart(db, partId),
};
