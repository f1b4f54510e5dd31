/**
 * The fragments domain's tables of a profile's cache (migration 13): fragments as last read, the
 * configs of the revisions read, tags and histories; and drafts of edits not saved yet (migration
 * 16). Writes run as cache jobs (jobs.ts); reads of one fragment, one organization's list or the
 * drafts are small and stay on the main thread.
 */
import type { FragmentTag, FragmentVisibility } from '../../common/config';
import type { Fragment, FragmentDraft, FragmentHistoryEntry } from '../../common/fragments';
import type { IsoTime, JsonObject } from '../../common/schemas';
import { markSynced, syncedAt, type CacheDb } from '../cache/cache';
import { draftTable } from '../cache/drafts';
import type { FragmentRead } from './convert';

/** Drafts kept at most (the kernel's bound, the same for every table of drafts). */
export { MAX_DRAFTS } from '../cache/drafts';

/** The sync_state key of an organization's fragment list, and of a fragment's history. */
const listKey = (orgId: string) => `fragments:${orgId}`;
const historyKey = (fragmentId: string) => `fragment-history:${fragmentId}`;

interface FragmentRow {
  id: string;
  org_id: string;
  org_name: string;
  name: string;
  visibility: FragmentVisibility;
  created_on: string | null;
  last_updated: string;
  latest_revision: number;
  part_count: number;
  synced_at: string;
}

/** Keep fragments as read, each with the config of the revision it was read at; revisions and tags are replaced by what the service answered. */
function put(db: CacheDb, reads: readonly FragmentRead[], at: IsoTime): void {
  const row = db.prepare(
    `INSERT INTO fragments (id, org_id, org_name, name, visibility, created_on, last_updated, latest_revision, part_count, synced_at)
     VALUES (@id, @orgId, @orgName, @name, @visibility, @createdOn, @lastUpdated, @latestRevision, @partCount, @at)
     ON CONFLICT (id) DO UPDATE SET org_id = excluded.org_id, org_name = excluded.org_name, name = excluded.name, visibility = excluded.visibility,
       created_on = excluded.created_on, last_updated = excluded.last_updated, latest_revision = excluded.latest_revision, part_count = excluded.part_count,
       synced_at = excluded.synced_at`,
  );
  // A revision's config never changes: one already read is kept when a listing names the revision again.
  const revision = db.prepare(
    `INSERT INTO fragment_revisions (fragment_id, revision, created_on, config) VALUES (?, ?, ?, ?)
     ON CONFLICT (fragment_id, revision) DO UPDATE SET created_on = excluded.created_on, config = coalesce(excluded.config, fragment_revisions.config)`,
  );
  for (const { fragment, revision: read, config } of reads) {
    row.run({
      id: fragment.id,
      orgId: fragment.orgId,
      orgName: fragment.orgName,
      name: fragment.name,
      visibility: fragment.visibility,
      createdOn: fragment.createdOn,
      lastUpdated: fragment.lastUpdated,
      latestRevision: Number(fragment.latestRevision),
      partCount: fragment.partCount,
      at,
    });
    for (const r of fragment.revisions) revision.run(fragment.id, Number(r.revision), r.createdOn, r.revision === read ? JSON.stringify(config) : null);
    if (!fragment.revisions.some((r) => r.revision === read)) revision.run(fragment.id, Number(read), null, JSON.stringify(config));
    putTags(db, fragment.id, fragment.tags);
  }
}

export function putFragments(db: CacheDb, reads: readonly FragmentRead[], at: IsoTime): void {
  db.transaction(() => put(db, reads, at))();
}

/**
 * Make the organization's cached fragments of these visibilities what the service listed: those no
 * longer listed (deleted, or made the other visibility) go with everything cached of them.
 */
export function replaceOrgFragments(db: CacheDb, orgId: string, visibilities: readonly FragmentVisibility[], reads: readonly FragmentRead[], at: IsoTime): void {
  db.transaction(() => {
    const listed = new Set(reads.map((r) => r.fragment.id));
    const cached = db.prepare('SELECT id FROM fragments WHERE org_id = ? AND visibility IN (SELECT value FROM json_each(?))').pluck().all(orgId, JSON.stringify(visibilities)) as string[];
    for (const id of cached) if (!listed.has(id)) remove(db, id);
    put(db, reads, at);
    markSynced(db, listKey(orgId), at);
  })();
}

