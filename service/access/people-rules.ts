/**
 * The permission rows of the people operations: members, invites and roles (docs/PROTOCOL.md
 * sections 10–11; the machinery: permissions/rules.ts). AcceptOrganizationInvite has none: it is
 * public, its token is its credential.
 */
import type { AppServiceService } from '../../proto/gen/fleet/app/v1/app';
import { invalidArgument, Reason } from '../errors';
import { none, org, type Rules } from '../permissions/rules';
import { idList, requiredId } from '../validate';
import { authorizationField, PERMISSIONS, resourceTypeField, roleField } from './roles';
import { emailAddress } from './users';

/** The five fields of AddRole and RemoveRole, or one side of ChangeRole (`prefix` `old_`/`new_`). */
function roleFields(r: { identityId: string; role: string; resourceType: string; resourceId: string }, prefix = ''): void {
  requiredId(`${prefix}identity_id`, r.identityId);
  roleField(`${prefix}role`, r.role);
  resourceTypeField(`${prefix}resource_type`, r.resourceType);
  requiredId(`${prefix}resource_id`, r.resourceId);
}

export const peopleRules: Rules<typeof AppServiceService> = {
  // Owner on any organization: the handler checks the caller's grants (the row names no resource).
  getUserIdByEmail: { validate: (r) => emailAddress('email', r.email), resource: none, need: 'authenticated' },
  listOrganizationMembers: { resource: (r) => org(r.orgId), need: 'operator' },
  createOrganizationInvite: {
    validate: (r) => {
      requiredId('org_id', r.orgId);
      emailAddress('email', r.email);
      r.authorizations.forEach((a, i) => authorizationField(`authorizations[${i}]`, a));
    },
    resource: (r) => org(r.orgId),
    need: 'owner',
  },
  updateOrganizationInviteAuthorizations: {
    validate: (r) => {
      requiredId('org_id', r.orgId);
      emailAddress('email', r.email);
      if (r.addAuthorizations.length === 0 && r.removeAuthorizations.length === 0) {
        throw invalidArgument('add_authorizations', Reason.AUTHORIZATIONS_EMPTY, 'pass at least one authorization to add or to remove');
      }
      r.addAuthorizations.forEach((a, i) => authorizationField(`add_authorizations[${i}]`, a));
      r.removeAuthorizations.forEach((a, i) => authorizationField(`remove_authorizations[${i}]`, a));
    },
    resource: (r) => org(r.orgId),
    need: 'owner',
  },
  deleteOrganizationMember: { validate: (r) => (requiredId('org_id', r.orgId), requiredId('user_id', r.userId)), resource: (r) => org(r.orgId), need: 'owner' },
  deleteOrganizationInvite: { validate: (r) => (requiredId('org_id', r.orgId), emailAddress('email', r.email)), resource: (r) => org(r.orgId), need: 'owner' },
  resendOrganizationInvite: { validate: (r) => (requiredId('org_id', r.orgId), emailAddress('email', r.email)), resource: (r) => org(r.orgId), need: 'owner' },
  addRole: { validate: (r) => (requiredId('org_id', r.orgId), roleFields(r)), resource: (r) => org(r.orgId), need: 'owner' },
  removeRole: { validate: (r) => (requiredId('org_id', r.orgId), roleFields(r)), resource: (r) => org(r.orgId), need: 'owner' },
  changeRole: {
    validate: (r) => {
      requiredId('organization_id', r.organizationId);
      roleFields({ identityId: r.oldIdentityId, role: r.oldRole, resourceType: r.oldResourceType, resourceId: r.oldResourceId }, 'old_');
      roleFields({ identityId: r.newIdentityId, role: r.newRole, resourceType: r.newResourceType, resourceId: r.newResourceId }, 'new_');
    },
    resource: (r) => org(r.organizationId, 'organization_id'),
    need: 'owner',
  },
  listAuthorizations: { validate: (r) => (requiredId('org_id', r.orgId), idList('resource_ids', r.resourceIds)), resource: (r) => org(r.orgId), need: 'owner' },
  checkPermissions: {
    validate: (r) => {
      if (r.permissions.length === 0) throw invalidArgument('permissions', Reason.PERMISSIONS_EMPTY, 'permissions must name at least one resource and its permissions');
      r.permissions.forEach((p, i) => {
        resourceTypeField(`permissions[${i}].resource_type`, p.resourceType);
        requiredId(`permissions[${i}].resource_id`, p.resourceId);
        p.permissions.forEach((name, j) => {
          if (!PERMISSIONS.has(name)) throw invalidArgument(`permissions[${i}].permissions[${j}]`, Reason.PERMISSION_INVALID, `${JSON.stringify(name.slice(0, 60))} is no permission this service knows (docs/PROTOCOL.md section 10 lists them)`);
        });
      });
    },
    resource: none,
    need: 'authenticated',
  },
};
