/**
 * Who may do what, as docs/PROTOCOL.md section 10 sets it. Roles (owner, operator) are held by an
 * identity on an organization, a location or a robot:
 * - an organization role covers the organization, its locations (owned, and shared with it) and
 *   their machines;
 * - a location role covers the location, its sub-locations and their machines;
 * - a robot role covers that machine and its parts;
 * - owner includes operator.
 * A caller *sees* an organization when it holds any authorization in it; a location is seen when one
 * of the organizations with access to it is; a machine or part when its location is. Unseen and
 * missing answer the same NOT_FOUND; seen but without the role, PERMISSION_DENIED naming the role.
 *
 * Every call is checked through its domain's rule table (each `service/<domain>/rules.ts`, applied by
 * rpc.ts) before its handler runs. A handler asks this engine again only about a second resource,
 * which one table row cannot name: moving a location (locations/handlers.ts) or a machine
 * (machines/handlers.ts) checks the destination, GetRobotPartByNameAndLocation the part it found by
 * name, a custom training job its script, GetAppContent and GetAppBranding the app's module,
 * ShareLocation that the other organization exists, ListMachineFragments its additional fragments.
 * Nothing decides a role any other way.
 *
 * This is the kernel: every domain may import it, and it imports no domain.
 */
import { status } from '@grpc/grpc-js';
import type Database from 'better-sqlite3';
import { FleetError, Reason } from '../errors';
import { notFound } from '../validate';

/** Who holds an authorization: an API key (type '') or a user (type 'user'), as in the spec's Authorization. */
export interface Identity {
  readonly type: '' | 'user';
  readonly id: string;
}

/** A role, as the spec names them. */
export type Role = 'owner' | 'operator';
/** What an authorization is granted on. */
export type ResourceType = 'organization' | 'location' | 'robot';

/** The canonical wire id of a registry item: `<public namespace or organization id>:<name>`. */
export function wireId(row: { readonly namespace: string; readonly organization_id: string; readonly name: string }): string {
  return `${row.namespace || row.organization_id}:${row.name}`;
}

/** An authorization of the caller. */
export interface Grant {
  readonly resourceType: ResourceType;
  readonly resourceId: string;
  readonly role: Role;
  readonly organizationId: string;
}

export interface OrgTarget {
  readonly kind: 'organization';
  readonly id: string;
}

export interface LocationTarget {
  readonly kind: 'location';
  readonly id: string;
  readonly name: string;
  /** The owning organization. */
  readonly orgId: string;
  /** Empty at the top level. */
  readonly parentId: string;
  /** The location itself first, then its parent, up to the top. */
  readonly ancestors: readonly string[];
  /** The owner, then every organization it is shared with (directly or through an ancestor). */
  readonly accessOrgIds: readonly string[];
}

export interface RobotTarget {
  readonly kind: 'robot';
  readonly id: string;
  readonly name: string;
  readonly location: LocationTarget;
}

export interface PartTarget {
  readonly kind: 'part';
  readonly id: string;
  readonly name: string;
  readonly mainPart: boolean;
  readonly robot: RobotTarget;
}

/**
 * A registry item (kind `registry`) or a module (kind `module`: a registry item of type MODULE),
 * named by `<public namespace>:<name>` or `<organization id>:<name>`. Its roles are those held on its
 * organization; public and unlisted items are seen by every authenticated caller, private ones by
 * callers with a role on the organization itself (docs/PROTOCOL.md section 11).
 */
export interface RegistryTarget {
  /** `package`: an item of any type that an upload names by its module_id (not found: a module). */
  readonly kind: 'registry' | 'module' | 'package';
  /** The item's row id. */
  readonly id: string;
  /** The canonical wire id: `<namespace>:<name>` when the organization has a namespace. */
  readonly itemId: string;
  readonly orgId: string;
  readonly namespace: string;
  readonly name: string;
  readonly type: number;
  readonly visibility: number;
}

