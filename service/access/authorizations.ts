/**
 * The access domain's authorizations: who holds which role on what (docs/PROTOCOL.md section 10).
 * The permission engine (permissions/engine.ts) reads them for every call; they are written here.
 */
import type Database from 'better-sqlite3';
import type { Grant, Identity, ResourceType } from '../permissions/engine';

export class Authorizations {
  constructor(private readonly db: Database.Database) {}

  /** Give `identity` a role on a resource of an organization. Granting a role it already holds changes nothing. */
  grant(identity: Identity, on: Grant, now: Date = new Date()): void {
    this.db
      .prepare(
        `INSERT INTO authorizations
           (authorization_type, authorization_id, resource_type, resource_id, identity_id, identity_type, organization_id, role_id, created_at)
         VALUES ('role', ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT DO NOTHING`,
      )
      .run(`${on.resourceType}_${on.role}`, on.resourceType, on.resourceId, identity.id, identity.type, on.organizationId, on.role, now.toISOString());
  }

  /** Drop every authorization on a resource (before it is deleted). */
  dropOn(resourceType: ResourceType, resourceId: string): void {
    this.db.prepare('DELETE FROM authorizations WHERE resource_type = ? AND resource_id = ?').run(resourceType, resourceId);
  }

  /**
   * Drop the authorizations other organizations hold on what organization `orgId` owns (a location
   * role granted through a share, say), which its deletion's cascades do not reach.
   */
  dropOnResourcesOf(orgId: string): void {
    this.db
      .prepare(
        `DELETE FROM authorizations
          WHERE (resource_type = 'location' AND resource_id IN (SELECT id FROM locations WHERE organization_id = @id))
             OR (resource_type = 'robot' AND resource_id IN (SELECT r.id FROM robots r JOIN locations l ON l.id = r.location_id WHERE l.organization_id = @id))`,
      )
      .run({ id: orgId });
  }
}
