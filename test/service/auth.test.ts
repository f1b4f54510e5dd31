import { credentials, Metadata, status } from '@grpc/grpc-js';
import { AuthServiceClient } from '../../proto/gen/fleet/auth/v1/auth';
import { startService } from '../../service/server';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes, randomUUID } from 'node:crypto';
import { ApiKeyStore, HASH_SCHEME, LEGACY_SCHEME, scryptHash } from '../../service/access/keys';
import { TOKEN_ISSUER } from '../../service/auth/tokens';
import { bearer, call, createKeyWithOrg, expectError, ownerMetadata, startTestService, tokenFor, type TestService } from './helpers';

describe('AuthService/Authenticate', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(async () => {
    await t.stop();
  });
  const authenticate = (entity: string, credentials?: { type: string; payload: string }) =>
    call(t.auth.authenticate.bind(t.auth), { entity, credentials });

  it('exchanges a good key for a token that opens the other calls', async () => {
    const { apiKeyId, apiKey } = t.service.bootstrap;
    const { accessToken } = await authenticate(apiKeyId, { type: 'api-key', payload: apiKey });
    const { organizations } = await call(t.app.listOrganizations.bind(t.app), {}, bearer(accessToken));
    expect(organizations.map((o) => o.id)).toEqual([t.service.bootstrap.orgId]);
  });

  it('issues an HS256 JWT naming the key, the issuer, a lifetime of an hour and an id', async () => {
    const token = await tokenFor(t, t.service.bootstrap.apiKeyId, t.service.bootstrap.apiKey);
    const [header, payload] = token.split('.').slice(0, 2).map((part) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>);
    expect(header).toMatchObject({ alg: 'HS256' });
    expect(payload).toMatchObject({ sub: t.service.bootstrap.apiKeyId, iss: 'fleet-service', jti: expect.any(String) });
    expect(Number(payload?.['exp']) - Number(payload?.['iat'])).toBe(3600);
  });

  const unauthenticated = { code: status.UNAUTHENTICATED, reason: 'INVALID_API_KEY', message: 'the API key id or API key is wrong, or the key has been deleted' };

  it('refuses a wrong key', async () => {
    const wrong = new ApiKeyStore(t.db()).prepare('other').secret;
    await expectError(authenticate(t.service.bootstrap.apiKeyId, { type: 'api-key', payload: wrong }), unauthenticated);
  });

  it('refuses an unknown key id, and a key id that is no UUID, with the same answer', async () => {
    await expectError(authenticate('6f1c1b1e-0000-4000-8000-000000000000', { type: 'api-key', payload: t.service.bootstrap.apiKey }), unauthenticated);
    await expectError(authenticate('not-a-key-id', { type: 'api-key', payload: t.service.bootstrap.apiKey }), unauthenticated);
  });

  it('refuses a deleted key with the same answer, though its secret is right', async () => {
    const { keyId, secret } = await createKeyWithOrg(t, 'Doomed Robotics');
    await tokenFor(t, keyId, secret);
    expect(new ApiKeyStore(t.db()).delete(keyId)).toBe(true);
    await expectError(authenticate(keyId, { type: 'api-key', payload: secret }), unauthenticated);
  });

  it('answers INVALID_ARGUMENT, naming the field, for missing or unsupported parts of the request', async () => {
    const { apiKeyId, apiKey } = t.service.bootstrap;
    const invalid = (field: string, reason = 'REQUIRED_FIELD_MISSING') => ({ code: status.INVALID_ARGUMENT, reason, field });
    await expectError(authenticate('', { type: 'api-key', payload: apiKey }), invalid('entity'));
    await expectError(authenticate(apiKeyId), invalid('credentials'));
    await expectError(authenticate(apiKeyId, { type: '', payload: apiKey }), invalid('credentials.type'));
    await expectError(authenticate(apiKeyId, { type: 'password', payload: apiKey }), invalid('credentials.type', 'UNSUPPORTED_CREDENTIALS_TYPE'));
    await expectError(authenticate(apiKeyId, { type: 'api-key', payload: '' }), invalid('credentials.payload'));
  });

  it('stores the secret only as a salted hash, a different salt per key', async () => {
    const { keyId, secret } = await createKeyWithOrg(t, 'Hashed Robotics');
    const rows = t.db().prepare('SELECT * FROM api_keys WHERE id IN (?, ?)').all(keyId, t.service.bootstrap.apiKeyId) as Record<string, unknown>[];
    expect(rows).toHaveLength(2);
    const dump = JSON.stringify(rows.map((row) => Object.values(row).map((v) => (Buffer.isBuffer(v) ? v.toString('base64url') : v))));
    expect(dump).not.toContain(secret);
    expect(dump).not.toContain(t.service.bootstrap.apiKey);
    const [a, b] = rows as { salt: Buffer; hash: Buffer }[];
    expect(a?.salt.equals(b?.salt ?? Buffer.alloc(0))).toBe(false);
    expect(a?.hash.length).toBeGreaterThanOrEqual(32);
  });
});

