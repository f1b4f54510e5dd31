/**
 * Roles as data: the permission strings of CheckPermissions, the shape of an authorization in a
 * request, whether a resource belongs to an organization, and what an organization's authorizations
 * look like on the wire (docs/PROTOCOL.md section 10). The decisions themselves are the permission
 * engine's (permissions/engine.ts); this file only feeds it.
 */
import { status } from '@grpc/grpc-js';
import type Database from 'better-sqlite3';
import type { Authorization } from '../../proto/gen/fleet/app/v1/access';
import { FleetError, invalidArgument, Reason } from '../errors';
import { atLeast, type Grant, type Identity, type Permissions, type ResourceType, type Role } from '../permissions/engine';
import { requiredId } from '../validate';

const ROLES: readonly Role[] = ['owner', 'operator'];
const RESOURCE_TYPES: readonly ResourceType[] = ['organization', 'location', 'robot'];

/** Each permission string: the resource type it is checked on and the least role that holds it. */
export const PERMISSIONS: ReadonlyMap<string, { readonly on: ResourceType; readonly role: Role }> = new Map([
  ...(['read_organization', 'read_fragment', 'read_organization_data_management', 'read_private_registry_item', 'read_packages', 'list_dataset'] as const).map((p) => [p, { on: 'organization', role: 'operator' }] as const),
  ...(
    [
      'write_organization',
      'write_fragment',
      'write_organization_data_management',
      'write_private_registry_item',
      'write_public_registry_item',
      'train_models',
      'write_packages',
      'delete_packages',
      'configure_database_user',
      'get_database_connection',
      'create_dataset',
      'rename_dataset',
      'delete_dataset',
    ] as const
  ).map((p) => [p, { on: 'organization', role: 'owner' }] as const),
  ...(['read_location', 'read_location_data_management'] as const).map((p) => [p, { on: 'location', role: 'operator' }] as const),
  ...(['write_location', 'read_location_secret', 'write_location_data_management'] as const).map((p) => [p, { on: 'location', role: 'owner' }] as const),
  ...(['read_robot', 'read_robot_config', 'read_robot_logs', 'control_robot', 'read_robot_history', 'read_robot_data_management', 'read_mapping_sessions'] as const).map(
    (p) => [p, { on: 'robot', role: 'operator' }] as const,
  ),
  ...(['write_robot', 'read_robot_secret', 'write_robot_data_management', 'create_maps'] as const).map((p) => [p, { on: 'robot', role: 'owner' }] as const),
] as [string, { on: ResourceType; role: Role }][]);

/** An authorization a request names: a role on a resource. */
export interface RoleOn {
  readonly role: Role;
  readonly resourceType: ResourceType;
  readonly resourceId: string;
}

/** A request's role (`field`): `owner` or `operator`. */
export function roleField(field: string, value: string): Role {
  if (value === '') throw invalidArgument(field, Reason.REQUIRED_FIELD_MISSING, `${field} is required: owner or operator`);
  if (!(ROLES as readonly string[]).includes(value)) throw invalidArgument(field, Reason.ROLE_INVALID, `${field} must be owner or operator, not ${JSON.stringify(value.slice(0, 40))}`);
  return value as Role;
}

/** A request's resource type (`field`): `organization`, `location` or `robot`. */
export function resourceTypeField(field: string, value: string): ResourceType {
  if (value === '') throw invalidArgument(field, Reason.REQUIRED_FIELD_MISSING, `${field} is required: organization, location or robot`);
  if (!(RESOURCE_TYPES as readonly string[]).includes(value)) {
    throw invalidArgument(field, Reason.RESOURCE_TYPE_INVALID, `${field} must be organization, location or robot, not ${JSON.stringify(value.slice(0, 40))}`);
  }
  return value as ResourceType;
}

/** An Authorization of a request (invites), checked field by field under `prefix` (`authorizations[2]`). */
export function authorizationField(prefix: string, a: Pick<Authorization, 'roleId' | 'resourceType' | 'resourceId'>): RoleOn {
  return { role: roleField(`${prefix}.role_id`, a.roleId), resourceType: resourceTypeField(`${prefix}.resource_type`, a.resourceType), resourceId: requiredId(`${prefix}.resource_id`, a.resourceId) };
}

/** NOT_FOUND (RESOURCE_NOT_FOUND): the same words for a resource that does not exist and one of another organization. */
export function resourceNotFound(on: Pick<RoleOn, 'resourceType' | 'resourceId'>, field: string): FleetError {
  return new FleetError(status.NOT_FOUND, Reason.RESOURCE_NOT_FOUND, `no ${on.resourceType === 'robot' ? 'machine' : on.resourceType} ${JSON.stringify(on.resourceId.slice(0, 60))} in this organization`, field);
}

/**
 * Whether the resource is in organization `orgId`: the organization itself, a location it owns or
 * that is shared with it (or under one), or a machine of such a location.
 */
export function inOrganization(permissions: Permissions, on: Pick<RoleOn, 'resourceType' | 'resourceId'>, orgId: string): boolean {
  const [target] = permissions.resolveMany([{ kind: on.resourceType, id: on.resourceId }]);
  if (target === undefined) return false;
  if (target.kind === 'organization') return target.id === orgId;
  const location = target.kind === 'robot' ? target.location : target;
  return location.accessOrgIds.includes(orgId);
}

/**
 * A caller never grants more than it holds: its own role on the resource must include the one it
 * gives. The operations that grant need owner on the organization, which covers everything in it,
 * so this holds by their permission rows already; it is checked again here so that a future row
 * with a weaker need cannot open a way up.
 */
