/**
 * The access domain's tables of a profile's cache (migration 17): per organization, its members and
 * pending invites, its API keys, the roles held on its resources, and what the active key may do
 * over its tree. Roles are kept without resource names: names come from the cached tree when read,
 * so a renamed location shows its new name offline too. Nothing here holds a secret: keys are kept
 * as id, name and times, invites as email and roles (the service never answers an invite's token).
 */
import type { AccessResourceType, ApiKey, Grant, GrantView, IdentityType, Invite, KeyPermissions, Member, Role } from '../../common/access';
import type { IsoTime } from '../../common/schemas';
import { markSynced, syncedAt, type CacheDb } from '../cache/cache';
import { cachedLocation, cachedMachine, cachedOrgName } from '../fleet/tree';
import type { NameOf } from './convert';

const peopleKey = (orgId: string) => `access-people:${orgId}`;
const keysKey = (orgId: string) => `access-keys:${orgId}`;
const rolesKey = (orgId: string) => `access-roles:${orgId}`;

/** One role one identity holds on one resource of an organization. */
export interface RoleRow {
  readonly resourceType: AccessResourceType;
  readonly resourceId: string;
  readonly identityType: IdentityType;
  readonly identityId: string;
  readonly role: Role;
}

/** Names resources from the cached tree. */
export function namesFrom(db: CacheDb): NameOf {
  return (type, id) => {
    if (type === 'organization') return cachedOrgName(db, id);
    if (type === 'location') return cachedLocation(db, id)?.name ?? null;
    return cachedMachine(db, id)?.name ?? null;
  };
}

const bare = (grants: readonly Grant[]): Grant[] => grants.map(({ resourceType, resourceId, role }) => ({ resourceType, resourceId, role }));
const named = (grants: readonly Grant[], nameOf: NameOf): GrantView[] => grants.map((g) => ({ ...g, resourceName: nameOf(g.resourceType, g.resourceId) }));

