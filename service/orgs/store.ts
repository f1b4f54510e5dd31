import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { FragmentImport } from '../../proto/gen/fleet/app/v1/fragments';
import type { Organization } from '../../proto/gen/fleet/app/v1/orgs';
import { present } from '../errors';
import type { Grant, Identity } from '../permissions/engine';

/**
 * What creating and deleting an organization need of the authorizations, which the access domain
 * writes (access/authorizations.ts): handed in by the composition root, since a domain imports no
 * other domain. Both run inside this store's transactions.
 */
export interface OrgAuthorizations {
  grant(identity: Identity, on: Grant, now?: Date): void;
  dropOnResourcesOf(orgId: string): void;
}

/** Optional fields of a new organization; the service's own API sets none of them yet (the demo fleet does). */
export interface NewOrganizationExtras {
  readonly publicNamespace?: string;
  readonly region?: string;
  readonly cid?: string;
}

interface OrgRow {
  id: string;
  name: string;
  created_on: string;
  public_namespace: string | null;
  region: string;
  cid: string;
}

const COLUMNS = 'o.id, o.name, o.created_on, o.public_namespace, o.region, o.cid';

function toOrganization(row: OrgRow, defaultFragments: FragmentImport[] = []): Organization {
  return {
    id: row.id,
    name: row.name,
    createdOn: new Date(row.created_on),
    publicNamespace: row.public_namespace ?? '',
    region: row.region,
    cid: row.cid,
    defaultFragments,
  };
}

/** The changes UpdateOrganization makes: only the fields given. */
export interface OrgChanges {
  readonly name?: string;
  readonly publicNamespace?: string;
  readonly region?: string;
  readonly cid?: string;
  /** Replaces the whole list (empty clears it). */
  readonly defaultFragments?: readonly FragmentImport[];
}

/**
 * Organizations and who may see them. Visibility follows authorizations: an identity sees an
 * organization when it holds any authorization in it (on the organization itself or on one of
 * its locations or robots).
 */
export class OrgStore {
  constructor(
    private readonly db: Database.Database,
    private readonly authorizations: OrgAuthorizations,
  ) {}

  /** Create an organization and make `owner` its organization owner, in one transaction. */
  create(name: string, owner: Identity, extras: NewOrganizationExtras = {}, now: Date = new Date()): Organization {
    const id = randomUUID();
    this.db.transaction(() => {
      this.db
        .prepare('INSERT INTO organizations (id, name, created_on, public_namespace, region, cid) VALUES (?, ?, ?, ?, ?, ?)')
        .run(id, name, now.toISOString(), extras.publicNamespace ?? null, extras.region ?? '', extras.cid ?? '');
      this.authorizations.grant(owner, { organizationId: id, resourceType: 'organization', resourceId: id, role: 'owner' }, now);
    })();
    return toOrganization(this.db.prepare(`SELECT ${COLUMNS} FROM organizations o WHERE o.id = ?`).get(id) as OrgRow);
  }

  /** Organizations with their default fragments, read in one query for all of them. */
  private withDefaults(rows: readonly OrgRow[]): Organization[] {
    const entries = this.db
      .prepare('SELECT organization_id, fragment_id, version FROM organization_default_fragments WHERE organization_id IN (SELECT value FROM json_each(?)) ORDER BY organization_id, position')
      .all(JSON.stringify(rows.map((r) => r.id))) as { organization_id: string; fragment_id: string; version: string }[];
    const byOrg = new Map<string, FragmentImport[]>();
    for (const e of entries) byOrg.set(e.organization_id, [...(byOrg.get(e.organization_id) ?? []), e.version === '' ? { fragmentId: e.fragment_id } : { fragmentId: e.fragment_id, version: e.version }]);
    return rows.map((r) => toOrganization(r, byOrg.get(r.id) ?? []));
  }

  /** An organization's default fragments, in order (what NewRobot gives a new machine's main part). */
  defaultFragments(id: string): FragmentImport[] {
    const rows = this.db.prepare('SELECT fragment_id, version FROM organization_default_fragments WHERE organization_id = ? ORDER BY position').all(id) as { fragment_id: string; version: string }[];
    return rows.map((r) => (r.version === '' ? { fragmentId: r.fragment_id } : { fragmentId: r.fragment_id, version: r.version }));
  }

  /** The organizations whose default fragments name fragment `fragmentId` (at `version` when given), by name. */
  usingDefaultFragment(fragmentId: string, version?: string): { id: string; name: string }[] {
    return this.db
      .prepare(
        `SELECT DISTINCT o.id, o.name FROM organization_default_fragments d JOIN organizations o ON o.id = d.organization_id
          WHERE d.fragment_id = @fragment AND (@version IS NULL OR d.version = @version) ORDER BY o.name, o.id`,
      )
      .all({ fragment: fragmentId, version: version ?? null }) as { id: string; name: string }[];
  }

