// Users, members and invites, roles, ListAuthorizations and CheckPermissions over a real socket:
// every rule of docs/PROTOCOL.md sections 10–11 ("Users and organizations", "Roles and
// permissions", "Users, sign-in and invites") with its status and reason, the permission rows with
// owner, operator, location- and machine-scoped keys and another organization's key, invite mail
// through the outbox and through a real SMTP server, and no secret in a log line or an error.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { status, type Metadata, type ServiceError } from '@grpc/grpc-js';
import fc from 'fast-check';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyStore } from '../../service/access/keys';
import { UserStore } from '../../service/access/users';
import { OrgStore } from '../../service/orgs/store';
import { Authorizations } from '../../service/access/authorizations';
import { addUser } from '../../service/server';
import { appCall, bearer, call, createKeyWithOrg, expectError, ownerMetadata, scopedKey, startTestService, tokenFor, type TestService } from './helpers';

let t: TestService;
let owner: Metadata;
/** The world: the bootstrap organization, a site with a floor, a machine on each, and keys of every scope. */
const w = { orgId: '', siteId: '', floorId: '', otherSiteId: '', robotId: '', floorRobotId: '', otherRobotId: '', foreignOrgId: '', foreignSiteId: '' };
const keys: Record<'orgOperator' | 'siteOwner' | 'siteOperator' | 'robotOwner' | 'robotOperator' | 'foreign', { keyId: string; metadata: Metadata }> = {} as never;
/** Every secret the suite handles: none may appear in a log line or an error message. */
const secrets: string[] = [];

/** A user with a key, made as the operator's --add-user makes them, and their metadata. */
async function user(email: string, name?: string): Promise<{ userId: string; metadata: Metadata; keyId: string; secret: string }> {
  const added = addUser(t.dataDir, email, name);
  secrets.push(added.apiKey);
  return { userId: added.userId, keyId: added.apiKeyId, secret: added.apiKey, metadata: bearer(await tokenFor(t, added.apiKeyId, added.apiKey)) };
}