/** An organization's members and invites, as listed just now, replace the cached ones. */
export function putPeople(db: CacheDb, orgId: string, members: readonly Omit<Member, 'lastOwner'>[], invites: readonly Invite[], at: IsoTime): void {
  db.transaction(() => {
    db.prepare('DELETE FROM access_members WHERE org_id = ?').run(orgId);
    db.prepare('DELETE FROM access_invites WHERE org_id = ?').run(orgId);
    const member = db.prepare('INSERT INTO access_members (org_id, user_id, position, name, emails, date_added, last_login, grants) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    members.forEach((m, i) => member.run(orgId, m.userId, i, m.name, JSON.stringify(m.emails), m.dateAdded, m.lastLogin, JSON.stringify(bare(m.grants))));
    const invite = db.prepare('INSERT INTO access_invites (org_id, email, position, created_on, grants) VALUES (?, ?, ?, ?, ?)');
    invites.forEach((v, i) => invite.run(orgId, v.email, i, v.createdOn, JSON.stringify(bare(v.grants))));
    markSynced(db, peopleKey(orgId), at);
  })();
}

/** One invite as the service answered it just now (created, changed, resent). */
export function putInvite(db: CacheDb, invite: Invite): void {
  db.prepare(
    `INSERT INTO access_invites (org_id, email, position, created_on, grants)
     VALUES (@orgId, @email, (SELECT coalesce(max(position), -1) + 1 FROM access_invites WHERE org_id = @orgId), @createdOn, @grants)
     ON CONFLICT (org_id, email) DO UPDATE SET created_on = excluded.created_on, grants = excluded.grants`,
  ).run({ orgId: invite.orgId, email: invite.email, createdOn: invite.createdOn, grants: JSON.stringify(bare(invite.grants)) });
}

export function removeInvite(db: CacheDb, orgId: string, email: string): void {
  db.prepare('DELETE FROM access_invites WHERE org_id = ? AND email = ?').run(orgId, email);
}

export function removeMember(db: CacheDb, orgId: string, userId: string): void {
  db.prepare('DELETE FROM access_members WHERE org_id = ? AND user_id = ?').run(orgId, userId);
  db.prepare("DELETE FROM access_roles WHERE org_id = ? AND identity_type = 'user' AND identity_id = ?").run(orgId, userId);
}

/** An organization's cached members and invites; null when never listed. */
export function cachedPeople(db: CacheDb, orgId: string): { members: Member[]; invites: Invite[]; syncedAt: IsoTime | null } | null {
  const at = syncedAt(db, peopleKey(orgId));
  if (at === null) return null;
  const nameOf = namesFrom(db);
  const rows = db.prepare('SELECT * FROM access_members WHERE org_id = ? ORDER BY position').all(orgId) as {
    user_id: string;
    name: string;
    emails: string;
    date_added: string | null;
    last_login: string | null;
    grants: string;
  }[];
  const ownsOrg = (grants: readonly Grant[]) => grants.some((g) => g.resourceType === 'organization' && g.resourceId === orgId && g.role === 'owner');
  const grantsOf = rows.map((r) => JSON.parse(r.grants) as Grant[]);
  const userOwners = grantsOf.filter(ownsOrg).length;
  // The service counts keys as owners too: a user is the last owner only when no key owns the organization either (known from the cached keys).
  const keysKnown = syncedAt(db, keysKey(orgId)) !== null;
  const keyOwners = keysKnown ? cachedKeyRows(db, orgId).filter((k) => ownsOrg(k.grants)).length : null;
  const members = rows.map(
    (r, i): Member => ({
      userId: r.user_id,
      name: r.name,
      emails: JSON.parse(r.emails) as string[],
      dateAdded: r.date_added,
      lastLogin: r.last_login,
      grants: named(grantsOf[i] ?? [], nameOf),
      lastOwner: keyOwners === 0 && userOwners === 1 && ownsOrg(grantsOf[i] ?? []),
    }),
  );
  const invites = (db.prepare('SELECT * FROM access_invites WHERE org_id = ? ORDER BY position').all(orgId) as { email: string; created_on: string | null; grants: string }[]).map(
    (r): Invite => ({ orgId, email: r.email, createdOn: r.created_on, grants: named(JSON.parse(r.grants) as Grant[], nameOf) }),
  );
  return { members, invites, syncedAt: at };
}

/** An organization's keys, as listed just now, replace the cached ones. */
export function putKeys(db: CacheDb, orgId: string, keys: readonly ApiKey[], at: IsoTime): void {
  db.transaction(() => {
    db.prepare('DELETE FROM access_keys WHERE org_id = ?').run(orgId);
    const insert = db.prepare('INSERT INTO access_keys (org_id, key_id, position, name, created_on, last_used, grants) VALUES (?, ?, ?, ?, ?, ?, ?)');
    keys.forEach((k, i) => insert.run(orgId, k.id, i, k.name, k.createdOn, k.lastUsed, JSON.stringify(bare(k.grants))));
    markSynced(db, keysKey(orgId), at);
  })();
}

/** A key renamed: in every organization's list that has it. */
export function renameKey(db: CacheDb, keyId: string, name: string): void {
  db.prepare('UPDATE access_keys SET name = ? WHERE key_id = ?').run(name, keyId);
}

/** A key deleted: from every list, and its roles with it. */
export function removeKey(db: CacheDb, keyId: string): void {
  db.transaction(() => {
    db.prepare('DELETE FROM access_keys WHERE key_id = ?').run(keyId);
    db.prepare("DELETE FROM access_roles WHERE identity_type = 'key' AND identity_id = ?").run(keyId);
  })();
}

function cachedKeyRows(db: CacheDb, orgId: string): { id: string; name: string; createdOn: string | null; lastUsed: string | null; grants: Grant[] }[] {
  return (db.prepare('SELECT * FROM access_keys WHERE org_id = ? ORDER BY position').all(orgId) as { key_id: string; name: string; created_on: string | null; last_used: string | null; grants: string }[]).map(
    (r) => ({ id: r.key_id, name: r.name, createdOn: r.created_on, lastUsed: r.last_used, grants: JSON.parse(r.grants) as Grant[] }),
  );
}

/** An organization's cached keys; null when never listed. */
export function cachedKeys(db: CacheDb, orgId: string, thisKeyId: string): { keys: ApiKey[]; syncedAt: IsoTime | null } | null {
  const at = syncedAt(db, keysKey(orgId));
  if (at === null) return null;
  const nameOf = namesFrom(db);
  return { keys: cachedKeyRows(db, orgId).map((k) => ({ ...k, grants: named(k.grants, nameOf), thisProfile: k.id === thisKeyId })), syncedAt: at };
}

/** The roles held on these resources of an organization, as listed just now, replace the cached ones on them. */
export function putRoles(db: CacheDb, orgId: string, resourceIds: readonly string[], roles: readonly RoleRow[], at: IsoTime): void {
  db.transaction(() => {
    const clear = db.prepare('DELETE FROM access_roles WHERE org_id = ? AND resource_id = ?');
    for (const id of resourceIds) clear.run(orgId, id);
    const insert = db.prepare('INSERT OR IGNORE INTO access_roles (org_id, resource_type, resource_id, identity_type, identity_id, role) VALUES (?, ?, ?, ?, ?, ?)');
    for (const r of roles) insert.run(orgId, r.resourceType, r.resourceId, r.identityType, r.identityId, r.role);
    markSynced(db, rolesKey(orgId), at);
  })();
}

/** The cached roles on these resources; null when the organization's roles were never listed. */
export function cachedRoles(db: CacheDb, orgId: string, resourceIds: readonly string[]): { roles: RoleRow[]; syncedAt: IsoTime | null } | null {
  const at = syncedAt(db, rolesKey(orgId));
  if (at === null) return null;
  const select = db.prepare('SELECT resource_type, resource_id, identity_type, identity_id, role FROM access_roles WHERE org_id = ? AND resource_id = ?');
  const roles = resourceIds.flatMap((id) =>
    (select.all(orgId, id) as { resource_type: AccessResourceType; resource_id: string; identity_type: IdentityType; identity_id: string; role: Role }[]).map((r) => ({
      resourceType: r.resource_type,
      resourceId: r.resource_id,
      identityType: r.identity_type,
      identityId: r.identity_id,
      role: r.role,
    })),
  );
  return { roles, syncedAt: at };
}

/** Who an identity is, from the cached members and keys of the organization: name and (for users) primary email. */
export function identityNames(db: CacheDb, orgId: string): { users: Map<string, { name: string; email: string | null }>; keys: Map<string, string> } {
  const users = new Map<string, { name: string; email: string | null }>();
  for (const r of db.prepare('SELECT user_id, name, emails FROM access_members WHERE org_id = ?').all(orgId) as { user_id: string; name: string; emails: string }[]) {
    users.set(r.user_id, { name: r.name, email: (JSON.parse(r.emails) as string[])[0] ?? null });
  }
  const keys = new Map<string, string>();
  for (const r of db.prepare('SELECT key_id, name FROM access_keys WHERE org_id = ?').all(orgId) as { key_id: string; name: string }[]) keys.set(r.key_id, r.name);
  return { users, keys };
}

/** What the key may do over an organization's tree, as checked just now. Answers whether it changed. */
export function putPermissions(db: CacheDb, view: Omit<KeyPermissions, 'fromCache'>): boolean {
  const locations = JSON.stringify(view.locations);
  const machines = JSON.stringify(view.machines);
  const before = db.prepare('SELECT organization, locations, machines FROM key_permissions WHERE org_id = ?').get(view.orgId) as
    | { organization: number; locations: string; machines: string }
    | undefined;
  db.prepare(
    `INSERT INTO key_permissions (org_id, organization, locations, machines, checked_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (org_id) DO UPDATE SET organization = excluded.organization, locations = excluded.locations, machines = excluded.machines, checked_at = excluded.checked_at`,
  ).run(view.orgId, view.organization, locations, machines, view.checkedAt);
  return !before || before.organization !== view.organization || before.locations !== locations || before.machines !== machines;
}

/** What the key may do over an organization's tree, as last checked; every bit clear and `checkedAt` null when never. */
export function cachedPermissions(db: CacheDb, orgId: string): KeyPermissions {
  const row = db.prepare('SELECT * FROM key_permissions WHERE org_id = ?').get(orgId) as { organization: number; locations: string; machines: string; checked_at: string } | undefined;
  if (!row) return { orgId, organization: 0, locations: {}, machines: {}, checkedAt: null, fromCache: true };
  return {
    orgId,
    organization: row.organization,
    locations: JSON.parse(row.locations) as Record<string, number>,
    machines: JSON.parse(row.machines) as Record<string, number>,
    checkedAt: row.checked_at,
    fromCache: true,
  };
}

/** Forget what the key may do in organizations the profile no longer has. */
export function dropPermissionsExcept(db: CacheDb, orgIds: readonly string[]): void {
  const keep = new Set(orgIds);
  for (const id of db.prepare('SELECT org_id FROM key_permissions').pluck().all() as string[]) {
    if (!keep.has(id)) db.prepare('DELETE FROM key_permissions WHERE org_id = ?').run(id);
  }
}
