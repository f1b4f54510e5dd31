// API keys over a real socket (docs/PROTOCOL.md sections 4 and 11, "API keys and app content"):
// the secret returned once and stored only as its keyed hash, the default name, copies that carry
// rights and nothing more, a machine's keys, the last use recorded at most once a minute — and
// revocation at the next call: a token issued before DeleteKey or RotateKey, or before a role was
// removed, is refused by the very next call.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { status, type Metadata, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyStore } from '../../service/access/keys';
import { UserStore } from '../../service/access/users';
import { DATABASE_FILE } from '../../service/server';
import { appCall, bearer, call, createKeyWithOrg, expectError, ownerMetadata, startTestService, tokenFor, type TestService } from './helpers';

let t: TestService;
let owner: Metadata;
let orgId: string;
let locationId: string;
let robotId: string;
/** Every secret this file made or saw: none may appear in a log line or an error message. */
const secrets: string[] = [];
/** Every error message this file received. */
const messages: string[] = [];

beforeAll(async () => {
  t = await startTestService();
  owner = await ownerMetadata(t);
  secrets.push(t.service.bootstrap.apiKey);
  orgId = t.service.bootstrap.orgId;
  locationId = (await appCall(t, 'createLocation', { orgId, name: 'Keys Site' }, owner)).location!.id;
  robotId = (await appCall(t, 'newRobot', { name: 'keys-robot', locationId }, owner)).id;
});
afterAll(async () => {
  await t.stop();
});

/** A call that must fail; its message is kept for the no-secret check at the end. */
async function refused(promise: Promise<unknown>, expected: Parameters<typeof expectError>[1]): Promise<ServiceError> {
  const error = await expectError(promise, expected);
  messages.push(error.details);
  return error;
}

async function createKey(authorizations: { role: string; resourceType: string; resourceId: string }[], name = '', md = owner): Promise<{ id: string; key: string }> {
  const made = await appCall(t, 'createKey', { orgId, authorizations, name }, md);
  secrets.push(made.key);
  return made;
}

const listed = async (id: string) => (await appCall(t, 'listKeys', { orgId }, owner)).apiKeys.find((k) => k.apiKey!.id === id);