/**
 * A fragment: public ones are seen by every authenticated caller, private ones by callers with a role
 * on the owning organization itself; its roles are those held on that organization (a location or
 * machine role says nothing about what the organization shares as fragments).
 */
export interface FragmentTarget {
  readonly kind: 'fragment';
  readonly id: string;
  readonly orgId: string;
  /** FragmentVisibility: 1 private, 2 public. */
  readonly visibility: number;
}

/** A training job (fleet.mltraining.v1): seen and held as its organization is. */
export interface TrainingJobTarget {
  readonly kind: 'trainingJob';
  readonly id: string;
  readonly orgId: string;
}

export type Target = OrgTarget | LocationTarget | RobotTarget | PartTarget | RegistryTarget | FragmentTarget | TrainingJobTarget;
export type TargetKind = Target['kind'];

/** A location as listings and the readability rules need it (ListLocations, ListMachineSummaries). */
export interface LocationNode {
  readonly id: string;
  readonly orgId: string;
  readonly parentId: string | null;
  readonly name: string;
}

/** What a rule names: a resource of a kind, by an id taken from a request field. */
export interface ResourceRef {
  readonly kind: TargetKind;
  readonly id: string;
  /** The request field the id came from (for NOT_FOUND's fleet-error-field where a call names several). */
  readonly field: string;
}

/** The least a call needs: a token only, to see the resource, or a role on it. */
export type Need = 'authenticated' | 'sees' | Role;

const RANK: Record<Role, number> = { operator: 1, owner: 2 };

function best(a: Role | null, b: Role | null): Role | null {
  if (a === null) return b;
  if (b === null) return a;
  return RANK[a] >= RANK[b] ? a : b;
}

/** Whether `role` includes what `need` allows (owner includes operator). */
export function atLeast(role: Role | null, need: Role): boolean {
  return role !== null && RANK[role] >= RANK[need];
}

const NOT_FOUND_REASON: Record<TargetKind, { reason: Reason; what: string }> = {
  organization: { reason: Reason.ORGANIZATION_NOT_FOUND, what: 'organization' },
  location: { reason: Reason.LOCATION_NOT_FOUND, what: 'location' },
  robot: { reason: Reason.ROBOT_NOT_FOUND, what: 'machine' },
  part: { reason: Reason.ROBOT_PART_NOT_FOUND, what: 'machine part' },
  registry: { reason: Reason.REGISTRY_ITEM_NOT_FOUND, what: 'registry item' },
  module: { reason: Reason.MODULE_NOT_FOUND, what: 'module' },
  package: { reason: Reason.MODULE_NOT_FOUND, what: 'module' },
  fragment: { reason: Reason.FRAGMENT_NOT_FOUND, what: 'fragment' },
  trainingJob: { reason: Reason.TRAINING_JOB_NOT_FOUND, what: 'training job' },
};

/** VISIBILITY_PRIVATE of fleet.app.v1.Visibility. */
const PRIVATE = 1;
/** PACKAGE_TYPE_MODULE of fleet.app.v1.PackageType. */
const MODULE = 2;
/** FRAGMENT_VISIBILITY_PUBLIC of fleet.app.v1.FragmentVisibility. */
const PUBLIC_FRAGMENT = 2;

/** The permission engine: resolves what a rule names and decides whether the caller may use it. */
export class Permissions {
  constructor(private readonly db: Database.Database) {}

  /** The caller's authorizations, read afresh for every call (another call may have changed them). */
  grants(identity: Identity): Grant[] {
    return this.db
      .prepare(
        `SELECT resource_type AS resourceType, resource_id AS resourceId, role_id AS role, organization_id AS organizationId
           FROM authorizations WHERE identity_type = ? AND identity_id = ?`,
      )
      .all(identity.type, identity.id) as Grant[];
  }

