/**
 * Access over the bridge: who may do what in an organization, and the credentials that prove it.
 * Members and pending invites, roles held on organizations, locations and machines (by users and
 * API keys), an organization's and a machine's API keys, location and part secrets, and what the
 * active profile's own key may do over an organization's tree.
 *
 * Members, invites, keys (without secrets) and who holds what are cached per profile, so they read
 * offline (`fromCache` says so); so is what the key may do. Writes need the service.
 *
 * **Secrets cross the bridge exactly once.** The secret of a key made by `access.createKey`,
 * `access.rotateKey` or `access.duplicateKey`, and the value of a secret made by
 * `access.createLocationSecret` or `access.createPartSecret`, is in that call's answer and nowhere
 * else: never in an event, never in the cache, never in a log line, never in another channel's
 * answer (lists carry ids and times only). The renderer shows it once, with copy buttons. Two
 * deliberate exceptions, each answering one secret to one request: `access.revealSecret` answers one
 * location or part secret's value on request (for copying; the service keeps those readable), and
 * `access.useKeyInProfile` makes a profile from a key made moments ago without the renderer sending
 * the secret back: main keeps a key's secret in memory (never on disk) for `rememberedUntil`, under
 * its id, and forgets it once a profile uses it or the time is up. Invite tokens never reach main.
 */
import { z } from 'zod';
import type { ProfilesState } from './profiles';
import { ACCESS_RESOURCE_TYPES, ROLES, type KeyPermissions, type ResourceRef, type Role } from './permissions';
import { displayName, id, type IsoTime } from './schemas';

// What the page gates actions on from its first frame is apart, without zod (common/permissions.ts).
export { ACCESS_RESOURCE_TYPES, CHECKED_PERMISSIONS, holds, PERMISSION_ROLE, permissionResourceType, ROLES, whyNot } from './permissions';
export type { AccessResourceType, CheckedPermission, Denial, KeyPermissions, ResourceRef, Role } from './permissions';
/** Who holds a role: a user (a member of the organization) or an API key. */
export type IdentityType = 'user' | 'key';

const resourceType = z.enum(ACCESS_RESOURCE_TYPES, { error: 'must be "organization", "location" or "machine"' });
const role = z.enum(ROLES, { error: 'must be "owner" or "operator"' });

/** A role on a resource, as requests name it. */
export const grant = z.object({ resourceType, resourceId: id, role }).strict();
/** A role on a resource (the resource belongs to the organization of the request). */
export type Grant = z.output<typeof grant>;

/** At most this many roles in one request (an invite, a key): the tree picker's whole selection. */
export const MAX_GRANTS = 200;

const grants = z
  .array(grant)
  .min(1, 'must name at least one role')
  .max(MAX_GRANTS, `names more than ${MAX_GRANTS} roles`)
  .refine((list) => new Set(list.map((g) => `${g.resourceType}:${g.resourceId}:${g.role}`)).size === list.length, 'names the same role twice');

/** An email address, as invites take it (the service lower-cases it). */
const email = z.string().trim().min(3, 'must not be empty').max(320, 'is too long').email('must be an email address such as ana@example.com');

/** A role as shown: the resource named (as the cache or the service knows it). */
export interface GrantView extends Grant {
  /** The resource's name; null when this profile cannot see it (or has not synced it). */
  readonly resourceName: string | null;
}

/** A user holding at least one role in the organization. */
export interface Member {
  readonly userId: string;
  /** The display name; empty when the service has none. */
  readonly name: string;
  /** Email addresses, primary first. */
  readonly emails: readonly string[];
  readonly dateAdded: IsoTime | null;
  /** Null when the user never signed in. */
  readonly lastLogin: IsoTime | null;
  /** What the user holds in the organization. */
  readonly grants: readonly GrantView[];
  /** Whether this member is the only owner of the organization: removing them (or their owner role) is refused. */
  readonly lastOwner: boolean;
}

/** A pending invitation of an email address. Its token stays with the service and the mail. */
export interface Invite {
  readonly orgId: string;
  /** Lower-cased. */
  readonly email: string;
  readonly createdOn: IsoTime | null;
  /** What the invited user will hold once they accept; never empty. */
  readonly grants: readonly GrantView[];
}

/** An organization's members and pending invites. */
export interface People {
  readonly orgId: string;
  /** By date added. */
  readonly members: readonly Member[];
  /** By creation. */
  readonly invites: readonly Invite[];
  readonly fromCache: boolean;
  /** When these were last read from the service; null when never. */
  readonly syncedAt: IsoTime | null;
}

