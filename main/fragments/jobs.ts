/** The fragments domain's cache jobs (cache.ts). */
import type { FragmentTag, FragmentVisibility } from '../../common/config';
import type { FragmentHistoryEntry } from '../../common/fragments';
import type { IsoTime } from '../../common/schemas';
import type { CacheDb } from '../cache/cache';
import { dropDraft, putDraft, putFragmentHistory, putFragments, removeFragment, replaceFragmentTags, replaceOrgFragments, type DraftContent } from './cache';
import type { FragmentRead } from './convert';

export const fragmentsJobs = {
  /** Fragments read one by one (get, create, update), each with the config of its revision read. */
  fragmentsPut: (db: CacheDb, reads: readonly FragmentRead[], at: IsoTime): void => putFragments(db, reads, at),
  /** An organization's whole list of these visibilities replaces its cached ones. */
  fragmentsReplace: (db: CacheDb, orgId: string, visibilities: readonly FragmentVisibility[], reads: readonly FragmentRead[], at: IsoTime): void =>
    replaceOrgFragments(db, orgId, visibilities, reads, at),
  fragmentsRemove: (db: CacheDb, id: string): void => removeFragment(db, id),
  fragmentsTags: (db: CacheDb, fragmentId: string, tags: readonly FragmentTag[]): void => replaceFragmentTags(db, fragmentId, tags),
  /** A page of a fragment's history; `first` for the newest page. */
  fragmentsHistoryPut: (db: CacheDb, fragmentId: string, entries: readonly FragmentHistoryEntry[], first: boolean, at: IsoTime): void => putFragmentHistory(db, fragmentId, entries, first, at),
  /** Keep a fragment's draft (replacing its previous one). */
  fragmentsDraftPut: (db: CacheDb, draft: DraftContent): void => putDraft(db, draft),
  /** A fragment's draft is saved or given up. */
  fragmentsDraftDrop: (db: CacheDb, fragmentId: string): void => dropDraft(db, fragmentId),
};