function outbox(): string[] {
  try {
    return readdirSync(join(t.dataDir, 'outbox')).sort().map((f) => readFileSync(join(t.dataDir, 'outbox', f), 'utf8'));
  } catch {
    return [];
  }
}
/** A mail's text with its quoted-printable soft line breaks and escapes undone (long lines, such as the link, are wrapped). */
function unquote(mail: string): string {
  return mail.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** The token of the last invite mail to `email` in the outbox. */
function lastToken(email: string): string {
  const mail = outbox().map(unquote).filter((m) => m.includes(`To: ${email}`)).at(-1);
  const token = /invite\?token=([A-Za-z0-9_-]{43})/.exec(mail ?? '')?.[1];
  if (token === undefined) throw new Error(`no invite mail to ${email} in the outbox`);
  secrets.push(token);
  return token;
}

const orgAuth = (orgId: string, role = 'owner') => ({ roleId: role, resourceType: 'organization', resourceId: orgId });

beforeAll(async () => {
  t = await startTestService({ publicUrl: 'https://fleet.example.com' });
  owner = await ownerMetadata(t);
  secrets.push(t.service.bootstrap.apiKey);
  w.orgId = t.service.bootstrap.orgId;
  w.siteId = (await appCall(t, 'createLocation', { orgId: w.orgId, name: 'Site' }, owner)).location!.id;
  w.floorId = (await appCall(t, 'createLocation', { orgId: w.orgId, name: 'Floor', parentLocationId: w.siteId }, owner)).location!.id;
  w.otherSiteId = (await appCall(t, 'createLocation', { orgId: w.orgId, name: 'Other site' }, owner)).location!.id;
  w.robotId = (await appCall(t, 'newRobot', { name: 'bot', locationId: w.siteId }, owner)).id;
  w.floorRobotId = (await appCall(t, 'newRobot', { name: 'floor-bot', locationId: w.floorId }, owner)).id;
  w.otherRobotId = (await appCall(t, 'newRobot', { name: 'other-bot', locationId: w.otherSiteId }, owner)).id;
  const foreign = await createKeyWithOrg(t, 'Foreign');
  secrets.push(foreign.secret);
  w.foreignOrgId = foreign.orgId;
  const foreignMetadata = bearer(await tokenFor(t, foreign.keyId, foreign.secret));
  w.foreignSiteId = (await appCall(t, 'createLocation', { orgId: w.foreignOrgId, name: 'Foreign site' }, foreignMetadata)).location!.id;
  const g = (resourceType: 'organization' | 'location' | 'robot', resourceId: string, role: 'owner' | 'operator') => [{ resourceType, resourceId, role, organizationId: w.orgId }];
  keys.orgOperator = await scopedKey(t, g('organization', w.orgId, 'operator'));
  keys.siteOwner = await scopedKey(t, g('location', w.siteId, 'owner'));
  keys.siteOperator = await scopedKey(t, g('location', w.siteId, 'operator'));
  keys.robotOwner = await scopedKey(t, g('robot', w.robotId, 'owner'));
  keys.robotOperator = await scopedKey(t, g('robot', w.robotId, 'operator'));
  keys.foreign = { keyId: foreign.keyId, metadata: foreignMetadata };
});
afterAll(async () => {
  // No secret of the suite in any log line (the outbox's own line carries its invite link: that is its point).
  for (const line of t.logs.filter((l) => !l.includes('written to'))) for (const s of secrets) expect(line).not.toContain(s);
  await t.stop();
});

describe('users and sign-in', () => {
  it('--add-user makes a user whose key acts as the user, and a second run gives the same user a new key', async () => {
    const ada = await user('Ada@Example.com', 'Ada Lovelace');
    expect((await appCall(t, 'listOrganizations', {}, ada.metadata)).organizations).toEqual([]);
    await appCall(t, 'addRole', { orgId: w.orgId, identityId: ada.userId, role: 'operator', resourceType: 'location', resourceId: w.siteId }, owner);
    // The role is the user's, so it holds through either of the user's keys.
    const again = await user('ada@example.com');
    expect(again.userId).toBe(ada.userId);
    for (const m of [ada.metadata, again.metadata]) expect((await appCall(t, 'getLocation', { locationId: w.siteId }, m)).location?.id).toBe(w.siteId);
    // A user's key is no identity of its own.
    await expectError(appCall(t, 'addRole', { orgId: w.orgId, identityId: ada.keyId, role: 'operator', resourceType: 'organization', resourceId: w.orgId }, owner), {
      code: status.NOT_FOUND,
      reason: 'IDENTITY_NOT_FOUND',
      field: 'identity_id',
    });
    expect(new UserStore(t.db(), new ApiKeyStore(t.db())).byId(ada.userId)?.lastLogin).not.toBeNull();
  });

  it('GetUserIDByEmail finds a user whatever the case, for an owner of any organization', async () => {
    const bob = await user('bob@example.com');
    expect(await appCall(t, 'getUserIdByEmail', { email: 'BOB@example.com' }, owner)).toEqual({ userId: bob.userId });
    expect(await appCall(t, 'getUserIdByEmail', { email: 'bob@example.com' }, keys.foreign.metadata)).toEqual({ userId: bob.userId });
    await expectError(appCall(t, 'getUserIdByEmail', { email: 'nobody@example.com' }, owner), { code: status.NOT_FOUND, reason: 'USER_NOT_FOUND' });
    for (const email of ['bob', 'a b@example.com', 'x@', '<a@b.c>', 'a@b']) await expectError(appCall(t, 'getUserIdByEmail', { email }, owner), { code: status.INVALID_ARGUMENT, reason: 'EMAIL_INVALID', field: 'email' });
    await expectError(appCall(t, 'getUserIdByEmail', { email: '' }, owner), { code: status.INVALID_ARGUMENT, reason: 'REQUIRED_FIELD_MISSING', field: 'email' });
    for (const k of [keys.orgOperator, keys.siteOwner, keys.robotOwner]) await expectError(appCall(t, 'getUserIdByEmail', { email: 'bob@example.com' }, k.metadata), { code: status.PERMISSION_DENIED, reason: 'PERMISSION_DENIED' });
  });
});

describe('invites', () => {
  it('an invite by mail: written to the outbox with its link, logged, accepted with its token (making the user and a key), then gone', async () => {
    const before = outbox().length;
    const { invite } = await appCall(t, 'createOrganizationInvite', { orgId: w.orgId, email: 'Carol@Example.com', authorizations: [{ roleId: 'operator', resourceType: 'location', resourceId: w.siteId }] }, owner);
    expect(invite).toMatchObject({ organizationId: w.orgId, email: 'carol@example.com', authorizations: [{ authorizationType: 'role', authorizationId: 'location_operator', resourceType: 'location', resourceId: w.siteId, identityId: '', identityType: 'user', organizationId: w.orgId, roleId: 'operator' }] });
    expect(outbox()).toHaveLength(before + 1);
    const token = lastToken('carol@example.com');
    expect(unquote(outbox().at(-1)!)).toContain(`https://fleet.example.com/invite?token=${token}`);
    expect(t.logs.some((l) => l.includes('carol@example.com') && l.includes(token) && l.includes('outbox'))).toBe(true);
    expect(JSON.stringify(invite)).not.toContain(token);

    const members = await appCall(t, 'listOrganizationMembers', { orgId: w.orgId }, keys.orgOperator.metadata);
    expect(members.invites.map((i) => i.email)).toContain('carol@example.com');

    const accepted = await call(t.app.acceptOrganizationInvite.bind(t.app), { token, name: 'Carol' });
    expect(accepted).toMatchObject({ orgId: w.orgId, authorizations: [{ resourceType: 'location', resourceId: w.siteId, roleId: 'operator', identityType: 'user', identityId: accepted.userId }] });
    const key = accepted.apiKey!;
    secrets.push(key.key);
    const carol = bearer(await tokenFor(t, key.id, key.key));
    expect((await appCall(t, 'getLocation', { locationId: w.siteId }, carol)).location?.id).toBe(w.siteId);
    await expectError(appCall(t, 'getLocation', { locationId: w.otherSiteId }, carol), { code: status.PERMISSION_DENIED, reason: 'PERMISSION_DENIED' });
    await expectError(call(t.app.acceptOrganizationInvite.bind(t.app), { token, name: '' }), { code: status.NOT_FOUND, reason: 'INVITE_NOT_FOUND', field: 'token' });
    const after = await appCall(t, 'listOrganizationMembers', { orgId: w.orgId }, owner);
    expect(after.invites.map((i) => i.email)).not.toContain('carol@example.com');
    expect(after.members.find((m) => m.userId === accepted.userId)).toMatchObject({ emails: ['carol@example.com'], name: 'Carol', authorizations: [{ authorizationId: 'location_operator', resourceId: w.siteId }] });
  });

  it('an invite accepted by an existing user grants to that user and returns no new key', async () => {
    const dan = await user('dan@example.com');
    await appCall(t, 'createOrganizationInvite', { orgId: w.orgId, email: 'dan@example.com', authorizations: [orgAuth(w.orgId, 'operator')] }, owner);
    const accepted = await call(t.app.acceptOrganizationInvite.bind(t.app), { token: lastToken('dan@example.com'), name: '' });
    expect(accepted.userId).toBe(dan.userId);
    expect(accepted.apiKey).toBeUndefined();
    expect((await appCall(t, 'getOrganization', { orgId: w.orgId }, dan.metadata)).organization?.id).toBe(w.orgId);
    await expectError(appCall(t, 'createOrganizationInvite', { orgId: w.orgId, email: 'DAN@example.com' }, owner), { code: status.ALREADY_EXISTS, reason: 'ALREADY_MEMBER', field: 'email' });
  });

  it('an invite without mail sends nothing and is granted at the user\'s next sign-in', async () => {
    const before = outbox().length;
    const erin = await user('erin@example.com');
    const { invite } = await appCall(t, 'createOrganizationInvite', { orgId: w.orgId, email: 'erin@example.com', sendEmailInvite: false, authorizations: [{ roleId: 'owner', resourceType: 'robot', resourceId: w.robotId }] }, owner);
    expect(invite?.email).toBe('erin@example.com');
    expect(outbox()).toHaveLength(before);
    // Not before the next sign-in.
    await expectError(appCall(t, 'getRobot', { robotId: w.robotId }, erin.metadata), { code: status.NOT_FOUND });
    const signedIn = bearer(await tokenFor(t, erin.keyId, erin.secret));
    expect((await appCall(t, 'getRobot', { robotId: w.robotId }, signedIn)).robot?.id).toBe(w.robotId);
    // What the user changes is recorded as the user's.
    const part = (await appCall(t, 'getRobotParts', { robotId: w.robotId }, signedIn)).parts[0]!;
    await appCall(t, 'updateRobotPart', { robotPartId: part.id, name: part.name, robotConfig: { components: [] } }, signedIn);
    const [entry] = (await appCall(t, 'getRobotPartHistory', { robotPartId: part.id }, signedIn)).history;
    expect(entry?.editedBy).toEqual({ identityType: 'user', identityId: erin.userId, displayName: 'erin' });
    expect((await appCall(t, 'listOrganizationMembers', { orgId: w.orgId }, owner)).invites.map((i) => i.email)).not.toContain('erin@example.com');
  });

  it('an empty authorization list invites as organization owner; the same email twice is INVITE_EXISTS', async () => {
    const { invite } = await appCall(t, 'createOrganizationInvite', { orgId: w.orgId, email: 'fay@example.com' }, owner);
    expect(invite?.authorizations).toEqual([expect.objectContaining({ authorizationId: 'organization_owner', resourceId: w.orgId })]);
    await expectError(appCall(t, 'createOrganizationInvite', { orgId: w.orgId, email: 'FAY@example.com' }, owner), { code: status.ALREADY_EXISTS, reason: 'INVITE_EXISTS', field: 'email' });
  });

  it('refuses malformed emails and authorizations, and resources outside the organization', async () => {
    const invite = (request: object) => appCall(t, 'createOrganizationInvite', { orgId: w.orgId, email: 'gus@example.com', ...request }, owner);
    await expectError(invite({ email: 'gus' }), { code: status.INVALID_ARGUMENT, reason: 'EMAIL_INVALID', field: 'email' });
    await expectError(invite({ authorizations: [{ ...orgAuth(w.orgId), roleId: 'admin' }] }), { code: status.INVALID_ARGUMENT, reason: 'ROLE_INVALID', field: 'authorizations[0].role_id' });
    await expectError(invite({ authorizations: [orgAuth(w.orgId), { ...orgAuth(w.orgId), resourceType: 'part' }] }), { code: status.INVALID_ARGUMENT, reason: 'RESOURCE_TYPE_INVALID', field: 'authorizations[1].resource_type' });
    await expectError(invite({ authorizations: [{ roleId: 'operator', resourceType: 'location', resourceId: w.foreignSiteId }] }), { code: status.NOT_FOUND, reason: 'RESOURCE_NOT_FOUND', field: 'authorizations[0].resource_id' });
    await expectError(invite({ authorizations: [{ roleId: 'operator', resourceType: 'robot', resourceId: w.siteId }] }), { code: status.NOT_FOUND, reason: 'RESOURCE_NOT_FOUND', field: 'authorizations[0].resource_id' });
    expect((await appCall(t, 'listOrganizationMembers', { orgId: w.orgId }, owner)).invites.map((i) => i.email)).not.toContain('gus@example.com');
  });

  it('updates add before they remove and keep one authorization; resend replaces the link; delete withdraws', async () => {
    const email = 'hal@example.com';
    await appCall(t, 'createOrganizationInvite', { orgId: w.orgId, email, authorizations: [orgAuth(w.orgId, 'operator')] }, owner);
    const first = lastToken(email);
    const site = { roleId: 'owner', resourceType: 'location', resourceId: w.siteId };
    // Replacing the only authorization in one call is fine: the add comes first.
    const { invite } = await appCall(t, 'updateOrganizationInviteAuthorizations', { orgId: w.orgId, email, addAuthorizations: [site], removeAuthorizations: [orgAuth(w.orgId, 'operator')] }, owner);
    expect(invite?.authorizations.map((a) => a.authorizationId)).toEqual(['location_owner']);
    await expectError(appCall(t, 'updateOrganizationInviteAuthorizations', { orgId: w.orgId, email, removeAuthorizations: [site] }, owner), { code: status.FAILED_PRECONDITION, reason: 'LAST_INVITE_AUTHORIZATION' });
    expect((await appCall(t, 'listOrganizationMembers', { orgId: w.orgId }, owner)).invites.find((i) => i.email === email)?.authorizations).toHaveLength(1);
    await expectError(appCall(t, 'updateOrganizationInviteAuthorizations', { orgId: w.orgId, email }, owner), { code: status.INVALID_ARGUMENT, reason: 'AUTHORIZATIONS_EMPTY', field: 'add_authorizations' });
    await expectError(appCall(t, 'updateOrganizationInviteAuthorizations', { orgId: w.orgId, email: 'nobody@example.com', addAuthorizations: [site] }, owner), { code: status.NOT_FOUND, reason: 'INVITE_NOT_FOUND', field: 'email' });
    await expectError(appCall(t, 'updateOrganizationInviteAuthorizations', { orgId: w.orgId, email, addAuthorizations: [{ ...site, resourceId: w.foreignSiteId }] }, owner), { code: status.NOT_FOUND, reason: 'RESOURCE_NOT_FOUND', field: 'add_authorizations[0].resource_id' });

    const resent = await appCall(t, 'resendOrganizationInvite', { orgId: w.orgId, email }, owner);
    expect(resent.invite?.email).toBe(email);
    const second = lastToken(email);
    expect(second).not.toBe(first);
    await expectError(call(t.app.acceptOrganizationInvite.bind(t.app), { token: first, name: '' }), { code: status.NOT_FOUND, reason: 'INVITE_NOT_FOUND' });
    await appCall(t, 'deleteOrganizationInvite', { orgId: w.orgId, email }, owner);
    await expectError(call(t.app.acceptOrganizationInvite.bind(t.app), { token: second, name: '' }), { code: status.NOT_FOUND, reason: 'INVITE_NOT_FOUND' });
    for (const method of ['deleteOrganizationInvite', 'resendOrganizationInvite'] as const) {
      await expectError(appCall(t, method, { orgId: w.orgId, email }, owner), { code: status.NOT_FOUND, reason: 'INVITE_NOT_FOUND', field: 'email' });
    }
    await expectError(call(t.app.acceptOrganizationInvite.bind(t.app), { token: '', name: '' }), { code: status.INVALID_ARGUMENT, reason: 'REQUIRED_FIELD_MISSING', field: 'token' });
  });
});

describe('members', () => {
  it('removing a member takes every role of theirs in the organization; not a member is MEMBER_NOT_FOUND; the last owner stays', async () => {
    const ivy = await user('ivy@example.com');
    await appCall(t, 'addRole', { orgId: w.orgId, identityId: ivy.userId, role: 'operator', resourceType: 'robot', resourceId: w.robotId }, owner);
    await appCall(t, 'addRole', { orgId: w.orgId, identityId: ivy.userId, role: 'owner', resourceType: 'location', resourceId: w.otherSiteId }, owner);
    await appCall(t, 'deleteOrganizationMember', { orgId: w.orgId, userId: ivy.userId }, owner);
    // Access ends at the next call.
    await expectError(appCall(t, 'getRobot', { robotId: w.robotId }, ivy.metadata), { code: status.NOT_FOUND });
    await expectError(appCall(t, 'deleteOrganizationMember', { orgId: w.orgId, userId: ivy.userId }, owner), { code: status.NOT_FOUND, reason: 'MEMBER_NOT_FOUND', field: 'user_id' });

    // An organization whose only owner is a user: that user cannot leave it.
    const jo = await user('jo@example.com');
    const solo = new OrgStore(t.db(), new Authorizations(t.db())).create('Solo', { type: 'user', id: jo.userId });
    await expectError(appCall(t, 'deleteOrganizationMember', { orgId: solo.id, userId: jo.userId }, jo.metadata), { code: status.FAILED_PRECONDITION, reason: 'LAST_OWNER' });
    expect((await appCall(t, 'getOrganization', { orgId: solo.id }, jo.metadata)).organization?.id).toBe(solo.id);
  });
});

describe('roles', () => {
  const role = (identityId: string, roleName: string, resourceType: string, resourceId: string) => ({ orgId: w.orgId, identityId, role: roleName, resourceType, resourceId });

  it('AddRole grants at once, RemoveRole takes away at the next call, and each refuses what is wrong with its reason', async () => {
    const k = await scopedKey(t, [{ resourceType: 'robot', resourceId: w.otherRobotId, role: 'operator', organizationId: w.orgId }]);
    await expectError(appCall(t, 'getLocation', { locationId: w.siteId }, k.metadata), { code: status.PERMISSION_DENIED });
    await appCall(t, 'addRole', role(k.keyId, 'operator', 'location', w.siteId), owner);
    expect((await appCall(t, 'getLocation', { locationId: w.siteId }, k.metadata)).location?.id).toBe(w.siteId);
    await expectError(appCall(t, 'addRole', role(k.keyId, 'operator', 'location', w.siteId), owner), { code: status.ALREADY_EXISTS, reason: 'AUTHORIZATION_EXISTS' });
    await expectError(appCall(t, 'addRole', role('00000000-0000-4000-8000-000000000000', 'operator', 'location', w.siteId), owner), { code: status.NOT_FOUND, reason: 'IDENTITY_NOT_FOUND', field: 'identity_id' });
    await expectError(appCall(t, 'addRole', role(k.keyId, 'operator', 'location', w.foreignSiteId), owner), { code: status.NOT_FOUND, reason: 'RESOURCE_NOT_FOUND', field: 'resource_id' });
    await expectError(appCall(t, 'addRole', role(k.keyId, 'operator', 'organization', w.foreignOrgId), owner), { code: status.NOT_FOUND, reason: 'RESOURCE_NOT_FOUND', field: 'resource_id' });
    await expectError(appCall(t, 'addRole', role(k.keyId, 'operator', 'location', w.robotId), owner), { code: status.NOT_FOUND, reason: 'RESOURCE_NOT_FOUND', field: 'resource_id' });
    await expectError(appCall(t, 'addRole', role(k.keyId, 'admin', 'location', w.siteId), owner), { code: status.INVALID_ARGUMENT, reason: 'ROLE_INVALID', field: 'role' });
    await expectError(appCall(t, 'addRole', role(k.keyId, 'owner', 'site', w.siteId), owner), { code: status.INVALID_ARGUMENT, reason: 'RESOURCE_TYPE_INVALID', field: 'resource_type' });
    await expectError(appCall(t, 'addRole', role('', 'owner', 'location', w.siteId), owner), { code: status.INVALID_ARGUMENT, reason: 'REQUIRED_FIELD_MISSING', field: 'identity_id' });

    await appCall(t, 'removeRole', role(k.keyId, 'operator', 'location', w.siteId), owner);
    await expectError(appCall(t, 'getLocation', { locationId: w.siteId }, k.metadata), { code: status.PERMISSION_DENIED });
    await expectError(appCall(t, 'removeRole', role(k.keyId, 'operator', 'location', w.siteId), owner), { code: status.NOT_FOUND, reason: 'AUTHORIZATION_NOT_FOUND' });
  });

  it('the last owner of an organization can be neither removed nor demoted; ChangeRole is both or neither', async () => {
    const solo = await createKeyWithOrg(t, 'Lone');
    secrets.push(solo.secret);
    const m = bearer(await tokenFor(t, solo.keyId, solo.secret));
    const own = { organizationId: solo.orgId, oldIdentityId: solo.keyId, oldRole: 'owner', oldResourceType: 'organization', oldResourceId: solo.orgId };
    await expectError(appCall(t, 'removeRole', { orgId: solo.orgId, identityId: solo.keyId, role: 'owner', resourceType: 'organization', resourceId: solo.orgId }, m), { code: status.FAILED_PRECONDITION, reason: 'LAST_OWNER' });
    await expectError(appCall(t, 'changeRole', { ...own, newIdentityId: solo.keyId, newRole: 'operator', newResourceType: 'organization', newResourceId: solo.orgId }, m), { code: status.FAILED_PRECONDITION, reason: 'LAST_OWNER' });
    // Still owner: the removal of the refused change was rolled back.
    expect((await appCall(t, 'listAuthorizations', { orgId: solo.orgId }, m)).authorizations.map((a) => `${a.identityId}:${a.authorizationId}`)).toEqual([`${solo.keyId}:organization_owner`]);

    // Handing ownership over to a user in one step works.
    const kim = await user('kim@example.com');
    await appCall(t, 'changeRole', { ...own, newIdentityId: kim.userId, newRole: 'owner', newResourceType: 'organization', newResourceId: solo.orgId }, m);
    await expectError(appCall(t, 'getOrganization', { orgId: solo.orgId }, m), { code: status.NOT_FOUND, reason: 'ORGANIZATION_NOT_FOUND' });
    const listed = await appCall(t, 'listAuthorizations', { orgId: solo.orgId }, kim.metadata);
    expect(listed.authorizations).toEqual([
      { authorizationType: 'role', authorizationId: 'organization_owner', resourceType: 'organization', resourceId: solo.orgId, identityId: kim.userId, organizationId: solo.orgId, identityType: 'user', roleId: 'owner' },
    ]);

    // A change whose new side is held already changes nothing.
    const k = await scopedKey(t, [
      { resourceType: 'robot', resourceId: w.robotId, role: 'operator', organizationId: w.orgId },
      { resourceType: 'robot', resourceId: w.otherRobotId, role: 'operator', organizationId: w.orgId },
    ]);
    const change = { organizationId: w.orgId, oldIdentityId: k.keyId, oldRole: 'operator', oldResourceType: 'robot', oldResourceId: w.robotId, newIdentityId: k.keyId, newRole: 'operator', newResourceType: 'robot', newResourceId: w.otherRobotId };
    await expectError(appCall(t, 'changeRole', change, owner), { code: status.ALREADY_EXISTS, reason: 'AUTHORIZATION_EXISTS', field: 'new_role' });
    expect((await appCall(t, 'getRobot', { robotId: w.robotId }, k.metadata)).robot?.id).toBe(w.robotId);
    await expectError(appCall(t, 'changeRole', { ...change, oldRole: 'owner' }, owner), { code: status.NOT_FOUND, reason: 'AUTHORIZATION_NOT_FOUND', field: 'old_role' });
    await expectError(appCall(t, 'changeRole', { ...change, newResourceId: w.foreignSiteId, newResourceType: 'location' }, owner), { code: status.NOT_FOUND, reason: 'RESOURCE_NOT_FOUND', field: 'new_resource_id' });
    await expectError(appCall(t, 'changeRole', { ...change, oldRole: 'boss' }, owner), { code: status.INVALID_ARGUMENT, reason: 'ROLE_INVALID', field: 'old_role' });
    await appCall(t, 'changeRole', { ...change, newRole: 'owner', newResourceId: w.robotId }, owner);
    expect((await appCall(t, 'checkPermissions', { permissions: [{ resourceType: 'robot', resourceId: w.robotId, permissions: ['write_robot'] }] }, k.metadata)).authorizedPermissions[0]?.permissions).toEqual(['write_robot']);
  });

  it('ListAuthorizations lists the organization\'s, on the given resources, in pages; an id outside it is RESOURCE_NOT_FOUND', async () => {
    const all = await appCall(t, 'listAuthorizations', { orgId: w.orgId }, owner);
    expect(all.authorizations.length).toBeGreaterThan(5);
    for (const a of all.authorizations) {
      expect(a.authorizationType).toBe('role');
      expect(a.authorizationId).toBe(`${a.resourceType}_${a.roleId}`);
      expect(['organization', 'location', 'robot']).toContain(a.resourceType);
      expect(['owner', 'operator']).toContain(a.roleId);
      expect(['', 'user']).toContain(a.identityType);
      expect(a.organizationId).toBe(w.orgId);
    }
    const onSite = await appCall(t, 'listAuthorizations', { orgId: w.orgId, resourceIds: [w.siteId] }, owner);
    expect(onSite.authorizations.map((a) => a.identityId)).toEqual(expect.arrayContaining([keys.siteOwner.keyId, keys.siteOperator.keyId]));
    expect(onSite.authorizations.every((a) => a.resourceId === w.siteId)).toBe(true);
    const seen: string[] = [];
    let pageToken = '';
    do {
      const page = await appCall(t, 'listAuthorizations', { orgId: w.orgId, pageSize: 2, pageToken }, owner);
      expect(page.authorizations.length).toBeLessThanOrEqual(2);
      seen.push(...page.authorizations.map((a) => `${a.identityId}:${a.authorizationId}:${a.resourceId}`));
      pageToken = page.nextPageToken;
    } while (pageToken !== '');
    expect(seen).toEqual(all.authorizations.map((a) => `${a.identityId}:${a.authorizationId}:${a.resourceId}`));
    await expectError(appCall(t, 'listAuthorizations', { orgId: w.orgId, resourceIds: [w.siteId, w.foreignSiteId] }, owner), { code: status.NOT_FOUND, reason: 'RESOURCE_NOT_FOUND', field: 'resource_ids[1]' });
  });
});

describe('CheckPermissions', () => {
  const ALL = ['read_organization', 'write_organization', 'read_location', 'write_location', 'read_robot', 'write_robot', 'read_robot_secret'];
  const ask = (m: Metadata, entries: [string, string][]) =>
    appCall(t, 'checkPermissions', { permissions: entries.map(([resourceType, resourceId]) => ({ resourceType, resourceId, permissions: ALL })) }, m).then((r) => r.authorizedPermissions.map((p) => p.permissions));

  it('answers each resource of a tree with what the caller holds there, in order, for every scope', async () => {
    const tree: [string, string][] = [['organization', w.orgId], ['location', w.siteId], ['location', w.floorId], ['robot', w.robotId], ['robot', w.floorRobotId], ['robot', w.otherRobotId], ['location', w.foreignSiteId], ['robot', '00000000-0000-4000-8000-000000000000']];
    const orgOwner = [['read_organization', 'write_organization'], ['read_location', 'write_location'], ['read_location', 'write_location'], ['read_robot', 'write_robot', 'read_robot_secret'], ['read_robot', 'write_robot', 'read_robot_secret'], ['read_robot', 'write_robot', 'read_robot_secret'], [], []];
    expect(await ask(owner, tree)).toEqual(orgOwner);
    expect(await ask(keys.orgOperator.metadata, tree)).toEqual([['read_organization'], ['read_location'], ['read_location'], ['read_robot'], ['read_robot'], ['read_robot'], [], []]);
    expect(await ask(keys.siteOwner.metadata, tree)).toEqual([[], ['read_location', 'write_location'], ['read_location', 'write_location'], ['read_robot', 'write_robot', 'read_robot_secret'], ['read_robot', 'write_robot', 'read_robot_secret'], [], [], []]);
    expect(await ask(keys.siteOperator.metadata, tree)).toEqual([[], ['read_location'], ['read_location'], ['read_robot'], ['read_robot'], [], [], []]);
    expect(await ask(keys.robotOwner.metadata, tree)).toEqual([[], [], [], ['read_robot', 'write_robot', 'read_robot_secret'], [], [], [], []]);
    expect(await ask(keys.robotOperator.metadata, tree)).toEqual([[], [], [], ['read_robot'], [], [], [], []]);
    expect(await ask(keys.foreign.metadata, tree)).toEqual([[], [], [], [], [], [], ['read_location', 'write_location'], []]);
  });

  it('answers a batch exactly as it answers each of its entries alone (the bulk path is the single one)', async () => {
    const resources = (): [string, string][] => [['organization', w.orgId], ['location', w.siteId], ['location', w.floorId], ['location', w.otherSiteId], ['robot', w.robotId], ['robot', w.floorRobotId], ['robot', w.otherRobotId], ['location', w.foreignSiteId], ['organization', w.foreignOrgId]];
    const callers = [owner, ...Object.values(keys).map((k) => k.metadata)];
    const names = ['read_organization', 'write_fragment', 'read_location', 'read_location_secret', 'read_robot', 'write_robot', 'create_maps'];
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: callers.length - 1 }),
        fc.array(fc.record({ at: fc.integer({ min: 0, max: 8 }), permissions: fc.subarray(names) }), { minLength: 1, maxLength: 12 }),
        async (who, picks) => {
          const entries = picks.map((p) => ({ resourceType: resources()[p.at]![0], resourceId: resources()[p.at]![1], permissions: p.permissions }));
          const batch = (await appCall(t, 'checkPermissions', { permissions: entries }, callers[who]!)).authorizedPermissions;
          const alone = await Promise.all(entries.map(async (e) => (await appCall(t, 'checkPermissions', { permissions: [e] }, callers[who]!)).authorizedPermissions[0]));
          expect(batch).toEqual(alone);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('refuses an empty list, an unknown permission and an unknown resource type', async () => {
    await expectError(appCall(t, 'checkPermissions', { permissions: [] }, owner), { code: status.INVALID_ARGUMENT, reason: 'PERMISSIONS_EMPTY', field: 'permissions' });
    await expectError(appCall(t, 'checkPermissions', { permissions: [{ resourceType: 'robot', resourceId: w.robotId, permissions: ['read_robot', 'fly'] }] }, owner), {
      code: status.INVALID_ARGUMENT,
      reason: 'PERMISSION_INVALID',
      field: 'permissions[0].permissions[1]',
    });
    await expectError(appCall(t, 'checkPermissions', { permissions: [{ resourceType: 'part', resourceId: w.robotId, permissions: ['read_robot'] }] }, owner), { code: status.INVALID_ARGUMENT, reason: 'RESOURCE_TYPE_INVALID', field: 'permissions[0].resource_type' });
  });
});

describe('permission rows', () => {
  type Who = keyof typeof keys | 'owner';
  const WHO: readonly Who[] = ['owner', 'orgOperator', 'siteOwner', 'siteOperator', 'robotOwner', 'robotOperator', 'foreign'];
  const metadataOf = (who: Who) => (who === 'owner' ? owner : keys[who].metadata);
  /** Each operation with a request on the bootstrap organization, and who may call it: owner only, or any operator of the organization itself. */
  const ROWS: { method: Parameters<typeof appCall>[1]; request: () => object; allowed: readonly Who[] }[] = [
    { method: 'listOrganizationMembers', request: () => ({ orgId: w.orgId }), allowed: ['owner', 'orgOperator'] },
    { method: 'createOrganizationInvite', request: () => ({ orgId: w.orgId, email: 'x@example.com', sendEmailInvite: false }), allowed: ['owner'] },
    { method: 'updateOrganizationInviteAuthorizations', request: () => ({ orgId: w.orgId, email: 'nobody@example.com', addAuthorizations: [orgAuth(w.orgId)] }), allowed: ['owner'] },
    { method: 'deleteOrganizationMember', request: () => ({ orgId: w.orgId, userId: 'no-such-user' }), allowed: ['owner'] },
    { method: 'deleteOrganizationInvite', request: () => ({ orgId: w.orgId, email: 'nobody@example.com' }), allowed: ['owner'] },
    { method: 'resendOrganizationInvite', request: () => ({ orgId: w.orgId, email: 'nobody@example.com' }), allowed: ['owner'] },
    { method: 'addRole', request: () => ({ orgId: w.orgId, identityId: 'no-such-identity', role: 'operator', resourceType: 'organization', resourceId: w.orgId }), allowed: ['owner'] },
    { method: 'removeRole', request: () => ({ orgId: w.orgId, identityId: 'no-such-identity', role: 'operator', resourceType: 'organization', resourceId: w.orgId }), allowed: ['owner'] },
    {
      method: 'changeRole',
      request: () => ({ organizationId: w.orgId, oldIdentityId: 'x', oldRole: 'operator', oldResourceType: 'organization', oldResourceId: w.orgId, newIdentityId: 'x', newRole: 'owner', newResourceType: 'organization', newResourceId: w.orgId }),
      allowed: ['owner'],
    },
    { method: 'listAuthorizations', request: () => ({ orgId: w.orgId }), allowed: ['owner'] },
  ];
  it.each(ROWS.map((r) => [r.method, r] as const))('%s: the right callers pass the role check, the others are PERMISSION_DENIED, another organization NOT_FOUND', async (_name, row) => {
    for (const who of WHO) {
      const outcome = await appCall(t, row.method as 'listAuthorizations', row.request() as never, metadataOf(who)).then(
        () => ({ code: status.OK, reason: '' }),
        (e: ServiceError) => ({ code: e.code, reason: String(e.metadata.get('fleet-error-reason')[0]) }),
      );
      if (row.allowed.includes(who)) expect([status.PERMISSION_DENIED, status.UNAUTHENTICATED], `${who} on ${row.method}`).not.toContain(outcome.code);
      else if (who === 'foreign') expect(outcome, `${who} on ${row.method}`).toEqual({ code: status.NOT_FOUND, reason: 'ORGANIZATION_NOT_FOUND' });
      else expect(outcome, `${who} on ${row.method}`).toEqual({ code: status.PERMISSION_DENIED, reason: 'PERMISSION_DENIED' });
    }
  });
});

describe('malformed AcceptOrganizationInvite', () => {
  it('never answers INTERNAL or UNKNOWN, and grants nothing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string(), fc.string({ unit: 'binary', maxLength: 300 }), fc.constant('x'.repeat(100_000)), fc.stringMatching(/^[A-Za-z0-9_-]{43}$/)), fc.string({ maxLength: 300 }), async (token, name) => {
        const error = await call(t.app.acceptOrganizationInvite.bind(t.app), { token, name }).then(
          () => undefined,
          (e: ServiceError) => e,
        );
        expect([status.INVALID_ARGUMENT, status.NOT_FOUND]).toContain(error?.code);
        // The token is a credential: an error never repeats it.
        if (token.length >= 8) expect(error?.details).not.toContain(token);
      }),
      { numRuns: 60 },
    );
  });
});

