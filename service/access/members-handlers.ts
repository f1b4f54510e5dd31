/**
 * Members and invites (docs/PROTOCOL.md section 11, "Users and organizations", and "Users, sign-in
 * and invites"): who is in an organization, inviting people by email, and accepting an invite —
 * with the token of its mail, or at the next sign-in for an invite made without mail.
 */
import { status } from '@grpc/grpc-js';
import type Database from 'better-sqlite3';
import type { AppServiceService } from '../../proto/gen/fleet/app/v1/app';
import type { OrganizationInvite, OrganizationMember } from '../../proto/gen/fleet/app/v1/orgs';
import { FleetError, Reason } from '../errors';
import type { Permissions } from '../permissions/engine';
import { targetOf } from '../permissions/resources';
import type { CallContext, CallInfo, UnaryHandlers } from '../rpc';
import { displayName, requiredId } from '../validate';
import type { Authorizations } from './authorizations';
import type { Invite, InviteStore } from './invites';
import type { Mailer } from './mail';
import { authorizationField, authorizationMessage, inOrganization, mayGrant, resourceNotFound, type RoleOn, type RoleStore } from './roles';
import { emailAddress, type User, type UserStore } from './users';

/** What the member and invite operations work with (handed in by server.ts). */
export interface PeopleDeps {
  readonly db: Database.Database;
  readonly users: UserStore;
  readonly invites: InviteStore;
  readonly roles: RoleStore;
  readonly authorizations: Authorizations;
  readonly permissions: Permissions;
  readonly mailer: Mailer;
  /** The base of invite links (the service's public url), without a trailing slash. */
  readonly baseUrl: () => string;
  readonly log: (line: string) => void;
}

const inviteNotFound = (email: string) => new FleetError(status.NOT_FOUND, Reason.INVITE_NOT_FOUND, `no invite for ${email} is pending in this organization`, 'email');

/** An invite as the wire shows it: its authorizations are for a user not known yet (identity_id empty). */
export function inviteMessage(invite: Invite): OrganizationInvite {
  return {
    organizationId: invite.organizationId,
    email: invite.email,
    createdOn: new Date(invite.createdAt),
    authorizations: invite.authorizations.map((a) =>
      authorizationMessage({ resourceType: a.resourceType, resourceId: a.resourceId, roleId: a.role, identityId: '', identityType: 'user', organizationId: invite.organizationId }),
    ),
  };
}

/**
 * Give a user what an invite holds (what is still in the organization: a machine deleted since is
 * skipped) and retire the invite. Synchronous: runs inside the caller's transaction.
 */
export function grantInvite(deps: Pick<PeopleDeps, 'authorizations' | 'permissions' | 'invites'>, invite: Invite, user: User, now: Date = new Date()): RoleOn[] {
  const granted = invite.authorizations.filter((a) => inOrganization(deps.permissions, a, invite.organizationId));
  for (const a of granted) deps.authorizations.grant({ type: 'user', id: user.id }, { organizationId: invite.organizationId, resourceType: a.resourceType, resourceId: a.resourceId, role: a.role }, now);
  deps.invites.delete(invite.id);
  return granted;
}

/**
 * What a successful Authenticate does for a user key: note the login, and grant every invite made
 * without mail for the user's email (docs/PROTOCOL.md: "granted at the user's next login").
 */
export function signedIn(deps: Pick<PeopleDeps, 'db' | 'users' | 'authorizations' | 'permissions' | 'invites' | 'log'>, keyId: string, now: Date = new Date()): void {
  const userId = deps.users.ownerOf(keyId);
  const user = userId === null ? undefined : deps.users.byId(userId);
  if (user === undefined) return;
  deps.db.transaction(() => {
    deps.users.recordLogin(user.id, now);
    for (const invite of deps.invites.silentFor(user.email)) {
      grantInvite(deps, invite, user, now);
      deps.log(`user ${user.id} signed in: the invite to organization ${invite.organizationId} made without email is granted`);
    }
  })();
}