  /** The organizations `identity` holds an authorization in, by name. */
  listVisibleTo(identity: Identity): Organization[] {
    const rows = this.db
      .prepare(
        `SELECT ${COLUMNS} FROM organizations o
         WHERE o.id IN (SELECT organization_id FROM authorizations WHERE identity_type = ? AND identity_id = ?)
         ORDER BY o.name COLLATE NOCASE, o.name, o.id`,
      )
      .all(identity.type, identity.id) as OrgRow[];
    return this.withDefaults(rows);
  }

  /** Organization `id`, whoever may see it (the rule table checked that already). */
  get(id: string): Organization | undefined {
    const row = this.db.prepare(`SELECT ${COLUMNS} FROM organizations o WHERE o.id = ?`).get(id) as OrgRow | undefined;
    return row === undefined ? undefined : this.withDefaults([row])[0];
  }

  /**
   * Change the given fields only, in one statement each, in one IMMEDIATE transaction; `verify` runs
   * first inside it (the default fragments are checked there, so a fragment deleted meanwhile cannot
   * slip in).
   */
  update(id: string, changes: OrgChanges, verify?: () => void): Organization {
    this.db
      .transaction(() => {
        verify?.();
        if (changes.name !== undefined) this.db.prepare('UPDATE organizations SET name = ? WHERE id = ?').run(changes.name, id);
        if (changes.publicNamespace !== undefined) this.db.prepare('UPDATE organizations SET public_namespace = ? WHERE id = ?').run(changes.publicNamespace, id);
        if (changes.region !== undefined) this.db.prepare('UPDATE organizations SET region = ? WHERE id = ?').run(changes.region, id);
        if (changes.cid !== undefined) this.db.prepare('UPDATE organizations SET cid = ? WHERE id = ?').run(changes.cid, id);
        if (changes.defaultFragments !== undefined) {
          this.db.prepare('DELETE FROM organization_default_fragments WHERE organization_id = ?').run(id);
          const insert = this.db.prepare('INSERT INTO organization_default_fragments (organization_id, position, fragment_id, version) VALUES (?, ?, ?, ?)');
          changes.defaultFragments.forEach((f, i) => insert.run(id, i, f.fragmentId, f.version ?? ''));
        }
      })
      .immediate();
    return present(this.get(id), `organization ${id}`);
  }

  /** The organization holding `namespace`, if any. */
  namespaceHolder(namespace: string): string | undefined {
    return this.db.prepare('SELECT id FROM organizations WHERE public_namespace = ?').pluck().get(namespace) as string | undefined;
  }

  /**
   * Delete an organization with everything that is its: its locations with their machines, parts,
   * secrets and metadata (cascades), the shares of its locations and to it, and every authorization
   * in it or on something it owned. Other organizations' locations and machines stay as they were.
   */
  delete(id: string): void {
    this.db.transaction(() => {
      this.authorizations.dropOnResourcesOf(id);
      this.db.prepare('DELETE FROM organizations WHERE id = ?').run(id);
    })();
  }

  metadata(id: string): string {
    return this.db.prepare('SELECT metadata FROM organizations WHERE id = ?').pluck().get(id) as string;
  }

  setMetadata(id: string, json: string): void {
    this.db.prepare('UPDATE organizations SET metadata = ? WHERE id = ?').run(json, id);
  }

  /** Id and name of each organization, in the order given (missing ones left out). */
  identities(ids: readonly string[]): { id: string; name: string }[] {
    const rows = this.db.prepare('SELECT id, name FROM organizations WHERE id IN (SELECT value FROM json_each(?))').all(JSON.stringify(ids)) as { id: string; name: string }[];
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  /** The organizations a user holds an authorization in, by name. */
  listOfUser(userId: string): Organization[] {
    const rows = this.db
      .prepare(
        `SELECT ${COLUMNS} FROM organizations o
         WHERE o.id IN (SELECT organization_id FROM authorizations WHERE identity_type = 'user' AND identity_id = ?)
         ORDER BY o.name COLLATE NOCASE, o.name, o.id`,
      )
      .all(userId) as OrgRow[];
    return this.withDefaults(rows);
  }

  /** Organization `id` if `identity` holds an authorization in it; undefined whether it does not exist or is not visible. */
  getVisibleTo(identity: Identity, id: string): Organization | undefined {
    const row = this.db
      .prepare(
        `SELECT ${COLUMNS} FROM organizations o
         WHERE o.id = ? AND EXISTS (SELECT 1 FROM authorizations a WHERE a.organization_id = o.id AND a.identity_type = ? AND a.identity_id = ?)`,
      )
      .get(id, identity.type, identity.id) as OrgRow | undefined;
    return row === undefined ? undefined : this.withDefaults([row])[0];
  }
}