  resolve(ref: ResourceRef): Target | undefined {
    switch (ref.kind) {
      case 'organization':
        return this.db.prepare('SELECT 1 FROM organizations WHERE id = ?').get(ref.id) === undefined ? undefined : { kind: 'organization', id: ref.id };
      case 'location':
        return this.location(ref.id);
      case 'robot':
        return this.robot(ref.id);
      case 'part':
        return this.part(ref.id);
      case 'registry':
      case 'module':
      case 'package':
        return this.registryItem(ref.id, ref.kind);
      case 'fragment': {
        const row = this.db.prepare('SELECT organization_id AS orgId, visibility FROM fragments WHERE id = ?').get(ref.id) as { orgId: string; visibility: number } | undefined;
        return row === undefined ? undefined : { kind: 'fragment', id: ref.id, ...row };
      }
      case 'trainingJob': {
        const orgId = this.db.prepare('SELECT organization_id FROM training_jobs WHERE id = ?').pluck().get(ref.id) as string | undefined;
        return orgId === undefined ? undefined : { kind: 'trainingJob', id: ref.id, orgId };
      }
    }
  }

  /**
   * The registry item `<namespace or organization id>:<name>` names (a module when `kind` is
   * `module`: an item of another type is no module). The id's shape is checked before (rules.ts).
   */
  registryItem(id: string, kind: RegistryTarget['kind'] = 'registry'): RegistryTarget | undefined {
    const colon = id.indexOf(':');
    const prefix = id.slice(0, colon);
    const name = id.slice(colon + 1);
    const row = this.db
      .prepare(
        `SELECT r.id, r.organization_id AS orgId, coalesce(o.public_namespace, '') AS namespace, r.name, r.type, r.visibility
           FROM registry_items r JOIN organizations o ON o.id = r.organization_id
          WHERE r.name = ? AND r.organization_id = coalesce((SELECT id FROM organizations WHERE id = ?), (SELECT id FROM organizations WHERE public_namespace = ?))`,
      )
      .get(name, prefix, prefix) as Omit<RegistryTarget, 'kind' | 'itemId'> | undefined;
    if (row === undefined || (kind === 'module' && row.type !== MODULE)) return undefined;
    return { kind, ...row, itemId: wireId({ namespace: row.namespace, organization_id: row.orgId, name: row.name }) };
  }

  location(id: string): LocationTarget | undefined {
    const rows = this.db
      .prepare(
        `WITH RECURSIVE up (id, name, organization_id, parent_location_id, depth) AS (
           SELECT id, name, organization_id, parent_location_id, 0 FROM locations WHERE id = ?
           UNION ALL
           SELECT l.id, l.name, l.organization_id, l.parent_location_id, up.depth + 1 FROM locations l JOIN up ON l.id = up.parent_location_id
         )
         SELECT id, name, organization_id AS orgId, parent_location_id AS parentId FROM up ORDER BY depth`,
      )
      .all(id) as { id: string; name: string; orgId: string; parentId: string | null }[];
    const self = rows[0];
    if (self === undefined) return undefined;
    const ancestors = rows.map((r) => r.id);
    const shared = this.db
      .prepare(`SELECT organization_id FROM location_shares WHERE location_id IN (SELECT value FROM json_each(?)) ORDER BY rowid`)
      .pluck()
      .all(JSON.stringify(ancestors)) as string[];
    return {
      kind: 'location',
      id: self.id,
      name: self.name,
      orgId: self.orgId,
      parentId: self.parentId ?? '',
      ancestors,
      accessOrgIds: [...new Set([self.orgId, ...shared])],
    };
  }

  robot(id: string): RobotTarget | undefined {
    const row = this.db.prepare('SELECT id, name, location_id AS locationId FROM robots WHERE id = ?').get(id) as { id: string; name: string; locationId: string } | undefined;
    const location = row && this.location(row.locationId);
    return row && location ? { kind: 'robot', id: row.id, name: row.name, location } : undefined;
  }

  part(id: string): PartTarget | undefined {
    const row = this.db.prepare('SELECT id, name, robot_id AS robotId, main_part AS mainPart FROM robot_parts WHERE id = ?').get(id) as
      | { id: string; name: string; robotId: string; mainPart: number }
      | undefined;
    const robot = row && this.robot(row.robotId);
    return row && robot ? { kind: 'part', id: row.id, name: row.name, mainPart: row.mainPart === 1, robot } : undefined;
  }