/** Send the mail of an invite; UNAVAILABLE (MAIL_UNAVAILABLE) when the SMTP server does not take it. */
async function mailInvite(deps: PeopleDeps, invite: Invite, token: string): Promise<void> {
  const orgName = (deps.db.prepare('SELECT name FROM organizations WHERE id = ?').pluck().get(invite.organizationId) as string | undefined) ?? invite.organizationId;
  const link = `${deps.baseUrl()}/invite?token=${token}`;
  const text = [
    `You are invited to the organization "${orgName}" on Fleet Desk.`,
    '',
    `Accept the invite: ${link}`,
    '',
    `Or, in Fleet Desk, accept an invite with this token: ${token}`,
    '',
    'Accepting signs you up with this email address if you have no account yet, and gives you the',
    'roles the invite holds. If you did not expect this invite, ignore this mail.',
  ].join('\n');
  try {
    await deps.mailer.send({ to: invite.email, subject: `Invitation to ${orgName} on Fleet Desk`, text, link });
  } catch (e) {
    // The error says what the SMTP server answered; it holds no token (the mail's text is not in it).
    deps.log(`invite mail to ${invite.email} not sent: ${e instanceof Error ? e.message : String(e)}`);
    throw new FleetError(status.UNAVAILABLE, Reason.MAIL_UNAVAILABLE, 'the mail server did not take the invite email; try again later (the service log says why)');
  }
}

/** The authorizations of a request, checked against the organization: in it, and not more than the caller holds. */
function checkedRoles(deps: PeopleDeps, ctx: CallContext, orgId: string, list: readonly Parameters<typeof authorizationField>[1][], field: string): RoleOn[] {
  return list.map((a, i) => {
    const on = authorizationField(`${field}[${i}]`, a);
    if (!inOrganization(deps.permissions, on, orgId)) throw resourceNotFound(on, `${field}[${i}].resource_id`);
    mayGrant(deps.permissions, ctx.grants, on, `${field}[${i}]`);
    return on;
  });
}

