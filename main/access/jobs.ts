/** The access domain's cache jobs (cache.ts): every write of its tables. */
import type { ApiKey, Invite, KeyPermissions, Member } from '../../common/access';
import type { IsoTime } from '../../common/schemas';
import type { CacheDb } from '../cache/cache';
import { dropPermissionsExcept, putInvite, putKeys, putPeople, putPermissions, putRoles, removeInvite, removeKey, removeMember, renameKey, type RoleRow } from './cache';

export const accessJobs = {
  /** An organization's members and invites replace its cached ones. */
  accessPeoplePut: (db: CacheDb, orgId: string, members: readonly Omit<Member, 'lastOwner'>[], invites: readonly Invite[], at: IsoTime): void => putPeople(db, orgId, members, invites, at),
  accessInvitePut: (db: CacheDb, invite: Invite): void => putInvite(db, invite),
  accessInviteRemove: (db: CacheDb, orgId: string, email: string): void => removeInvite(db, orgId, email),
  accessMemberRemove: (db: CacheDb, orgId: string, userId: string): void => removeMember(db, orgId, userId),
  /** An organization's keys replace its cached ones (never a secret: ApiKey has none). */
  accessKeysPut: (db: CacheDb, orgId: string, keys: readonly ApiKey[], at: IsoTime): void => putKeys(db, orgId, keys, at),
  accessKeyRename: (db: CacheDb, keyId: string, name: string): void => renameKey(db, keyId, name),
  accessKeyRemove: (db: CacheDb, keyId: string): void => removeKey(db, keyId),
  /** The roles on these resources of an organization replace their cached ones. */
  accessRolesPut: (db: CacheDb, orgId: string, resourceIds: readonly string[], roles: readonly RoleRow[], at: IsoTime): void => putRoles(db, orgId, resourceIds, roles, at),
  /** What the key may do over an organization's tree; answers whether it changed. */
  accessPermissionsPut: (db: CacheDb, view: Omit<KeyPermissions, 'fromCache'>): boolean => putPermissions(db, view),
  accessPermissionsKeep: (db: CacheDb, orgIds: readonly string[]): void => dropPermissionsExcept(db, orgIds),
};
