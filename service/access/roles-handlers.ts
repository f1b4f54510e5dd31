/**
 * Roles and permissions (docs/PROTOCOL.md section 11, "Roles and permissions"): granting, taking and
 * changing roles, listing an organization's authorizations, and CheckPermissions — answered for a
 * whole tree in one call from the permission engine (one bulk resolution, not a query per resource).
 */
import { status } from '@grpc/grpc-js';
import type Database from 'better-sqlite3';
import type { AuthorizedPermissions } from '../../proto/gen/fleet/app/v1/access';
import type { AppServiceService } from '../../proto/gen/fleet/app/v1/app';
import { FleetError, Reason } from '../errors';
import { pageSize, PageTokens } from '../paging';
import { atLeast, type Identity, type Permissions, type ResourceType, type Role } from '../permissions/engine';
import { targetOf } from '../permissions/resources';
import type { CallContext, UnaryHandlers } from '../rpc';
import type { Authorizations } from './authorizations';
import { authorizationMessage, inOrganization, mayGrant, PERMISSIONS, resourceNotFound, type RoleOn, type RoleStore } from './roles';

/** What the role operations work with (handed in by server.ts). */
export interface RoleDeps {
  readonly db: Database.Database;
  readonly roles: RoleStore;
  readonly authorizations: Authorizations;
  readonly permissions: Permissions;
  readonly pages: PageTokens;
}

/** One side of a role request, with the field names its errors point at. */
interface Named {
  readonly identityId: string;
  readonly on: RoleOn;
  readonly prefix: string;
}

const lastOwner = (field: string) => new FleetError(status.FAILED_PRECONDITION, Reason.LAST_OWNER, 'this would leave the organization without an owner: make someone else owner first', field);

export function createRoleHandlers(deps: RoleDeps): UnaryHandlers<typeof AppServiceService, CallContext> {
  const { db, roles, permissions } = deps;

  /** The identity and resource of one side, checked in the protocol's order (both NOT_FOUND). */
  const resolve = (orgId: string, side: Named): Identity => {
    const identity = roles.identity(side.identityId);
    if (identity === undefined) {
      throw new FleetError(status.NOT_FOUND, Reason.IDENTITY_NOT_FOUND, `no user or API key ${JSON.stringify(side.identityId.slice(0, 60))} (a user's own API key is not an identity: give the role to the user)`, `${side.prefix}identity_id`);
    }
    if (!inOrganization(permissions, side.on, orgId)) throw resourceNotFound(side.on, `${side.prefix}resource_id`);
    return identity;
  };
  const grant = (identity: Identity, orgId: string, on: RoleOn) =>
    deps.authorizations.grant(identity, { organizationId: orgId, resourceType: on.resourceType, resourceId: on.resourceId, role: on.role });
  const exists = (prefix: string) => new FleetError(status.ALREADY_EXISTS, Reason.AUTHORIZATION_EXISTS, 'the identity already holds this role', `${prefix}role`);
  const notHeld = (prefix: string) => new FleetError(status.NOT_FOUND, Reason.AUTHORIZATION_NOT_FOUND, 'the identity does not hold this role in this organization', `${prefix}role`);
  const side = (r: { identityId: string; role: string; resourceType: string; resourceId: string }, prefix = ''): Named => ({
    identityId: r.identityId,
    on: { role: r.role as Role, resourceType: r.resourceType as ResourceType, resourceId: r.resourceId },
    prefix,
  });

  return {
    async addRole(request, ctx) {
      const org = targetOf(ctx, 'organization');
      const s = side(request);
      const identity = resolve(org.id, s);
      mayGrant(permissions, ctx.grants, s.on, 'role');
      db.transaction(() => {
        if (roles.holds(identity, org.id, s.on)) throw exists('');
        grant(identity, org.id, s.on);
      })();
      return {};
    },

    async removeRole(request, ctx) {
      const org = targetOf(ctx, 'organization');
      const s = side(request);
      const identity = resolve(org.id, s);
      db.transaction(() => {
        if (!roles.remove(identity, org.id, s.on)) throw notHeld('');
        if (roles.owners(org.id) === 0) throw lastOwner('role');
      })();
      return {};
    },

    async changeRole(request, ctx) {
      const org = targetOf(ctx, 'organization');
      const old = side({ identityId: request.oldIdentityId, role: request.oldRole, resourceType: request.oldResourceType, resourceId: request.oldResourceId }, 'old_');
      const next = side({ identityId: request.newIdentityId, role: request.newRole, resourceType: request.newResourceType, resourceId: request.newResourceId }, 'new_');
      const oldIdentity = resolve(org.id, old);
      const newIdentity = resolve(org.id, next);
      mayGrant(permissions, ctx.grants, next.on, 'new_role');
      // Both or neither: any refusal below rolls the removal back.
      db.transaction(() => {
        if (!roles.remove(oldIdentity, org.id, old.on)) throw notHeld('old_');
        if (roles.holds(newIdentity, org.id, next.on)) throw exists('new_');
        grant(newIdentity, org.id, next.on);
        if (roles.owners(org.id) === 0) throw lastOwner('new_role');
      })();
      return {};
    },

    async listAuthorizations(request, ctx) {
      const org = targetOf(ctx, 'organization');
      const size = pageSize('page_size', request.pageSize);
      // A resource id may name an organization, a location or a machine: one bulk lookup as each of the three.
      const ids = request.resourceIds;
      const kinds: ResourceType[] = ['organization', 'location', 'robot'];
      const found = permissions.resolveMany(ids.flatMap((id) => kinds.map((kind) => ({ kind, id }))));
      ids.forEach((id, i) => {
        const inOrg = found.slice(i * 3, i * 3 + 3).some((t) => t !== undefined && (t.kind === 'organization' ? t.id === org.id : (t.kind === 'robot' ? t.location : t).accessOrgIds.includes(org.id)));
        if (!inOrg) throw new FleetError(status.NOT_FOUND, Reason.RESOURCE_NOT_FOUND, `no organization, location or machine ${JSON.stringify(id.slice(0, 60))} in this organization`, `resource_ids[${i}]`);
      });
      const fingerprint = PageTokens.fingerprint('ListAuthorizations', { orgId: org.id, ids });
      const cursor = deps.pages.read(fingerprint, request.pageToken);
      const rows = roles.list(org.id, ids, Number(cursor?.after[0] ?? 0), size + 1);
      const page = rows.slice(0, size);
      const last = page.at(-1);
      return {
        authorizations: page.map(authorizationMessage),
        nextPageToken: rows.length > size && last !== undefined ? deps.pages.issue(fingerprint, { after: [last.id], returned: (cursor?.returned ?? 0) + page.length }) : '',
      };
    },

    async checkPermissions(request, ctx) {
      const entries = request.permissions;
      const roles = permissions.rolesOn(ctx.grants, permissions.resolveMany(entries.map((e) => ({ kind: e.resourceType as ResourceType, id: e.resourceId }))));
      const authorized: AuthorizedPermissions[] = entries.map((entry, i) => {
        const role = roles[i];
        const answer = { resourceType: entry.resourceType, resourceId: entry.resourceId, permissions: [] as string[] };
        // Unknown, unseen, or seen without a role: nothing held.
        if (role === undefined || role === null) return answer;
        // A permission is held on the resource type it is checked on (section 10), never on another.
        answer.permissions = entry.permissions.filter((p) => {
          const rule = PERMISSIONS.get(p);
          return rule !== undefined && rule.on === entry.resourceType && atLeast(role, rule.role);
        });
        return answer;
      });
      return { authorizedPermissions: authorized };
    },
  };
}