  /**
   * Organizations, locations and robots of `refs` resolved at once, in order (undefined for an
   * unknown id): a fixed number of queries however many there are, for CheckPermissions of a whole
   * tree (docs/PROTOCOL.md section 10). Targets are shared between refs naming the same location.
   */
  resolveMany(refs: readonly { readonly kind: ResourceType; readonly id: string }[]): (OrgTarget | LocationTarget | RobotTarget | undefined)[] {
    const ids = (kind: ResourceType) => JSON.stringify([...new Set(refs.filter((r) => r.kind === kind).map((r) => r.id))]);
    const orgs = new Set(this.db.prepare('SELECT id FROM organizations WHERE id IN (SELECT value FROM json_each(?))').pluck().all(ids('organization')) as string[]);
    const robots = new Map(
      (this.db.prepare('SELECT r.id, r.name, r.location_id AS locationId FROM json_each(?) j JOIN robots r ON r.id = j.value').all(ids('robot')) as { id: string; name: string; locationId: string }[]).map((r) => [r.id, r]),
    );
    const wanted = [...new Set([...refs.filter((r) => r.kind === 'location').map((r) => r.id), ...[...robots.values()].map((r) => r.locationId)])];
    // Every wanted location with all its ancestors, and the shares of any of them.
    const rows = this.db
      .prepare(
        `WITH RECURSIVE up (id) AS (
           SELECT value FROM json_each(?)
           UNION
           SELECT l.parent_location_id FROM locations l JOIN up ON l.id = up.id WHERE l.parent_location_id IS NOT NULL
         )
         SELECT l.id, l.name, l.organization_id AS orgId, l.parent_location_id AS parentId FROM locations l WHERE l.id IN (SELECT id FROM up)`,
      )
      .all(JSON.stringify(wanted)) as { id: string; name: string; orgId: string; parentId: string | null }[];
    const byId = new Map(rows.map((r) => [r.id, r]));
    const shares = new Map<string, string[]>();
    const shareRows = this.db
      .prepare('SELECT location_id, organization_id FROM location_shares WHERE location_id IN (SELECT value FROM json_each(?)) ORDER BY rowid')
      .all(JSON.stringify([...byId.keys()])) as { location_id: string; organization_id: string }[];
    for (const r of shareRows) shares.set(r.location_id, [...(shares.get(r.location_id) ?? []), r.organization_id]);
    const locations = new Map<string, LocationTarget>();
    const locationOf = (id: string): LocationTarget | undefined => {
      const known = locations.get(id);
      if (known !== undefined) return known;
      const self = byId.get(id);
      if (self === undefined) return undefined;
      const ancestors: string[] = [];
      for (let at: typeof self | undefined = self; at !== undefined && !ancestors.includes(at.id); at = at.parentId === null ? undefined : byId.get(at.parentId)) ancestors.push(at.id);
      const target: LocationTarget = {
        kind: 'location',
        id,
        name: self.name,
        orgId: self.orgId,
        parentId: self.parentId ?? '',
        ancestors,
        accessOrgIds: [...new Set([self.orgId, ...ancestors.flatMap((a) => shares.get(a) ?? [])])],
      };
      locations.set(id, target);
      return target;
    };
    return refs.map((ref) => {
      switch (ref.kind) {
        case 'organization':
          return orgs.has(ref.id) ? { kind: 'organization', id: ref.id } : undefined;
        case 'location':
          return locationOf(ref.id);
        case 'robot': {
          const robot = robots.get(ref.id);
          const location = robot && locationOf(robot.locationId);
          return robot && location ? { kind: 'robot', id: robot.id, name: robot.name, location } : undefined;
        }
      }
    });
  }

