import { Metadata, status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, call, createKeyWithOrg, expectError, ownerMetadata, startTestService, tokenFor, type TestService } from './helpers';

describe('AppService organizations', () => {
  let t: TestService;
  let owner: Metadata;
  beforeAll(async () => {
    t = await startTestService();
    owner = await ownerMetadata(t);
  });
  afterAll(async () => {
    await t.stop();
  });
  const create = (name: string, metadata = owner) => call(t.app.createOrganization.bind(t.app), { name }, metadata);
  const list = (metadata = owner) => call(t.app.listOrganizations.bind(t.app), {}, metadata);
  const get = (orgId: string, metadata = owner) => call(t.app.getOrganization.bind(t.app), { orgId }, metadata);

  it('creates an organization with a trimmed name, and the creator can read it back', async () => {
    const before = Date.now();
    const { organization } = await create('  Zephyr Field Robotics \t');
    expect(organization).toMatchObject({ name: 'Zephyr Field Robotics', publicNamespace: '', region: '', cid: '', defaultFragments: [] });
    expect(organization?.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(organization?.createdOn?.getTime()).toBeGreaterThanOrEqual(before - 1000);
    await expect(get(organization?.id ?? '')).resolves.toEqual({ organization });
  });

  it('makes the creating key the organization owner, in the authorizations table', async () => {
    const { organization } = await create('Owned Robotics');
    const rows = t.db().prepare('SELECT * FROM authorizations WHERE organization_id = ?').all(organization?.id);
    expect(rows).toEqual([
      expect.objectContaining({
        authorization_type: 'role',
        authorization_id: 'organization_owner',
        resource_type: 'organization',
        resource_id: organization?.id,
        identity_id: t.service.bootstrap.apiKeyId,
        identity_type: '',
        role_id: 'owner',
      }),
    ]);
  });

  it('lists only the caller\'s organizations, by name', async () => {
    await create('alpha Drones');
    await create('Beta Rovers');
    const names = (await list()).organizations.map((o) => o.name);
    const folded = names.map((n) => n.toLowerCase());
    expect(folded).toEqual([...folded].sort());
    expect(names).toEqual(expect.arrayContaining(['alpha Drones', 'Beta Rovers', 'Local Fleet']));
    expect(names.indexOf('alpha Drones')).toBeLessThan(names.indexOf('Beta Rovers'));
  });

  it('hides organizations of other keys: not listed, and NOT_FOUND like an unknown id', async () => {
    const other = await createKeyWithOrg(t, 'Other Company Robotics');
    const otherMetadata = bearer(await tokenFor(t, other.keyId, other.secret));
    const { organization: mine } = await create('Private Robotics');

    expect((await list(otherMetadata)).organizations.map((o) => o.id)).toEqual([other.orgId]);
    expect((await list()).organizations.map((o) => o.id)).not.toContain(other.orgId);

    const notFound = { code: status.NOT_FOUND, reason: 'ORGANIZATION_NOT_FOUND' };
    const hidden = await expectError(get(mine?.id ?? '', otherMetadata), notFound);
    const unknown = await expectError(get('00000000-0000-4000-8000-000000000000', otherMetadata), notFound);
    // Same wording apart from the id itself, so existence does not leak.
    expect(hidden.details.replace(mine?.id ?? '', 'ID')).toBe(unknown.details.replace('00000000-0000-4000-8000-000000000000', 'ID'));
    await expectError(get(other.orgId), notFound);
  });

  it('refuses an empty or blank name with INVALID_ARGUMENT naming the field', async () => {
    await expectError(create(''), { code: status.INVALID_ARGUMENT, field: 'name', reason: 'REQUIRED_FIELD_MISSING', message: /name is required/ });
    await expectError(create('   '), { code: status.INVALID_ARGUMENT, field: 'name', reason: 'REQUIRED_FIELD_MISSING' });
  });

  it('accepts 200 characters of name and refuses 201', async () => {
    await expect(create('ü'.repeat(200))).resolves.toMatchObject({ organization: { name: 'ü'.repeat(200) } });
    await expectError(create('r'.repeat(201)), { code: status.INVALID_ARGUMENT, field: 'name', reason: 'FIELD_TOO_LONG', message: /at most 200 characters/ });
  });

  it('refuses control characters in a name', async () => {
    await expectError(create('Line\nBreak Robotics'), { code: status.INVALID_ARGUMENT, field: 'name', reason: 'FIELD_INVALID' });
  });

  it('refuses GetOrganization without org_id, or with one longer than any id', async () => {
    await expectError(get(''), { code: status.INVALID_ARGUMENT, field: 'org_id', reason: 'REQUIRED_FIELD_MISSING' });
    await expectError(get('x'.repeat(201)), { code: status.INVALID_ARGUMENT, field: 'org_id', reason: 'FIELD_TOO_LONG' });
    await expectError(get('x'.repeat(200)), { code: status.NOT_FOUND, reason: 'ORGANIZATION_NOT_FOUND' });
  });

  it('requires a token for every organization call', async () => {
    const anonymous = new Metadata();
    for (const attempt of [create('Sneaky Robotics', anonymous), list(anonymous), get(t.service.bootstrap.orgId, anonymous)]) {
      await expectError(attempt, { code: status.UNAUTHENTICATED, reason: 'ACCESS_TOKEN_MISSING' });
    }
    expect((await list()).organizations.map((o) => o.name)).not.toContain('Sneaky Robotics');
  });
});
