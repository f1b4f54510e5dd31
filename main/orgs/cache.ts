/** The organizations table of a profile's cache. */
import { z } from 'zod';
import type { Organization } from '../../common/orgs';
import { markSynced, syncedAt, type CacheDb } from '../cache/cache';

export const ORGS_RESOURCE = 'organizations';

interface Row {
  id: string;
  name: string;
  created_on: string | null;
  public_namespace: string;
  region: string;
  cid: string;
  default_fragments: string;
}

const fragments = z.array(z.object({ fragmentId: z.string(), version: z.string().nullable() }));

function fromRow(row: Row): Organization {
  return {
    id: row.id,
    name: row.name,
    createdOn: row.created_on,
    publicNamespace: row.public_namespace,
    region: row.region,
    cid: row.cid,
    defaultFragments: fragments.parse(JSON.parse(row.default_fragments)),
  };
}

const UPSERT = `
  INSERT INTO organizations (id, name, created_on, public_namespace, region, cid, default_fragments)
  VALUES (@id, @name, @createdOn, @publicNamespace, @region, @cid, @defaultFragments)
  ON CONFLICT (id) DO UPDATE SET
    name = excluded.name, created_on = excluded.created_on, public_namespace = excluded.public_namespace,
    region = excluded.region, cid = excluded.cid, default_fragments = excluded.default_fragments`;

function params(org: Organization) {
  return { ...org, defaultFragments: JSON.stringify(org.defaultFragments) };
}

export function listOrgs(db: CacheDb): Organization[] {
  return (db.prepare('SELECT * FROM organizations ORDER BY name COLLATE NOCASE, id').all() as Row[]).map(fromRow);
}

export function getOrg(db: CacheDb, id: string): Organization | null {
  const row = db.prepare('SELECT * FROM organizations WHERE id = ?').get(id) as Row | undefined;
  return row ? fromRow(row) : null;
}

/** Store one organization (after a create or a fresh read) without touching the others. */
export function upsertOrg(db: CacheDb, org: Organization): void {
  db.prepare(UPSERT).run(params(org));
}

/**
 * Make the cache equal to `orgs`, the service's full list, in one transaction: a failure halfway
 * leaves the previous list, never a mix.
 */
export function replaceOrgs(db: CacheDb, orgs: readonly Organization[], at: string): void {
  const upsert = db.prepare(UPSERT);
  db.transaction(() => {
    const keep = new Set(orgs.map((o) => o.id));
    const existing = db.prepare('SELECT id FROM organizations').pluck().all() as string[];
    const remove = db.prepare('DELETE FROM organizations WHERE id = ?');
    for (const id of existing) if (!keep.has(id)) remove.run(id);
    for (const org of orgs) upsert.run(params(org));
    markSynced(db, ORGS_RESOURCE, at);
  })();
}

export function orgsSyncedAt(db: CacheDb): string | null {
  return syncedAt(db, ORGS_RESOURCE);
}