describe('CreateKey', () => {
  it('returns a secret that authenticates, stored only as its hash, named after its creation time by default', async () => {
    const before = Date.now();
    const made = await createKey([{ role: 'operator', resourceType: 'location', resourceId: locationId }]);
    expect(made.key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const md = bearer(await tokenFor(t, made.id, made.key));
    expect((await appCall(t, 'getLocation', { locationId }, md)).location!.id).toBe(locationId);
    const record = await listed(made.id);
    expect(record!.apiKey!.key).toBe('');
    expect(Date.parse(record!.apiKey!.name)).toBeGreaterThanOrEqual(before - 1);
    expect(record!.apiKey!.name).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(record!.apiKey!.createdOn!.getTime()).toBeGreaterThanOrEqual(before - 1);
    expect(record!.authorizations).toEqual([
      { authorizationType: 'role', authorizationId: 'location_operator', resourceType: 'location', resourceId: locationId, identityId: made.id, organizationId: orgId, identityType: '', roleId: 'operator' },
    ]);
    // The secret is nowhere in the database file (nor its WAL).
    t.db().pragma('wal_checkpoint(TRUNCATE)');
    expect(readFileSync(join(t.dataDir, DATABASE_FILE)).includes(Buffer.from(made.key))).toBe(false);
  });

  it('keeps a given name, and refuses an empty list, a bad role or resource type, and resources outside the organization', async () => {
    const made = await createKey([{ role: 'owner', resourceType: 'robot', resourceId: robotId }], '  CI deployer ');
    expect((await listed(made.id))!.apiKey!.name).toBe('CI deployer');
    await refused(appCall(t, 'createKey', { orgId, authorizations: [] }, owner), { code: status.INVALID_ARGUMENT, reason: 'AUTHORIZATIONS_EMPTY', field: 'authorizations' });
    await refused(appCall(t, 'createKey', { orgId, authorizations: [{ role: 'admin', resourceType: 'organization', resourceId: orgId }] }, owner), {
      code: status.INVALID_ARGUMENT,
      reason: 'ROLE_INVALID',
      field: 'authorizations[0].role',
    });
    await refused(appCall(t, 'createKey', { orgId, authorizations: [{ role: 'owner', resourceType: 'organization', resourceId: orgId }, { role: 'owner', resourceType: 'fleet', resourceId: orgId }] }, owner), {
      code: status.INVALID_ARGUMENT,
      reason: 'RESOURCE_TYPE_INVALID',
      field: 'authorizations[1].resource_type',
    });
    const other = await createKeyWithOrg(t, 'Keys Elsewhere');
    secrets.push(other.secret);
    const otherMd = bearer(await tokenFor(t, other.keyId, other.secret));
    const foreign = (await appCall(t, 'createLocation', { orgId: other.orgId, name: 'Foreign' }, otherMd)).location!.id;
    await refused(appCall(t, 'createKey', { orgId, authorizations: [{ role: 'owner', resourceType: 'location', resourceId: foreign }] }, owner), {
      code: status.NOT_FOUND,
      reason: 'RESOURCE_NOT_FOUND',
      field: 'authorizations[0].resource_id',
    });
    await refused(appCall(t, 'createKey', { orgId, authorizations: [{ role: 'owner', resourceType: 'organization', resourceId: other.orgId }] }, owner), {
      code: status.NOT_FOUND,
      reason: 'RESOURCE_NOT_FOUND',
    });
    // Once the location is shared with this organization, it is one of its resources.
    await appCall(t, 'shareLocation', { organizationId: orgId, locationId: foreign }, otherMd);
    const shared = await createKey([{ role: 'operator', resourceType: 'location', resourceId: foreign }]);
    expect((await appCall(t, 'getLocation', { locationId: foreign }, bearer(await tokenFor(t, shared.id, shared.key)))).location!.id).toBe(foreign);
    // An owner of the other organization cannot make keys in this one (it does not even see it).
    await refused(appCall(t, 'createKey', { orgId, authorizations: [{ role: 'owner', resourceType: 'organization', resourceId: orgId }] }, otherMd), { code: status.NOT_FOUND, reason: 'ORGANIZATION_NOT_FOUND' });
  });

  it('lets an organization operator grant nothing: CreateKey needs owner', async () => {
    const operator = await createKey([{ role: 'operator', resourceType: 'organization', resourceId: orgId }]);
    const md = bearer(await tokenFor(t, operator.id, operator.key));
    await refused(appCall(t, 'createKey', { orgId, authorizations: [{ role: 'operator', resourceType: 'robot', resourceId: robotId }] }, md), { code: status.PERMISSION_DENIED, reason: 'PERMISSION_DENIED' });
  });
});

describe('ListKeys', () => {
  it('pages through the live keys of the organization, oldest first, with their authorizations there only', async () => {
    for (let i = 0; i < 3; i++) await createKey([{ role: 'operator', resourceType: 'robot', resourceId: robotId }], `paged ${i}`);
    const all = (await appCall(t, 'listKeys', { orgId, pageSize: 1000 }, owner)).apiKeys.map((k) => k.apiKey!.id);
    const paged: string[] = [];
    let pageToken = '';
    do {
      const page = await appCall(t, 'listKeys', { orgId, pageSize: 2, pageToken }, owner);
      expect(page.apiKeys.length).toBeLessThanOrEqual(2);
      paged.push(...page.apiKeys.map((k) => k.apiKey!.id));
      pageToken = page.nextPageToken;
    } while (pageToken !== '');
    expect(paged).toEqual(all);
    expect(all).toContain(t.service.bootstrap.apiKeyId);
    const created = (await appCall(t, 'listKeys', { orgId, pageSize: 1000 }, owner)).apiKeys.map((k) => k.apiKey!.createdOn!.getTime());
    expect(created).toEqual([...created].sort((a, b) => a - b));
    await refused(appCall(t, 'listKeys', { orgId, pageToken: 'forged' }, owner), { code: status.INVALID_ARGUMENT, reason: 'PAGE_TOKEN_INVALID' });
  });
});

describe('managing a key', () => {
  it('renames a key, refusing a blank name and unknown keys', async () => {
    const made = await createKey([{ role: 'operator', resourceType: 'robot', resourceId: robotId }]);
    expect(await appCall(t, 'renameKey', { id: made.id, name: ' Tablet ' }, owner)).toEqual({ id: made.id, name: 'Tablet' });
    expect((await listed(made.id))!.apiKey!.name).toBe('Tablet');
    await refused(appCall(t, 'renameKey', { id: made.id, name: '  ' }, owner), { code: status.INVALID_ARGUMENT, reason: 'REQUIRED_FIELD_MISSING', field: 'name' });
    await refused(appCall(t, 'renameKey', { id: '00000000-0000-4000-8000-000000000000', name: 'x' }, owner), { code: status.NOT_FOUND, reason: 'API_KEY_NOT_FOUND', field: 'id' });
  });

  it('copies rights and nothing more into a new key', async () => {
    const source = await createKey(
      [
        { role: 'owner', resourceType: 'location', resourceId: locationId },
        { role: 'operator', resourceType: 'organization', resourceId: orgId },
      ],
      'Source key',
    );
    await tokenFor(t, source.id, source.key);
    const copy = await appCall(t, 'createKeyFromExistingKeyAuthorizations', { id: source.id }, owner);
    secrets.push(copy.key);
    expect(copy.id).not.toBe(source.id);
    expect(copy.key).not.toBe(source.key);
    const [a, b] = [await listed(source.id), await listed(copy.id)];
    expect(b!.authorizations.map(({ identityId: _, ...rest }) => rest)).toEqual(a!.authorizations.map(({ identityId: _, ...rest }) => rest));
    expect(b!.apiKey!.name).not.toBe('Source key');
    expect(a!.apiKey!.lastUsed).toBeDefined();
    expect(b!.apiKey!.lastUsed).toBeUndefined();
    const md = bearer(await tokenFor(t, copy.id, copy.key));
    expect((await appCall(t, 'getLocation', { locationId }, md)).location!.id).toBe(locationId);
  });

  it("lists a machine's keys: those with a role on the machine itself, never their secrets", async () => {
    const own = await createKey([{ role: 'operator', resourceType: 'robot', resourceId: robotId }], 'robot key');
    const keys = (await appCall(t, 'getRobotApiKeys', { robotId }, owner)).apiKeys;
    expect(keys.map((k) => k.apiKey!.id)).toContain(own.id);
    expect(keys.map((k) => k.apiKey!.id)).not.toContain(t.service.bootstrap.apiKeyId);
    expect(keys.every((k) => k.apiKey!.key === '' && k.authorizations.length > 0)).toBe(true);
  });

  it("needs owner on every organization the key is in; a key may delete itself whatever its roles", async () => {
    // A key in this organization and in another whose owner is someone else.
    const other = await createKeyWithOrg(t, 'Keys Partner');
    secrets.push(other.secret);
    const both = await createKey([{ role: 'operator', resourceType: 'organization', resourceId: orgId }]);
    t.db()
      .prepare(
        `INSERT INTO authorizations (authorization_type, authorization_id, resource_type, resource_id, identity_id, identity_type, organization_id, role_id, created_at)
         VALUES ('role', 'organization_operator', 'organization', ?, ?, '', ?, 'operator', ?)`,
      )
      .run(other.orgId, both.id, other.orgId, new Date().toISOString());
    for (const method of ['deleteKey', 'rotateKey', 'createKeyFromExistingKeyAuthorizations'] as const) {
      const error = await refused(appCall(t, method, { id: both.id }, owner), { code: status.PERMISSION_DENIED, reason: 'PERMISSION_DENIED' });
      expect(error.details).toMatch(/1 other organization/);
      expect(error.details).not.toContain(other.orgId);
    }
    await refused(appCall(t, 'renameKey', { id: both.id, name: 'x' }, owner), { code: status.PERMISSION_DENIED });
    // A key of an organization the caller does not see is as unknown as a missing one.
    const stranger = bearer(await tokenFor(t, other.keyId, other.secret));
    await refused(appCall(t, 'deleteKey', { id: t.service.bootstrap.apiKeyId }, stranger), { code: status.NOT_FOUND, reason: 'API_KEY_NOT_FOUND' });
    // The operator key deletes itself.
    const self = bearer(await tokenFor(t, both.id, both.key));
    await refused(appCall(t, 'rotateKey', { id: both.id }, self), { code: status.PERMISSION_DENIED });
    await appCall(t, 'deleteKey', { id: both.id }, self);
    expect(await listed(both.id)).toBeUndefined();
  });
});

describe("a user's key", () => {
  it('holds no roles of its own: not listed, not managed by an organization owner, but rotated, renamed and deleted by itself', async () => {
    const users = new UserStore(t.db(), new ApiKeyStore(t.db()));
    const user = users.create(`keys-user-${Date.now()}@example.com`, 'Key User');
    await appCall(t, 'addRole', { orgId, identityId: user.id, role: 'operator', resourceType: 'location', resourceId: locationId }, owner);
    const key = users.addKey(user.id, 'laptop');
    secrets.push(key.secret);
    const md = bearer(await tokenFor(t, key.id, key.secret));
    expect(await listed(key.id)).toBeUndefined();
    await refused(appCall(t, 'rotateKey', { id: key.id }, owner), { code: status.NOT_FOUND, reason: 'API_KEY_NOT_FOUND' });
    await refused(appCall(t, 'createKeyFromExistingKeyAuthorizations', { id: key.id }, md), { code: status.NOT_FOUND, reason: 'API_KEY_NOT_FOUND' });
    expect(await appCall(t, 'renameKey', { id: key.id, name: 'old laptop' }, md)).toEqual({ id: key.id, name: 'old laptop' });
    const rotated = await appCall(t, 'rotateKey', { id: key.id }, md);
    secrets.push(rotated.key);
    await refused(appCall(t, 'getLocation', { locationId }, md), { code: status.UNAUTHENTICATED, reason: 'API_KEY_ROTATED' });
    const fresh = bearer(await tokenFor(t, key.id, rotated.key));
    expect((await appCall(t, 'getLocation', { locationId }, fresh)).location!.id).toBe(locationId);
    await appCall(t, 'deleteKey', { id: key.id }, fresh);
    await refused(appCall(t, 'getLocation', { locationId }, fresh), { code: status.UNAUTHENTICATED, reason: 'API_KEY_DELETED' });
  });
});

describe('revocation at the next call', () => {
  it('DeleteKey: a token issued before is refused on the very next call, and the secret no longer signs in', async () => {
    const made = await createKey([{ role: 'owner', resourceType: 'location', resourceId: locationId }]);
    const md = bearer(await tokenFor(t, made.id, made.key));
    await appCall(t, 'getLocation', { locationId }, md);
    await appCall(t, 'deleteKey', { id: made.id }, owner);
    await refused(appCall(t, 'getLocation', { locationId }, md), { code: status.UNAUTHENTICATED, reason: 'API_KEY_DELETED', message: /deleted/ });
    await refused(call(t.auth.authenticate.bind(t.auth), { entity: made.id, credentials: { type: 'api-key', payload: made.key } }), { code: status.UNAUTHENTICATED, reason: 'INVALID_API_KEY' });
    await refused(appCall(t, 'deleteKey', { id: made.id }, owner), { code: status.NOT_FOUND, reason: 'API_KEY_NOT_FOUND' });
    // Its authorizations went with it.
    expect(t.db().prepare('SELECT count(*) FROM authorizations WHERE identity_id = ?').pluck().get(made.id)).toBe(0);
  });

  it('RotateKey: same id, a new secret; the old secret and the tokens issued before are refused on the very next call', async () => {
    const made = await createKey([{ role: 'owner', resourceType: 'location', resourceId: locationId }]);
    const md = bearer(await tokenFor(t, made.id, made.key));
    await appCall(t, 'getLocation', { locationId }, md);
    const rotated = await appCall(t, 'rotateKey', { id: made.id }, owner);
    secrets.push(rotated.key);
    expect(rotated.id).toBe(made.id);
    expect(rotated.key).not.toBe(made.key);
    await refused(appCall(t, 'getLocation', { locationId }, md), { code: status.UNAUTHENTICATED, reason: 'API_KEY_ROTATED', message: /rotated: authenticate with its new secret/ });
    await refused(call(t.auth.authenticate.bind(t.auth), { entity: made.id, credentials: { type: 'api-key', payload: made.key } }), { code: status.UNAUTHENTICATED, reason: 'INVALID_API_KEY' });
    const fresh = bearer(await tokenFor(t, made.id, rotated.key));
    expect((await appCall(t, 'getLocation', { locationId }, fresh)).location!.id).toBe(locationId);
    // Rotating again ends the tokens of the second secret too.
    secrets.push((await appCall(t, 'rotateKey', { id: made.id }, owner)).key);
    await refused(appCall(t, 'getLocation', { locationId }, fresh), { code: status.UNAUTHENTICATED, reason: 'API_KEY_ROTATED' });
  });

  it('a removed or changed role denies at the next call (the roles are read on every call)', async () => {
    const made = await createKey([
      { role: 'operator', resourceType: 'organization', resourceId: orgId },
      { role: 'owner', resourceType: 'location', resourceId: locationId },
    ]);
    const md = bearer(await tokenFor(t, made.id, made.key));
    await appCall(t, 'updateLocationMetadata', { locationId, metadata: { a: 1 } }, md);
    await appCall(t, 'removeRole', { orgId, identityId: made.id, role: 'owner', resourceType: 'location', resourceId: locationId }, owner);
    await refused(appCall(t, 'updateLocationMetadata', { locationId, metadata: { a: 2 } }, md), { code: status.PERMISSION_DENIED, reason: 'PERMISSION_DENIED', message: /needs owner on location/ });
    // ChangeRole too: the old role stops counting at the next call.
    await appCall(
      t,
      'changeRole',
      {
        organizationId: orgId,
        oldIdentityId: made.id,
        oldRole: 'operator',
        oldResourceType: 'organization',
        oldResourceId: orgId,
        newIdentityId: made.id,
        newRole: 'operator',
        newResourceType: 'robot',
        newResourceId: robotId,
      },
      owner,
    );
    await refused(appCall(t, 'getLocation', { locationId }, md), { code: status.PERMISSION_DENIED });
    await appCall(t, 'removeRole', { orgId, identityId: made.id, role: 'operator', resourceType: 'robot', resourceId: robotId }, owner);
    await refused(appCall(t, 'getLocation', { locationId }, md), { code: status.NOT_FOUND, reason: 'LOCATION_NOT_FOUND' });
  });
});

describe('last use', () => {
  const lastUsed = (id: string) => t.db().prepare('SELECT last_used_at FROM api_keys WHERE id = ?').pluck().get(id) as string | null;

  it('is absent until the key signs in, then recorded at most once a minute', async () => {
    const made = await createKey([{ role: 'operator', resourceType: 'location', resourceId: locationId }]);
    expect((await listed(made.id))!.apiKey!.lastUsed).toBeUndefined();
    const md = bearer(await tokenFor(t, made.id, made.key));
    const first = lastUsed(made.id);
    expect(first).not.toBeNull();
    for (let i = 0; i < 5; i++) await appCall(t, 'getLocation', { locationId }, md);
    expect(lastUsed(made.id)).toBe(first);
    expect((await listed(made.id))!.apiKey!.lastUsed!.toISOString()).toBe(first);
    // A minute later (as far as the record says), the next call records a new use.
    const earlier = new Date(Date.parse(first!) - 61_000).toISOString();
    t.db().prepare('UPDATE api_keys SET last_used_at = ?, created_at = ? WHERE id = ?').run(earlier, earlier, made.id);
    await appCall(t, 'getLocation', { locationId }, md);
    expect(Date.parse(lastUsed(made.id)!)).toBeGreaterThanOrEqual(Date.parse(first!));
  });
});

describe('no secret in a log line or an error message', () => {
  it('holds for everything this file did, including calls that quote a secret where an id belongs', async () => {
    const made = await createKey([{ role: 'owner', resourceType: 'location', resourceId: locationId }]);
    const secret = (await appCall(t, 'locationAuth', { locationId }, owner)).auth!.secrets[0]!.secret;
    secrets.push(secret);
    await refused(appCall(t, 'deleteLocationSecret', { locationId, secretId: secret }, owner), { code: status.NOT_FOUND, reason: 'SECRET_NOT_FOUND' });
    await refused(appCall(t, 'renameKey', { id: made.key, name: 'x' }, owner), { code: status.NOT_FOUND });
    await refused(call(t.auth.authenticate.bind(t.auth), { entity: made.id, credentials: { type: 'api-key', payload: `${made.key}x` } }), { code: status.UNAUTHENTICATED });
    expect(secrets.length).toBeGreaterThan(10);
    for (const s of secrets) {
      for (const line of t.logs) expect(line).not.toContain(s);
      for (const message of messages) expect(message).not.toContain(s);
    }
  });
});