export function createMemberHandlers(deps: PeopleDeps): UnaryHandlers<typeof AppServiceService, CallContext> {
  const { db, users, invites, roles } = deps;
  return {
    async getUserIdByEmail(request, ctx) {
      if (!ctx.grants.some((g) => g.resourceType === 'organization' && g.role === 'owner')) {
        throw new FleetError(status.PERMISSION_DENIED, Reason.PERMISSION_DENIED, 'this API key needs owner on an organization to look users up by email');
      }
      const email = emailAddress('email', request.email);
      const user = users.byEmail(email);
      if (user === undefined) throw new FleetError(status.NOT_FOUND, Reason.USER_NOT_FOUND, `no user has the email ${email}`, 'email');
      return { userId: user.id };
    },

    async listOrganizationMembers(_request, ctx) {
      const org = targetOf(ctx, 'organization');
      const rows = db
        .prepare(
          `SELECT u.id, u.email, u.display_name AS name, u.last_login AS lastLogin, min(a.created_at) AS dateAdded
             FROM users u JOIN authorizations a ON a.identity_type = 'user' AND a.identity_id = u.id
            WHERE a.organization_id = ? GROUP BY u.id ORDER BY dateAdded, u.id`,
        )
        .all(org.id) as { id: string; email: string; name: string; lastLogin: string | null; dateAdded: string }[];
      const held = roles.ofUsersIn(org.id);
      const members: OrganizationMember[] = rows.map((r) => ({
        userId: r.id,
        emails: [r.email],
        dateAdded: new Date(r.dateAdded),
        lastLogin: r.lastLogin === null ? undefined : new Date(r.lastLogin),
        authorizations: (held.get(r.id) ?? []).map(authorizationMessage),
        name: r.name,
      }));
      return { members, invites: invites.list(org.id).map(inviteMessage) };
    },

    async createOrganizationInvite(request, ctx) {
      const org = targetOf(ctx, 'organization');
      const email = emailAddress('email', request.email);
      const asked = checkedRoles(deps, ctx, org.id, request.authorizations, 'authorizations');
      const wanted: RoleOn[] = asked.length > 0 ? asked : [{ role: 'owner', resourceType: 'organization', resourceId: org.id }];
      const user = users.byEmail(email);
      if (user !== undefined && roles.ofUser(user.id, org.id).length > 0) throw new FleetError(status.ALREADY_EXISTS, Reason.ALREADY_MEMBER, `${email} is already a member of this organization`, 'email');
      if (invites.get(org.id, email) !== undefined) throw new FleetError(status.ALREADY_EXISTS, Reason.INVITE_EXISTS, `an invite for ${email} is already pending: resend or update it`, 'email');
      const { invite, token } = invites.create(org.id, email, request.sendEmailInvite ?? true, wanted);
      if (token !== null) {
        try {
          await mailInvite(deps, invite, token);
        } catch (e) {
          invites.delete(invite.id);
          throw e;
        }
      }
      return { invite: inviteMessage(invite) };
    },

    async updateOrganizationInviteAuthorizations(request, ctx) {
      const org = targetOf(ctx, 'organization');
      const email = emailAddress('email', request.email);
      const invite = invites.get(org.id, email);
      if (invite === undefined) throw inviteNotFound(email);
      const add = checkedRoles(deps, ctx, org.id, request.addAuthorizations, 'add_authorizations');
      const remove = request.removeAuthorizations.map((a, i) => authorizationField(`remove_authorizations[${i}]`, a));
      db.transaction(() => {
        // Adds before it removes, so that replacing the only authorization is one call.
        invites.add(invite.id, add);
        invites.removeSome(invite.id, remove);
        if (invites.count(invite.id) === 0) {
          throw new FleetError(status.FAILED_PRECONDITION, Reason.LAST_INVITE_AUTHORIZATION, 'an invite must keep at least one authorization: delete the invite instead', 'remove_authorizations');
        }
      })();
      return { invite: inviteMessage(invites.get(org.id, email) ?? invite) };
    },

    async deleteOrganizationMember(request, ctx) {
      const org = targetOf(ctx, 'organization');
      const userId = requiredId('user_id', request.userId);
      db.transaction(() => {
        if (roles.removeAll({ type: 'user', id: userId }, org.id) === 0) {
          throw new FleetError(status.NOT_FOUND, Reason.MEMBER_NOT_FOUND, `user ${JSON.stringify(userId.slice(0, 60))} is no member of this organization`, 'user_id');
        }
        if (roles.owners(org.id) === 0) throw new FleetError(status.FAILED_PRECONDITION, Reason.LAST_OWNER, 'this would leave the organization without an owner: make someone else owner first', 'user_id');
      })();
      return {};
    },

    async deleteOrganizationInvite(request, ctx) {
      const org = targetOf(ctx, 'organization');
      const email = emailAddress('email', request.email);
      const invite = invites.get(org.id, email);
      if (invite === undefined) throw inviteNotFound(email);
      invites.delete(invite.id);
      return {};
    },

    async resendOrganizationInvite(request, ctx) {
      const org = targetOf(ctx, 'organization');
      const email = emailAddress('email', request.email);
      const invite = invites.get(org.id, email);
      if (invite === undefined) throw inviteNotFound(email);
      await mailInvite(deps, invite, invites.renewToken(invite.id));
      return { invite: inviteMessage(invite) };
    },
  };
}

/** AcceptOrganizationInvite: public, the token of the invite's mail is its credential. */
export function createAcceptHandler(deps: PeopleDeps): UnaryHandlers<typeof AppServiceService, CallInfo> {
  return {
    async acceptOrganizationInvite(request) {
      const token = requiredId('token', request.token);
      const name = request.name.trim() === '' ? undefined : displayName('name', request.name);
      return deps.db.transaction(() => {
        const invite = deps.invites.byToken(token);
        if (invite === undefined) {
          throw new FleetError(status.NOT_FOUND, Reason.INVITE_NOT_FOUND, 'no pending invite has this token: it may have been withdrawn, resent with a new link, or accepted already', 'token');
        }
        const existing = deps.users.byEmail(invite.email);
        const user = existing ?? deps.users.create(invite.email, name ?? invite.email.slice(0, invite.email.indexOf('@')));
        const key = existing === undefined ? deps.users.addKey(user.id, `${invite.email} (from an invite)`) : undefined;
        const granted = grantInvite(deps, invite, user);
        deps.log(`user ${user.id} accepted the invite to organization ${invite.organizationId}`);
        return {
          orgId: invite.organizationId,
          userId: user.id,
          authorizations: granted.map((a) =>
            authorizationMessage({ resourceType: a.resourceType, resourceId: a.resourceId, roleId: a.role, identityId: user.id, identityType: 'user', organizationId: invite.organizationId }),
          ),
          apiKey: key && { id: key.id, key: key.secret, name: key.name, createdOn: new Date() },
        };
      })();
    },
  };
}
