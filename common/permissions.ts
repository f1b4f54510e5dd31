/**
 * What the active profile's key may do, and why not: the roles, the permissions the app checks on
 * each resource of an organization's tree, and the queries over them (docs/PROTOCOL.md section 10).
 * In a module that imports nothing at run time: the page gates its actions from its first frame,
 * on the window's boot path, which does not load the access domain's request schemas (zod).
 * common/access.ts re-exports all of it.
 */
import type { IsoTime } from './schemas';

/** The kinds of resource a role is held on. `machine` is what the service calls `robot`. */
export const ACCESS_RESOURCE_TYPES = ['organization', 'location', 'machine'] as const;
export type AccessResourceType = (typeof ACCESS_RESOURCE_TYPES)[number];

/** Roles, weakest first: `owner` may do everything `operator` may (docs/PROTOCOL.md section 10). */
export const ROLES = ['operator', 'owner'] as const;
export type Role = (typeof ROLES)[number];

/** A resource named in an answer. */
export interface ResourceRef {
  readonly type: AccessResourceType;
  readonly id: string;
  /** Null when this profile cannot see it (or has not synced it). */
  readonly name: string | null;
}

/**
 * The permissions the active key's CheckPermissions is asked for on each resource of an
 * organization's tree, in bit order (docs/PROTOCOL.md section 10, "Permission strings"): reading
 * and writing the fleet, configs and logs, fragments, secrets; `write_organization` is the
 * organization owner's (keys, roles, members and invites need it).
 */
export const CHECKED_PERMISSIONS = {
  organization: ['read_organization', 'write_organization', 'read_fragment', 'write_fragment'],
  location: ['read_location', 'write_location', 'read_location_secret'],
  machine: ['read_robot', 'write_robot', 'read_robot_config', 'read_robot_logs', 'control_robot', 'read_robot_secret'],
} as const satisfies Record<AccessResourceType, readonly string[]>;

/** A permission the app gates actions on. */
export type CheckedPermission = (typeof CHECKED_PERMISSIONS)[AccessResourceType][number];

/** The role each checked permission needs (docs/PROTOCOL.md section 10). */
export const PERMISSION_ROLE: Readonly<Record<CheckedPermission, Role>> = {
  read_organization: 'operator',
  write_organization: 'owner',
  read_fragment: 'operator',
  write_fragment: 'owner',
  read_location: 'operator',
  write_location: 'owner',
  read_location_secret: 'owner',
  read_robot: 'operator',
  write_robot: 'owner',
  read_robot_config: 'operator',
  read_robot_logs: 'operator',
  control_robot: 'operator',
  read_robot_secret: 'owner',
};

/** The resource type each checked permission is checked on. */
export function permissionResourceType(permission: CheckedPermission): AccessResourceType {
  for (const type of ACCESS_RESOURCE_TYPES) if ((CHECKED_PERMISSIONS[type] as readonly string[]).includes(permission)) return type;
  throw new Error(`unknown permission ${permission}`);
}

/**
 * What the active profile's key may do over one organization's tree: for each resource, a bit set
 * over `CHECKED_PERMISSIONS[type]` (bit i set = holds the i-th). One CheckPermissions call per
 * organization made it, refreshed with the sync; query it with `holds` and `whyNot`.
 */
export interface KeyPermissions {
  readonly orgId: string;
  /** The bits held on the organization itself. */
  readonly organization: number;
  /** By location id. */
  readonly locations: Readonly<Record<string, number>>;
  /** By machine id. */
  readonly machines: Readonly<Record<string, number>>;
  /** When the service answered them; null when never (then nothing is known: every query says no). */
  readonly checkedAt: IsoTime | null;
  readonly fromCache: boolean;
}

function bitsOf(view: KeyPermissions, type: AccessResourceType, resourceId: string): number | undefined {
  if (type === 'organization') return resourceId === view.orgId ? view.organization : undefined;
  return (type === 'location' ? view.locations : view.machines)[resourceId];
}

/** The role the bits of a resource show: bit 1 (`write_*`) is the owner's, bit 0 (`read_*`) the operator's, on every type. */
function roleOf(bits: number): Role | null {
  if (bits & 0b10) return 'owner';
  if (bits & 0b01) return 'operator';
  return null;
}

const rank = (r: Role | null) => (r === null ? 0 : ROLES.indexOf(r) + 1);

/**
 * Whether the key holds `permission` on the resource. `chain` is the resource and what covers it,
 * nearest first, ending with the organization (as the renderer's tree knows them): a resource made
 * since the last check (a new machine) is answered from the role held on the nearest checked one
 * that covers it. A permission checked on another type than the resource's answers false.
 */
export function holds(view: KeyPermissions, permission: CheckedPermission, chain: readonly ResourceRef[]): boolean {
  const [resource] = chain;
  if (!resource) return false;
  const type = permissionResourceType(permission);
  if (type !== resource.type) return false;
  const own = bitsOf(view, resource.type, resource.id);
  const index = (CHECKED_PERMISSIONS[type] as readonly string[]).indexOf(permission);
  if (own !== undefined) return (own & (1 << index)) !== 0;
  if (type === 'organization') return false;
  for (const above of chain.slice(1)) {
    const bits = bitsOf(view, above.type, above.id);
    if (bits !== undefined) return rank(roleOf(bits)) >= rank(PERMISSION_ROLE[permission]);
  }
  return false;
}

/** Why an action is not allowed: the role needed, and where holding it would allow it (nearest first). */
export interface Denial {
  readonly role: Role;
  /** The resource itself, then each location and the organization covering it; for an organization permission, the organization only. */
  readonly on: readonly ResourceRef[];
  /** For a tooltip: "needs owner on Reno Fulfillment Center". */
  readonly text: string;
}

/**
 * Null when the key holds `permission` on the first resource of `chain` (see `holds`); otherwise
 * the role that would allow it and where (docs/PROTOCOL.md section 10: a role on an organization or
 * location covers what is in it; organization permissions come only with an organization role).
 */
export function whyNot(view: KeyPermissions, permission: CheckedPermission, chain: readonly ResourceRef[]): Denial | null {
  if (holds(view, permission, chain)) return null;
  const needed = PERMISSION_ROLE[permission];
  const on = permissionResourceType(permission) === 'organization' ? chain.filter((r) => r.type === 'organization') : chain;
  const nearest = on[0];
  const what = nearest ? (nearest.name ?? `${nearest.type === 'machine' ? 'this machine' : `this ${nearest.type}`}`) : 'this organization';
  return { role: needed, on, text: `needs ${needed} on ${what}` };
}
