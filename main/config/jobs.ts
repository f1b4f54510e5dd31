/** The config domain's cache jobs (cache.ts). */
import type { CacheDb } from '../cache/cache';
import type { MachineFragment, PartHistoryEntry } from '../../common/config';
import type { IsoTime } from '../../common/schemas';
import { dropDraft, forgetPart, putDraft, putMachineFragments, putPartConfig, putPartHistory, type CachedPartConfig, type DraftContent } from './cache';

export const configJobs = {
  /** A part's config as read or saved (an older answer never replaces a newer one). */
  configPut: (db: CacheDb, config: CachedPartConfig): void => putPartConfig(db, config),
  /** A part the service no longer has: its cached config and history go. */
  configForget: (db: CacheDb, partId: string): void => forgetPart(db, partId),
  /** A page of a part's history as read, `offset` entries from the newest (the first page replaces the cached history). */
  configHistoryPut: (db: CacheDb, partId: string, offset: number, entries: readonly PartHistoryEntry[], at: IsoTime): void => putPartHistory(db, partId, offset, entries, at),
  /** The fragments a machine resolves with, as ListMachineFragments answered. */
  configMachineFragmentsPut: (db: CacheDb, machineId: string, fragments: readonly MachineFragment[], at: IsoTime): void => putMachineFragments(db, machineId, fragments, at),
  /** Keep a part's draft (replacing its previous one). */
  configDraftPut: (db: CacheDb, draft: DraftContent): void => putDraft(db, draft),
  /** A part's draft is saved or given up. */
  configDraftDrop: (db: CacheDb, partId: string): void => dropDraft(db, partId),
};