export function mayGrant(permissions: Permissions, grants: readonly Grant[], on: RoleOn, field: string): void {
  const [target] = permissions.resolveMany([{ kind: on.resourceType, id: on.resourceId }]);
  if (target === undefined || !atLeast(permissions.roleOn(grants, target), on.role)) {
    throw new FleetError(status.PERMISSION_DENIED, Reason.PERMISSION_DENIED, `this API key may not grant ${on.role} on ${on.resourceType} ${on.resourceId}: it does not hold that itself`, field);
  }
}

/** An authorization row as the wire shows it. */
export function authorizationMessage(row: { resourceType: string; resourceId: string; identityId: string; identityType: string; organizationId: string; roleId: string }): Authorization {
  return {
    authorizationType: 'role',
    authorizationId: `${row.resourceType}_${row.roleId}`,
    resourceType: row.resourceType,
    resourceId: row.resourceId,
    identityId: row.identityId,
    organizationId: row.organizationId,
    identityType: row.identityType,
    roleId: row.roleId,
  };
}

/** The authorization rows of the roles store, as the wire shows them. */
export interface AuthorizationRow {
  readonly id: number;
  readonly resourceType: string;
  readonly resourceId: string;
  readonly identityId: string;
  readonly identityType: string;
  readonly organizationId: string;
  readonly roleId: string;
}

const ROW = 'id, resource_type AS resourceType, resource_id AS resourceId, identity_id AS identityId, identity_type AS identityType, organization_id AS organizationId, role_id AS roleId';

/** Authorizations as the role operations read and change them (the writes are Authorizations'). */
export class RoleStore {
  constructor(private readonly db: Database.Database) {}

  /** The identity `id` names: a user, or a live API key that is its own identity (a user's key acts as its user). */
  identity(id: string): Identity | undefined {
    if (this.db.prepare('SELECT 1 FROM users WHERE id = ?').get(id) !== undefined) return { type: 'user', id };
    return this.db.prepare('SELECT 1 FROM api_keys WHERE id = ? AND deleted_at IS NULL AND user_id IS NULL').get(id) === undefined ? undefined : { type: '', id };
  }

  /** Whether `identity` holds exactly this role in `orgId`. */
  holds(identity: Identity, orgId: string, on: RoleOn): boolean {
    return (
      this.db
        .prepare('SELECT 1 FROM authorizations WHERE identity_type = ? AND identity_id = ? AND organization_id = ? AND resource_type = ? AND resource_id = ? AND role_id = ?')
        .get(identity.type, identity.id, orgId, on.resourceType, on.resourceId, on.role) !== undefined
    );
  }

  /** Take one role away; false when it was not held. */
  remove(identity: Identity, orgId: string, on: RoleOn): boolean {
    return (
      this.db
        .prepare('DELETE FROM authorizations WHERE identity_type = ? AND identity_id = ? AND organization_id = ? AND resource_type = ? AND resource_id = ? AND role_id = ?')
        .run(identity.type, identity.id, orgId, on.resourceType, on.resourceId, on.role).changes === 1
    );
  }

  /** Take every role of `identity` in `orgId` away; how many there were. */
  removeAll(identity: Identity, orgId: string): number {
    return this.db.prepare('DELETE FROM authorizations WHERE identity_type = ? AND identity_id = ? AND organization_id = ?').run(identity.type, identity.id, orgId).changes;
  }

  /** How many live identities hold owner on the organization itself (deleted keys do not count: they cannot act). */
  owners(orgId: string): number {
    return this.db
      .prepare(
        `SELECT count(*) FROM authorizations
          WHERE organization_id = @org AND resource_type = 'organization' AND resource_id = @org AND role_id = 'owner'
            AND (identity_type = 'user' OR identity_id IN (SELECT id FROM api_keys WHERE deleted_at IS NULL AND user_id IS NULL))`,
      )
      .pluck()
      .get({ org: orgId }) as number;
  }

  /** A page of the organization's authorizations after row `after`, on `resourceIds` (all when empty), in the order they were granted. */
  list(orgId: string, resourceIds: readonly string[], after: number, limit: number): AuthorizationRow[] {
    return this.db
      .prepare(
        `SELECT ${ROW} FROM authorizations
          WHERE organization_id = @org AND id > @after AND (@all OR resource_id IN (SELECT value FROM json_each(@ids)))
          ORDER BY id LIMIT @limit`,
      )
      .all({ org: orgId, after, all: resourceIds.length === 0 ? 1 : 0, ids: JSON.stringify(resourceIds), limit }) as AuthorizationRow[];
  }

  /** Every authorization users hold in the organization, by user, in the order granted (one query for a member list). */
  ofUsersIn(orgId: string): Map<string, AuthorizationRow[]> {
    const byUser = new Map<string, AuthorizationRow[]>();
    for (const row of this.db.prepare(`SELECT ${ROW} FROM authorizations WHERE identity_type = 'user' AND organization_id = ? ORDER BY id`).all(orgId) as AuthorizationRow[]) {
      byUser.set(row.identityId, [...(byUser.get(row.identityId) ?? []), row]);
    }
    return byUser;
  }

  /** Every authorization the user holds in the organization. */
  ofUser(userId: string, orgId: string): AuthorizationRow[] {
    return this.db.prepare(`SELECT ${ROW} FROM authorizations WHERE identity_type = 'user' AND identity_id = ? AND organization_id = ? ORDER BY id`).all(userId, orgId) as AuthorizationRow[];
  }
}