function remove(db: CacheDb, id: string): void {
  for (const table of ['fragment_revisions', 'fragment_tags', 'fragment_history']) db.prepare(`DELETE FROM ${table} WHERE fragment_id = ?`).run(id);
  db.prepare('DELETE FROM fragments WHERE id = ?').run(id);
  db.prepare('DELETE FROM sync_state WHERE resource = ?').run(historyKey(id));
}

/** Forget a fragment deleted (here or elsewhere). */
export function removeFragment(db: CacheDb, id: string): void {
  db.transaction(() => remove(db, id))();
}

function putTags(db: CacheDb, fragmentId: string, tags: readonly FragmentTag[]): void {
  db.prepare('DELETE FROM fragment_tags WHERE fragment_id = ?').run(fragmentId);
  const insert = db.prepare('INSERT INTO fragment_tags (fragment_id, tag, revision, updated_on) VALUES (?, ?, ?, ?)');
  for (const t of tags) insert.run(fragmentId, t.tag, Number(t.revision), t.updatedOn);
}

/** A fragment's tags as SetFragmentTag or DeleteFragmentTag answered them. */
export function replaceFragmentTags(db: CacheDb, fragmentId: string, tags: readonly FragmentTag[]): void {
  db.transaction(() => putTags(db, fragmentId, tags))();
}

/** Keep history entries as read (by the revision each made, which never changes); `first` marks when the newest page was read. */
export function putFragmentHistory(db: CacheDb, fragmentId: string, entries: readonly FragmentHistoryEntry[], first: boolean, at: IsoTime): void {
  db.transaction(() => {
    const insert = db.prepare('INSERT INTO fragment_history (fragment_id, revision, entry) VALUES (?, ?, ?) ON CONFLICT (fragment_id, revision) DO UPDATE SET entry = excluded.entry');
    for (const e of entries) insert.run(fragmentId, Number(e.revision), JSON.stringify(e));
    if (first) markSynced(db, historyKey(fragmentId), at);
  })();
}

/** Rows as the bridge's fragments, with their revisions and tags (two queries for any number of rows). */
function withDetails(db: CacheDb, rows: readonly FragmentRow[]): { fragment: Fragment; syncedAt: IsoTime }[] {
  const ids = JSON.stringify(rows.map((r) => r.id));
  const revisions = new Map<string, Fragment['revisions'][number][]>();
  for (const r of db
    .prepare('SELECT fragment_id, revision, created_on FROM fragment_revisions WHERE fragment_id IN (SELECT value FROM json_each(?)) ORDER BY fragment_id, revision')
    .all(ids) as { fragment_id: string; revision: number; created_on: string | null }[]) {
    revisions.set(r.fragment_id, [...(revisions.get(r.fragment_id) ?? []), { revision: String(r.revision), createdOn: r.created_on }]);
  }
  const tags = new Map<string, FragmentTag[]>();
  for (const t of db
    .prepare('SELECT fragment_id, tag, revision, updated_on FROM fragment_tags WHERE fragment_id IN (SELECT value FROM json_each(?)) ORDER BY fragment_id, tag')
    .all(ids) as { fragment_id: string; tag: string; revision: number; updated_on: string | null }[]) {
    tags.set(t.fragment_id, [...(tags.get(t.fragment_id) ?? []), { tag: t.tag, revision: String(t.revision), updatedOn: t.updated_on }]);
  }
  return rows.map((r) => ({
    fragment: {
      id: r.id,
      name: r.name,
      orgId: r.org_id,
      orgName: r.org_name,
      visibility: r.visibility,
      createdOn: r.created_on,
      lastUpdated: r.last_updated,
      latestRevision: String(r.latest_revision),
      revisions: revisions.get(r.id) ?? [],
      tags: tags.get(r.id) ?? [],
      partCount: r.part_count,
    },
    syncedAt: r.synced_at,
  }));
}

/** A cached fragment and when it was read; null when not cached. */
export function cachedFragment(db: CacheDb, id: string): { fragment: Fragment; syncedAt: IsoTime } | null {
  const row = db.prepare('SELECT * FROM fragments WHERE id = ?').get(id) as FragmentRow | undefined;
  return row ? (withDetails(db, [row])[0] ?? null) : null;
}