/** One role one identity holds on a resource or on one that covers it. */
export interface Holder {
  readonly identityType: IdentityType;
  readonly identityId: string;
  /** A user's display name or a key's name; null when neither the members nor the keys name it. */
  readonly name: string | null;
  /** A user's primary email; null for a key. */
  readonly email: string | null;
  readonly role: Role;
  /** Where the role is held: the resource asked about, or a location or organization covering it. */
  readonly on: ResourceRef;
  /** True when held on the resource itself (only these can be changed or removed from its page). */
  readonly direct: boolean;
  /** True for the active profile's own key. */
  readonly thisProfile: boolean;
}

/** Who holds what on a resource (ListAuthorizations over it and what covers it), strongest first. */
export interface Holders {
  readonly orgId: string;
  readonly resource: ResourceRef;
  readonly holders: readonly Holder[];
  readonly fromCache: boolean;
  readonly syncedAt: IsoTime | null;
}

/** An API key as listed: never its secret. */
export interface ApiKey {
  readonly id: string;
  readonly name: string;
  readonly createdOn: IsoTime | null;
  /** When it last signed in or made a call, to the minute; null when never (or the service does not say). */
  readonly lastUsed: IsoTime | null;
  /** Its roles in the organization listed (or, for a machine's keys, every role it holds). */
  readonly grants: readonly GrantView[];
  /** True for the active profile's own key: deleting or rotating it signs this app out. */
  readonly thisProfile: boolean;
}

/** An organization's API keys (those with a role in it), oldest first. */
export interface ApiKeyList {
  readonly orgId: string;
  readonly keys: readonly ApiKey[];
  readonly fromCache: boolean;
  readonly syncedAt: IsoTime | null;
}

/** The keys holding a role on a machine itself (not those reaching it through a location or organization). */
export interface MachineKeys {
  readonly machineId: string;
  readonly keys: readonly ApiKey[];
}

/**
 * A key's secret, shown once: the answer of the call that made it, and nowhere else. With its id
 * it is what a profile (or a module's SVC_API_KEY_ID / SVC_API_KEY) signs in with.
 */
export interface IssuedKey {
  readonly keyId: string;
  /** The secret. Cannot be read back: the service keeps only a hash. */
  readonly secret: string;
  readonly name: string;
  /** Until when `access.useKeyInProfile` can make a profile with it without it being entered. */
  readonly rememberedUntil: IsoTime;
}

/** What owns a shared secret: a location (machines joining it) or a machine part. */
export type SecretOwner = 'location' | 'part';

/** A shared secret as listed: its value is left out (`access.revealSecret` answers it on request). */
export interface SecretSummary {
  readonly id: string;
  readonly createdOn: IsoTime | null;
}

/** The secrets of a location or a part, oldest first. Empty once the last one was deleted: nothing connects with one then. */
export interface SecretList {
  readonly owner: SecretOwner;
  /** The location or part id. */
  readonly ownerId: string;
  readonly secrets: readonly SecretSummary[];
}

/** A new secret's value, shown once, with the list it joined (last). */
export interface IssuedSecret {
  readonly list: SecretList;
  readonly id: string;
  readonly value: string;
  readonly createdOn: IsoTime | null;
}