describe('invite mail through SMTP', () => {
  it('sends the invite through the --smtp server; a server that refuses leaves no invite and answers UNAVAILABLE', async () => {
    const received: string[] = [];
    const smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, _session, done) {
        let text = '';
        stream.on('data', (c: Buffer) => (text += c.toString('utf8')));
        stream.on('end', () => {
          received.push(text);
          done();
        });
      },
      onRcptTo(address, _session, done) {
        done(address.address.startsWith('refused') ? new Error('mailbox unavailable') : undefined);
      },
      logger: false,
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const port = (smtp.server.address() as AddressInfo).port;
    const mailed = await startTestService({ mail: { smtp: `smtp://127.0.0.1:${port}`, from: 'Fleet <fleet@example.com>' }, publicUrl: 'https://fleet.example.com' });
    try {
      const m = await ownerMetadata(mailed);
      const orgId = mailed.service.bootstrap.orgId;
      await appCall(mailed, 'createOrganizationInvite', { orgId, email: 'lee@example.com' }, m);
      expect(received).toHaveLength(1);
      expect(received[0]).toMatch(/To: lee@example.com/);
      const token = /invite\?token=([A-Za-z0-9_-]{43})/.exec(unquote(received[0]!))?.[1];
      expect(token).toBeDefined();
      expect(readdirSync(mailed.dataDir)).not.toContain('outbox');
      expect(mailed.logs.some((l) => l.includes(token!))).toBe(false);
      await expectError(appCall(mailed, 'createOrganizationInvite', { orgId, email: 'refused@example.com' }, m), { code: status.UNAVAILABLE, reason: 'MAIL_UNAVAILABLE' });
      expect((await appCall(mailed, 'listOrganizationMembers', { orgId }, m)).invites.map((i) => i.email)).toEqual(['lee@example.com']);
      expect((await call(mailed.app.acceptOrganizationInvite.bind(mailed.app), { token: token!, name: 'Lee' })).orgId).toBe(orgId);
    } finally {
      await mailed.stop();
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
    }
  });
});