describe('the access token guard', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(async () => {
    await t.stop();
  });
  const list = (metadata = new Metadata()) => call(t.app.listOrganizations.bind(t.app), {}, metadata);

  it('refuses a call without authorization metadata', async () => {
    await expectError(list(), { code: status.UNAUTHENTICATED, reason: 'ACCESS_TOKEN_MISSING', message: /missing authorization metadata/ });
  });

  it('refuses authorization metadata that is not a bearer token', async () => {
    const metadata = new Metadata();
    metadata.set('authorization', 'Basic dXNlcjpwYXNz');
    await expectError(list(metadata), { code: status.UNAUTHENTICATED, reason: 'ACCESS_TOKEN_MALFORMED', message: /must be "Bearer <access token>"/ });
  });

  it('refuses a garbage token', async () => {
    await expectError(list(bearer('not.a.jwt')), { code: status.UNAUTHENTICATED, reason: 'ACCESS_TOKEN_MALFORMED', message: /access token is malformed/ });
  });

  it('refuses a token signed with another secret', async () => {
    const iat = Math.floor(Date.now() / 1000);
    const forged = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(t.service.bootstrap.apiKeyId)
      .setIssuer(TOKEN_ISSUER)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 3600)
      .setJti('forged')
      .sign(new Uint8Array(32).fill(7));
    await expectError(list(bearer(forged)), { code: status.UNAUTHENTICATED, reason: 'ACCESS_TOKEN_INVALID', message: /signature is invalid/ });
  });

  it('refuses a token of a key deleted since it was issued', async () => {
    const { keyId, secret } = await createKeyWithOrg(t, 'Short-lived Robotics');
    const metadata = bearer(await tokenFor(t, keyId, secret));
    expect((await list(metadata)).organizations).toHaveLength(1);
    new ApiKeyStore(t.db()).delete(keyId);
    await expectError(list(metadata), { code: status.UNAUTHENTICATED, reason: 'API_KEY_DELETED', message: /has been deleted/ });
  });

  it('lets a good token in', async () => {
    await expect(list(await ownerMetadata(t))).resolves.toMatchObject({ organizations: [{ id: t.service.bootstrap.orgId }] });
  });
});

describe('token expiry', () => {
  it('refuses a token once its lifetime is over', async () => {
    const t = await startTestService({ tokenTtlSeconds: 1 });
    try {
      const metadata = await ownerMetadata(t);
      // exp is in whole seconds and checked against whole seconds: 2 s is past it whatever the rounding.
      await new Promise((resolve) => setTimeout(resolve, 2_100));
      await expectError(call(t.app.listOrganizations.bind(t.app), {}, metadata), {
        code: status.UNAUTHENTICATED,
        reason: 'ACCESS_TOKEN_EXPIRED',
        message: /access token expired/,
      });
    } finally {
      await t.stop();
    }
  });
});

describe('API key hashes', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(async () => {
    await t.stop();
  });
  const authenticate = (entity: string, payload: string) => call(t.auth.authenticate.bind(t.auth), { entity, credentials: { type: 'api-key', payload } });
  const row = (id: string) => t.db().prepare('SELECT hash_scheme, salt, hash FROM api_keys WHERE id = ?').get(id) as { hash_scheme: string; salt: Buffer; hash: Buffer };

  it('new keys are stored as a keyed HMAC-SHA-256, never the secret, with a salt of their own', async () => {
    const a = await createKeyWithOrg(t, 'Hash A');
    const b = await createKeyWithOrg(t, 'Hash B');
    for (const key of [a, b]) {
      const stored = row(key.keyId);
      expect(stored.hash_scheme).toBe(HASH_SCHEME);
      expect(stored.hash).toHaveLength(32);
      expect(stored.hash.toString('latin1')).not.toContain(key.secret);
    }
    expect(row(a.keyId).salt.equals(row(b.keyId).salt)).toBe(false);
    // Keyed: the row alone does not let anyone check a guess (plain SHA-256 of salt‖secret is not it).
    const { createHash } = await import('node:crypto');
    const unkeyed = createHash('sha256').update(row(a.keyId).salt).update(a.secret).digest();
    expect(unkeyed.equals(row(a.keyId).hash)).toBe(false);
    await tokenFor(t, a.keyId, a.secret);
  });

  it('a key stored with the old scrypt scheme still signs in, and is re-hashed at that sign-in', async () => {
    const id = randomUUID();
    const secret = randomBytes(32).toString('base64url');
    const salt = randomBytes(16);
    t.db()
      .prepare('INSERT INTO api_keys (id, name, hash_scheme, salt, hash, created_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(id, 'legacy', LEGACY_SCHEME, salt, await scryptHash(secret, salt), new Date().toISOString());
    // A wrong secret neither signs in nor migrates anything.
    await expectError(authenticate(id, `${secret}x`), { code: status.UNAUTHENTICATED, reason: 'INVALID_API_KEY' });
    expect(row(id).hash_scheme).toBe(LEGACY_SCHEME);

    await tokenFor(t, id, secret);
    expect(row(id).hash_scheme).toBe(HASH_SCHEME);
    expect(row(id).salt.equals(salt)).toBe(false);
    // …and keeps working, now through the new scheme.
    await tokenFor(t, id, secret);
    await expectError(authenticate(id, `${secret}x`), { code: status.UNAUTHENTICATED, reason: 'INVALID_API_KEY' });
  });

  it('the hash secret belongs to the data dir: another start on it signs the same keys in', async () => {
    const key = await createKeyWithOrg(t, 'Survivor');
    const secretRow = () => (t.db().prepare('SELECT secret FROM api_key_hash_secret').get() as { secret: Buffer }).secret;
    const before = secretRow();
    expect(before).toHaveLength(32);
    const again = await startService({ listen: '127.0.0.1:0', dataDir: t.dataDir, log: () => undefined });
    const client = new AuthServiceClient(again.address, credentials.createInsecure());
    try {
      const { accessToken } = await call(client.authenticate.bind(client), { entity: key.keyId, credentials: { type: 'api-key', payload: key.secret } });
      expect(accessToken).not.toBe('');
    } finally {
      client.close();
      await again.close();
    }
    expect(secretRow().equals(before)).toBe(true);
  });
});
