import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { Organization } from '../../proto/gen/fleet/app/v1/orgs';
import type { Identity } from '../auth/guard';
import { present } from '../errors';

/** A role, as the spec names them. */
export type Role = 'owner' | 'operator';
/** What an authorization is granted on. */
export type ResourceType = 'organization' | 'location' | 'robot';

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

function toOrganization(row: OrgRow): Organization {
  return {
    id: row.id,
    name: row.name,
    createdOn: new Date(row.created_on),
    publicNamespace: row.public_namespace ?? '',
    region: row.region,
    cid: row.cid,
    defaultFragments: [],
  };
}

/**
 * Organizations and who may see them. Visibility follows authorizations: an identity sees an
 * organization when it holds any authorization in it (on the organization itself or on one of
 * its locations or robots).
 */
export class OrgStore {
  constructor(private readonly db: Database.Database) {}

  /** Create an organization and make `owner` its organization owner, in one transaction. */
  create(name: string, owner: Identity, extras: NewOrganizationExtras = {}, now: Date = new Date()): Organization {
    const id = randomUUID();
    this.db.transaction(() => {
      this.db
        .prepare('INSERT INTO organizations (id, name, created_on, public_namespace, region, cid) VALUES (?, ?, ?, ?, ?, ?)')
        .run(id, name, now.toISOString(), extras.publicNamespace ?? null, extras.region ?? '', extras.cid ?? '');
      this.grant(owner, { organizationId: id, resourceType: 'organization', resourceId: id, role: 'owner' }, now);
    })();
    return toOrganization(this.db.prepare(`SELECT ${COLUMNS} FROM organizations o WHERE o.id = ?`).get(id) as OrgRow);
  }

  /** Give `identity` a role on a resource of an organization. Granting a role it already holds changes nothing. */
  grant(
    identity: Identity,
    on: { readonly organizationId: string; readonly resourceType: ResourceType; readonly resourceId: string; readonly role: Role },
    now: Date = new Date(),
  ): void {
    this.db
      .prepare(
        `INSERT INTO authorizations
           (authorization_type, authorization_id, resource_type, resource_id, identity_id, identity_type, organization_id, role_id, created_at)
         VALUES ('role', ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT DO NOTHING`,
      )
      .run(`${on.resourceType}_${on.role}`, on.resourceType, on.resourceId, identity.id, identity.type, on.organizationId, on.role, now.toISOString());
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
    return rows.map(toOrganization);
  }

  /** Organization `id`, whoever may see it (the rule table checked that already). */
  get(id: string): Organization | undefined {
    const row = this.db.prepare(`SELECT ${COLUMNS} FROM organizations o WHERE o.id = ?`).get(id) as OrgRow | undefined;
    return row === undefined ? undefined : toOrganization(row);
  }

  /** Change the given fields only, in one statement each, in one transaction. */
  update(id: string, changes: { name?: string; publicNamespace?: string; region?: string; cid?: string }): Organization {
    this.db.transaction(() => {
      if (changes.name !== undefined) this.db.prepare('UPDATE organizations SET name = ? WHERE id = ?').run(changes.name, id);
      if (changes.publicNamespace !== undefined) this.db.prepare('UPDATE organizations SET public_namespace = ? WHERE id = ?').run(changes.publicNamespace, id);
      if (changes.region !== undefined) this.db.prepare('UPDATE organizations SET region = ? WHERE id = ?').run(changes.region, id);
      if (changes.cid !== undefined) this.db.prepare('UPDATE organizations SET cid = ? WHERE id = ?').run(changes.cid, id);
    })();
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
      // Authorizations of other organizations on resources this one owns (a location role granted through a share, say).
      this.db
        .prepare(
          `DELETE FROM authorizations
            WHERE (resource_type = 'location' AND resource_id IN (SELECT id FROM locations WHERE organization_id = @id))
               OR (resource_type = 'robot' AND resource_id IN (SELECT r.id FROM robots r JOIN locations l ON l.id = r.location_id WHERE l.organization_id = @id))`,
        )
        .run({ id });
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
    return rows.map(toOrganization);
  }

  /** Organization `id` if `identity` holds an authorization in it; undefined whether it does not exist or is not visible. */
  getVisibleTo(identity: Identity, id: string): Organization | undefined {
    const row = this.db
      .prepare(
        `SELECT ${COLUMNS} FROM organizations o
         WHERE o.id = ? AND EXISTS (SELECT 1 FROM authorizations a WHERE a.organization_id = o.id AND a.identity_type = ? AND a.identity_id = ?)`,
      )
      .get(id, identity.type, identity.id) as OrgRow | undefined;
    return row === undefined ? undefined : toOrganization(row);
  }
}