  /**
   * For each target (resolved by {@link resolveMany}; undefined for an unknown one): undefined when
   * the caller does not see it, else the strongest role it holds there (null for none) — as
   * {@link sees} and {@link roleOn} answer, computed once per location however many machines
   * share it, so a tree of 10,000 machines costs little more than its locations.
   */
  rolesOn(grants: readonly Grant[], targets: readonly (OrgTarget | LocationTarget | RobotTarget | undefined)[]): (Role | null | undefined)[] {
    const perLocation = new Map<string, Role | null | undefined>();
    const onLocation = (location: LocationTarget) => {
      if (perLocation.has(location.id)) return perLocation.get(location.id);
      const role = this.sees(grants, location) ? this.roleOn(grants, location) : undefined;
      perLocation.set(location.id, role);
      return role;
    };
    const robotRoles = new Map<string, Role>();
    for (const g of grants) if (g.resourceType === 'robot') robotRoles.set(g.resourceId, best(robotRoles.get(g.resourceId) ?? null, g.role) as Role);
    return targets.map((target) => {
      if (target === undefined) return undefined;
      if (target.kind === 'organization') return this.sees(grants, target) ? this.roleOn(grants, target) : undefined;
      if (target.kind === 'location') return onLocation(target);
      const role = onLocation(target.location);
      return role === undefined ? undefined : best(role, robotRoles.get(target.id) ?? null);
    });
  }

  /**
   * Every location an organization has access to: the ones it owns, and those shared with it with
   * everything under them. The whole set, since readability depends on ancestors; it is small next
   * to the machines in it.
   */
  reach(orgId: string): LocationNode[] {
    return this.db
      .prepare(
        `WITH RECURSIVE reach (id) AS (
           SELECT id FROM locations WHERE organization_id = @org
           UNION
           SELECT location_id FROM location_shares WHERE organization_id = @org
           UNION
           SELECT l.id FROM locations l JOIN reach ON l.parent_location_id = reach.id
         )
         SELECT l.id, l.organization_id AS orgId, l.parent_location_id AS parentId, l.name FROM locations l WHERE l.id IN (SELECT id FROM reach)`,
      )
      .all({ org: orgId }) as LocationNode[];
  }

  /**
   * Of `nodes` (accessible through `orgId`), the ids the caller can read: all of them with a role in
   * that organization; else those covered by an organization role in their owner or in an
   * organization they are shared with, or by a location role on themselves or an ancestor.
   */
  readable(nodes: readonly LocationNode[], grants: readonly Grant[], orgId: string): Set<string> {
    const orgRoles = new Set(grants.filter((g) => g.resourceType === 'organization').map((g) => g.resourceId));
    if (orgRoles.has(orgId)) return new Set(nodes.map((n) => n.id));
    const byId = new Map(nodes.map((n) => [n.id, n]));
    const locationRoles = new Set(grants.filter((g) => g.resourceType === 'location').map((g) => g.resourceId));
    const shares = new Map<string, string[]>();
    const rows = this.db
      .prepare('SELECT location_id, organization_id FROM location_shares WHERE location_id IN (SELECT value FROM json_each(?)) ORDER BY rowid')
      .all(JSON.stringify(nodes.map((n) => n.id))) as { location_id: string; organization_id: string }[];
    for (const r of rows) shares.set(r.location_id, [...(shares.get(r.location_id) ?? []), r.organization_id]);
    const out = new Set<string>();
    for (const node of nodes) {
      for (let at: LocationNode | undefined = node; at !== undefined; at = at.parentId === null ? undefined : byId.get(at.parentId)) {
        if (locationRoles.has(at.id) || orgRoles.has(at.orgId) || (shares.get(at.id) ?? []).some((o) => orgRoles.has(o))) {
          out.add(node.id);
          break;
        }
      }
    }
    return out;
  }

  /** Whether the caller sees the target (see the file comment). */
  sees(grants: readonly Grant[], target: Target): boolean {
    const seen = new Set(grants.map((g) => g.organizationId));
    switch (target.kind) {
      case 'organization':
        return seen.has(target.id);
      case 'location':
        return target.accessOrgIds.some((o) => seen.has(o));
      case 'robot':
        return this.sees(grants, target.location);
      case 'part':
        return this.sees(grants, target.robot);
      case 'registry':
      case 'module':
      case 'package':
        return target.visibility !== PRIVATE || grants.some((g) => g.resourceType === 'organization' && g.resourceId === target.orgId);
      case 'fragment':
        return target.visibility === PUBLIC_FRAGMENT || grants.some((g) => g.resourceType === 'organization' && g.resourceId === target.orgId);
      case 'trainingJob':
        return seen.has(target.orgId);
    }
  }