/** Whether `search` (already trimmed) finds the fragment: its name or id contains it, in any case. */
export function matches(fragment: Pick<Fragment, 'id' | 'name'>, search: string | undefined): boolean {
  if (search === undefined || search === '') return true;
  const needle = search.toLowerCase();
  return fragment.name.toLowerCase().includes(needle) || fragment.id.toLowerCase().includes(needle);
}

/** The organization's cached fragments of these visibilities that `search` finds, by name; null when its list was never read and none is cached. */
export function cachedOrgFragments(db: CacheDb, orgId: string, visibilities: readonly FragmentVisibility[], search: string | undefined): { fragments: Fragment[]; syncedAt: IsoTime | null } | null {
  const rows = db.prepare('SELECT * FROM fragments WHERE org_id = ? AND visibility IN (SELECT value FROM json_each(?)) ORDER BY name, id').all(orgId, JSON.stringify(visibilities)) as FragmentRow[];
  const read = syncedAt(db, listKey(orgId));
  if (read === null && rows.length === 0) return null;
  return { fragments: withDetails(db, rows.filter((r) => matches(r, search))).map((f) => f.fragment), syncedAt: read };
}

/**
 * The revision a version names, as far as the cache knows: absent is the latest, digits a revision,
 * anything else a tag (as tags were last read). Null when the cache cannot tell.
 */
export function cachedRevisionOf(fragment: Fragment, version: string | undefined): string | null {
  if (version === undefined || version === '') return fragment.latestRevision;
  if (/^[0-9]+$/.test(version)) return fragment.revisions.some((r) => r.revision === version) ? version : null;
  return fragment.tags.find((t) => t.tag === version)?.revision ?? null;
}

/** The cached config of one revision of a fragment; null when that revision was never read. */
export function cachedRevisionConfig(db: CacheDb, fragmentId: string, revision: string): JsonObject | null {
  const text = db.prepare('SELECT config FROM fragment_revisions WHERE fragment_id = ? AND revision = ?').pluck().get(fragmentId, Number(revision)) as string | null | undefined;
  return typeof text === 'string' ? (JSON.parse(text) as JsonObject) : null;
}

/** Up to `limit` cached history entries of revisions below `below`, newest first, whether more are cached, and when the newest page was read; null when never read. */
export function cachedFragmentHistory(db: CacheDb, fragmentId: string, below: number, limit: number): { entries: FragmentHistoryEntry[]; more: boolean; syncedAt: IsoTime | null } | null {
  const read = syncedAt(db, historyKey(fragmentId));
  const rows = db.prepare('SELECT entry FROM fragment_history WHERE fragment_id = ? AND revision < ? ORDER BY revision DESC LIMIT ?').pluck().all(fragmentId, below, limit + 1) as string[];
  if (read === null && rows.length === 0) return null;
  return { entries: rows.slice(0, limit).map((r) => JSON.parse(r) as FragmentHistoryEntry), more: rows.length > limit, syncedAt: read };
}

/** What a draft holds of its own; the fragment's organization and name come from its cached row. */
export type DraftContent = Pick<FragmentDraft, 'fragmentId' | 'configJson' | 'baseConfigJson' | 'baseLastUpdated' | 'savedAt'>;

const drafts = draftTable<FragmentDraft>({
  table: 'fragment_drafts',
  key: 'fragment_id',
  join: 'LEFT JOIN fragments f ON f.id = d.fragment_id',
  joined: 'f.org_id, f.name',
  fromRow: (r, text) => ({
    fragmentId: r.id,
    orgId: r['org_id'] ?? '',
    name: r['name'] ?? '',
    ...text,
  }),
});

/** Keep a fragment's draft, replacing the one it had. A deleted fragment's draft stays: it is someone's work, dropped only when they say. */
export function putDraft(db: CacheDb, draft: DraftContent): void {
  drafts.put(db, draft.fragmentId, draft);
}

export function dropDraft(db: CacheDb, fragmentId: string): void {
  drafts.drop(db, fragmentId);
}

export function cachedDraft(db: CacheDb, fragmentId: string): FragmentDraft | null {
  return drafts.get(db, fragmentId);
}

/** Every fragment draft, most recently kept first. */
export function cachedDrafts(db: CacheDb): FragmentDraft[] {
  return drafts.all(db);
}

/** Whether another draft may be kept for `fragmentId` (replacing its own always may). */
export function roomForDraft(db: CacheDb, fragmentId: string): boolean {
  return drafts.room(db, fragmentId);
}