export const accessRequests = {
  /** An organization's members (with their roles) and pending invites: from the service when online (and cached), else the cache. Needs operator on it. */
  'access.people': z.object({ orgId: id }).strict(),
  /**
   * Invite an email address with the roles picked over the organization's tree. `sendEmail` false
   * sends no mail: the roles are granted at the user's next sign-in with that address. Needs owner
   * on the organization and the service.
   */
  'access.invite': z.object({ orgId: id, email, grants, sendEmail: z.boolean() }).strict(),
  /** Make a pending invite grant exactly `grants` (main adds what is new, then removes what is gone). Needs the service. */
  'access.updateInvite': z.object({ orgId: id, email, grants }).strict(),
  /** Send a pending invite's mail again (a new link; the old one stops working). Needs the service. */
  'access.resendInvite': z.object({ orgId: id, email }).strict(),
  /** Withdraw a pending invite. Needs the service. */
  'access.deleteInvite': z.object({ orgId: id, email }).strict(),
  /** Take every role a member holds in the organization; refused for its last owner. Needs the service. */
  'access.removeMember': z.object({ orgId: id, userId: id }).strict(),
  /** Who holds what on a resource of the organization (users and keys, by name), with what covers it: online (and cached), else the cache. Needs owner on the organization. */
  'access.holders': z.object({ orgId: id, resourceType, resourceId: id }).strict(),
  /** Give a user or key a role on a resource of the organization. Needs the service. */
  'access.addRole': z.object({ orgId: id, identityId: id, grant }).strict(),
  /** Replace one role of an identity with another in one step (never without access in between). Needs the service. */
  'access.changeRole': z.object({ orgId: id, identityId: id, from: grant, to: grant }).strict(),
  /** Take a role away; refused when it would leave the organization without an owner. Needs the service. */
  'access.removeRole': z.object({ orgId: id, identityId: id, grant }).strict(),
  /** An organization's API keys (name, roles, created, last used; never secrets): online (and cached), else the cache. Needs owner on it. */
  'access.keys': z.object({ orgId: id }).strict(),
  /** The keys holding a role on a machine itself. Needs owner on the machine and the service. */
  'access.machineKeys': z.object({ machineId: id }).strict(),
  /** Make a key with these roles in the organization; `name` absent: the service names it by its creation time. Answers its secret, once. */
  'access.createKey': z.object({ orgId: id, name: displayName.optional(), grants }).strict(),
  /** Give a key a new secret (same id): the old secret and every token signed in with it stop working at the next call. Answers the new secret, once. */
  'access.rotateKey': z.object({ keyId: id }).strict(),
  /** Rename a key. Needs the service. */
  'access.renameKey': z.object({ keyId: id, name: displayName }).strict(),
  /** Make a new key with a copy of a key's roles (nothing else: its name is its creation time). Answers its secret, once. */
  'access.duplicateKey': z.object({ keyId: id }).strict(),
  /** Delete a key: whatever signs in with it stops working at its next call. Needs the service. */
  'access.deleteKey': z.object({ keyId: id }).strict(),
  /**
   * Add a profile named `name` for the active profile's service, signing in with a key this app made
   * or rotated moments ago (see `IssuedKey.rememberedUntil`; main still holds its secret, so the
   * renderer sends none), and switch to it. The secret is then forgotten by this domain (the profile
   * keeps it in the keychain).
   */
  'access.useKeyInProfile': z.object({ keyId: id, name: z.string().trim().min(1, 'must not be empty').max(100, 'is too long') }).strict(),
  /** A location's secrets, values left out. Needs owner on the location and the service. */
  'access.locationSecrets': z.object({ locationId: id }).strict(),
  /** Make a location secret. Answers its value, once. */
  'access.createLocationSecret': z.object({ locationId: id }).strict(),
  /** Delete a location secret (the last one too: then no machine can join with one until a new one is made). */
  'access.deleteLocationSecret': z.object({ locationId: id, secretId: id }).strict(),
  /** A part's secrets (as GetRobotPart answers them), values left out. Needs owner on its machine and the service. */
  'access.partSecrets': z.object({ partId: id }).strict(),
  /** Make a part secret. Answers its value, once. */
  'access.createPartSecret': z.object({ partId: id }).strict(),
  /** Delete a part secret (the last one too: then the part cannot connect until a new one is made). */
  'access.deletePartSecret': z.object({ partId: id, secretId: id }).strict(),
  /** One location or part secret's value, asked for to copy it. Read from the service each time; never cached. */
  'access.revealSecret': z.object({ owner: z.enum(['location', 'part'], { error: 'must be "location" or "part"' }), ownerId: id, secretId: id }).strict(),
  /** What the active key may do over the organization's tree, as last checked (the sync refreshes it; event `access.permissions`). Answers offline from the cache. */
  'access.permissions': z.object({ orgId: id }).strict(),
};

export interface AccessResponses {
  'access.people': People;
  'access.invite': Invite;
  'access.updateInvite': Invite;
  'access.resendInvite': Invite;
  'access.deleteInvite': Record<string, never>;
  'access.removeMember': Record<string, never>;
  'access.holders': Holders;
  'access.addRole': Record<string, never>;
  'access.changeRole': Record<string, never>;
  'access.removeRole': Record<string, never>;
  'access.keys': ApiKeyList;
  'access.machineKeys': MachineKeys;
  'access.createKey': IssuedKey;
  'access.rotateKey': IssuedKey;
  'access.renameKey': { readonly keyId: string; readonly name: string };
  'access.duplicateKey': IssuedKey;
  'access.deleteKey': Record<string, never>;
  'access.useKeyInProfile': ProfilesState;
  'access.locationSecrets': SecretList;
  'access.createLocationSecret': IssuedSecret;
  'access.deleteLocationSecret': SecretList;
  'access.partSecrets': SecretList;
  'access.createPartSecret': IssuedSecret;
  'access.deletePartSecret': SecretList;
  'access.revealSecret': { readonly id: string; readonly value: string };
  'access.permissions': KeyPermissions;
}

/** Event `access.permissions`: what the key may do changed in these organizations (`all`: every one, after a switch). Ask `access.permissions` again. */
export interface PermissionsChanged {
  readonly orgIds: readonly string[];
  readonly all: boolean;
}
