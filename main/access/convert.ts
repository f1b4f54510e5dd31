/**
 * Access records between the wire and the bridge. The wire says `robot` where the app says
 * `machine`, keeps an API key's identity type as the empty string, and carries secrets in the same
 * messages as ids: what leaves here for the cache or a list has no secret in it.
 */
import type { AccessResourceType, ApiKey, Grant, GrantView, IdentityType, Invite, Member, Role, SecretSummary } from '../../common/access';
import type { APIKey, APIKeyAuthorization, APIKeyWithAuthorizations, Authorization } from '../../proto/gen/fleet/app/v1/access';
import type { SharedSecret } from '../../proto/gen/fleet/app/v1/locations';
import type { OrganizationInvite, OrganizationMember } from '../../proto/gen/fleet/app/v1/orgs';
import { iso } from '../fleet/convert';

/** The wire's resource type for the app's. */
export function resourceTypeToWire(type: AccessResourceType): string {
  return type === 'machine' ? 'robot' : type;
}

/** The app's resource type for the wire's; null for one this version does not know. */
export function resourceTypeFromWire(type: string): AccessResourceType | null {
  if (type === 'robot') return 'machine';
  return type === 'organization' || type === 'location' ? type : null;
}

function roleFromWire(role: string): Role | null {
  return role === 'owner' || role === 'operator' ? role : null;
}

export function identityTypeFromWire(type: string): IdentityType {
  return type === 'user' ? 'user' : 'key';
}

/** A role held or granted, as the bridge names it; null for what this version cannot show. */
export function grantFromWire(a: Pick<Authorization, 'resourceType' | 'resourceId' | 'roleId'>): Grant | null {
  const resourceType = resourceTypeFromWire(a.resourceType);
  const role = roleFromWire(a.roleId);
  return resourceType && role ? { resourceType, resourceId: a.resourceId, role } : null;
}

/** An Authorization to send (invites): the service derives the id and ignores the identity. */
export function authorizationToWire(orgId: string, g: Grant): Authorization {
  const resourceType = resourceTypeToWire(g.resourceType);
  return {
    authorizationType: 'role',
    authorizationId: `${resourceType}_${g.role}`,
    resourceType,
    resourceId: g.resourceId,
    identityId: '',
    organizationId: orgId,
    identityType: '',
    roleId: g.role,
  };
}

export function keyAuthorizationToWire(g: Grant): APIKeyAuthorization {
  return { role: g.role, resourceType: resourceTypeToWire(g.resourceType), resourceId: g.resourceId };
}

/** The same role on the same resource. */
export const sameGrant = (a: Grant, b: Grant) => a.resourceType === b.resourceType && a.resourceId === b.resourceId && a.role === b.role;

/** Names a grant's resource (from the cached tree): null when it is not cached. */
export type NameOf = (type: AccessResourceType, id: string) => string | null;

export function grantViews(list: readonly Pick<Authorization, 'resourceType' | 'resourceId' | 'roleId'>[], nameOf: NameOf): GrantView[] {
  return list.flatMap((a) => {
    const g = grantFromWire(a);
    return g ? [{ ...g, resourceName: nameOf(g.resourceType, g.resourceId) }] : [];
  });
}

/** A member with the roles and display name the service adds beyond the spec. */
export function memberFromWire(m: OrganizationMember, orgId: string, nameOf: NameOf): Omit<Member, 'lastOwner'> {
  return {
    userId: m.userId,
    name: m.name,
    emails: m.emails,
    dateAdded: iso(m.dateAdded),
    lastLogin: iso(m.lastLogin),
    grants: grantViews(m.authorizations.filter((a) => a.organizationId === '' || a.organizationId === orgId), nameOf),
  };
}

export function inviteFromWire(i: OrganizationInvite, nameOf: NameOf): Invite {
  return { orgId: i.organizationId, email: i.email, createdOn: iso(i.createdOn), grants: grantViews(i.authorizations, nameOf) };
}

/** A key as listed: the secret field (always empty in listings) is not carried over. `orgId` keeps only its roles there (null: all). */
export function keyFromWire(k: APIKeyWithAuthorizations, orgId: string | null, nameOf: NameOf, thisKeyId: string): ApiKey {
  const key: APIKey = k.apiKey ?? { id: '', key: '', name: '' };
  const authorizations = orgId === null ? k.authorizations : k.authorizations.filter((a) => a.organizationId === '' || a.organizationId === orgId);
  return {
    id: key.id,
    name: key.name,
    createdOn: iso(key.createdOn),
    lastUsed: iso(key.lastUsed),
    grants: grantViews(authorizations, nameOf),
    thisProfile: key.id === thisKeyId,
  };
}

/** A secret as listed: id and time, the value left behind. */
export function secretSummary(s: SharedSecret): SecretSummary {
  return { id: s.id, createdOn: iso(s.createdOn) };
}

/** The service names resources by type and id ("needs owner on location <id>"): name the ones the cache knows, as the user sees them. */
export function named(text: string, nameOf: NameOf | null): string {
  if (!nameOf) return text;
  return text.replace(/\b(organization|location|robot) ([0-9A-Za-z][0-9A-Za-z_-]{7,})/g, (all, type: string, id: string) => {
    const kind = type === 'robot' ? 'machine' : (type as 'organization' | 'location');
    const name = nameOf(kind, id);
    return name === null ? all : `${kind} “${name}”`;
  });
}