  /**
   * The strongest role the caller holds on the target, or null. `owningOrganizationOnly`: roles
   * through an organization the location is only shared with do not count.
   */
  roleOn(grants: readonly Grant[], target: Target, options: { owningOrganizationOnly?: boolean } = {}): Role | null {
    let role: Role | null = null;
    const on = (type: ResourceType, ids: readonly string[]) => {
      for (const g of grants) if (g.resourceType === type && ids.includes(g.resourceId)) role = best(role, g.role);
    };
    switch (target.kind) {
      case 'organization':
        on('organization', [target.id]);
        break;
      case 'location':
        on('organization', options.owningOrganizationOnly ? [target.orgId] : target.accessOrgIds);
        on('location', target.ancestors);
        break;
      case 'robot':
        role = this.roleOn(grants, target.location, options);
        on('robot', [target.id]);
        break;
      case 'part':
        role = this.roleOn(grants, target.robot, options);
        break;
      case 'registry':
      case 'module':
      case 'package':
        // Only organization roles: a location or machine role says nothing about what the organization publishes.
        on('organization', [target.orgId]);
        break;
      case 'fragment':
        // Fragments are the organization's: only organization roles count.
        on('organization', [target.orgId]);
        break;
      case 'trainingJob':
        // Training is the organization's: only organization roles count.
        on('organization', [target.orgId]);
        break;
    }
    return role;
  }

  /**
   * The target, if the caller may do what needs `need` on it: NOT_FOUND when it does not exist or
   * is not seen (the same answer for both), PERMISSION_DENIED when seen without the role.
   */
  require(identity: Identity, ref: ResourceRef, need: Exclude<Need, 'authenticated'>, options: { owningOrganizationOnly?: boolean; grants?: readonly Grant[] } = {}): Target {
    const grants = options.grants ?? this.grants(identity);
    const target = this.resolve(ref);
    if (target === undefined || !this.sees(grants, target)) {
      const { reason, what } = NOT_FOUND_REASON[ref.kind];
      throw notFound(reason, what, ref.id, ref.field);
    }
    if (need === 'sees') return target;
    const role = this.roleOn(grants, target, options);
    if (role === null || RANK[role] < RANK[need]) throw permissionDenied(need, target, options.owningOrganizationOnly ?? false);
    return target;
  }
}

export function permissionDenied(need: Role, target: Target, owning: boolean): FleetError {
  if (target.kind === 'registry' || target.kind === 'module' || target.kind === 'package') {
    return new FleetError(status.PERMISSION_DENIED, Reason.PERMISSION_DENIED, `this API key needs ${need} on the organization of ${target.kind === 'registry' ? 'registry item' : 'module'} ${target.itemId}`);
  }
  if (target.kind === 'fragment') {
    return new FleetError(status.PERMISSION_DENIED, Reason.PERMISSION_DENIED, `this API key needs ${need} on organization ${target.orgId}, which owns fragment ${target.id}`);
  }
  if (target.kind === 'trainingJob') {
    return new FleetError(status.PERMISSION_DENIED, Reason.PERMISSION_DENIED, `this API key needs ${need} on organization ${target.orgId}, which owns training job ${target.id}`);
  }
  const name = target.kind === 'robot' ? 'machine' : target.kind === 'part' ? 'the machine of part' : target.kind;
  const id = target.id;
  const where = owning && target.kind !== 'organization' ? ' (held in its owning organization; roles through a share do not count)' : '';
  return new FleetError(status.PERMISSION_DENIED, Reason.PERMISSION_DENIED, `this API key needs ${need} on ${name} ${id}${where}`);
}
