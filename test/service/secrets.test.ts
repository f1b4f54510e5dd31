// Location and part secrets over a real socket (docs/PROTOCOL.md section 11): a new location or
// part starts with one; create answers every secret with the new one last; delete by id, the last one
// included; a part's secrets changing leaves a history entry holding the secret ids (never values).
import { status, type Metadata } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appCall, expectError, ownerMetadata, scopedKey, startTestService, type TestService } from './helpers';

let t: TestService;
let owner: Metadata;
let orgId: string;

beforeAll(async () => {
  t = await startTestService();
  owner = await ownerMetadata(t);
  orgId = t.service.bootstrap.orgId;
});
afterAll(async () => {
  await t.stop();
});

const newLocation = async (name: string) => (await appCall(t, 'createLocation', { orgId, name }, owner)).location!.id;

describe('location secrets', () => {
  it('a new location has one secret; create adds one last; delete removes by id, the last one too', async () => {
    const locationId = await newLocation('Secret Site');
    const first = (await appCall(t, 'locationAuth', { locationId }, owner)).auth!;
    expect(first.locationId).toBe(locationId);
    expect(first.secrets).toHaveLength(1);
    expect(first.secrets[0]!.secret).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const created = (await appCall(t, 'createLocationSecret', { locationId }, owner)).auth!;
    expect(created.secrets.map((s) => s.id).slice(0, 1)).toEqual([first.secrets[0]!.id]);
    expect(created.secrets).toHaveLength(2);
    const added = created.secrets[1]!;
    expect(added.secret).not.toBe(first.secrets[0]!.secret);
    expect(added.createdOn!.getTime()).toBeGreaterThan(first.secrets[0]!.createdOn!.getTime() - 1);
    await appCall(t, 'deleteLocationSecret', { locationId, secretId: first.secrets[0]!.id }, owner);
    expect((await appCall(t, 'locationAuth', { locationId }, owner)).auth!.secrets.map((s) => s.id)).toEqual([added.id]);
    await appCall(t, 'deleteLocationSecret', { locationId, secretId: added.id }, owner);
    expect((await appCall(t, 'locationAuth', { locationId }, owner)).auth!.secrets).toEqual([]);
    // And a new one can be made again.
    expect((await appCall(t, 'createLocationSecret', { locationId }, owner)).auth!.secrets).toHaveLength(1);
  });

  it('refuses a missing location id (the default location is the client\'s), an unknown secret, and a secret of another location', async () => {
    const locationId = await newLocation('Secret Site 2');
    const other = await newLocation('Secret Site 3');
    const otherSecret = (await appCall(t, 'locationAuth', { locationId: other }, owner)).auth!.secrets[0]!.id;
    for (const method of ['locationAuth', 'createLocationSecret'] as const) {
      await expectError(appCall(t, method, { locationId: '' }, owner), { code: status.INVALID_ARGUMENT, reason: 'REQUIRED_FIELD_MISSING', field: 'location_id' });
      await expectError(appCall(t, method, { locationId: '00000000-0000-4000-8000-000000000000' }, owner), { code: status.NOT_FOUND, reason: 'LOCATION_NOT_FOUND' });
    }
    await expectError(appCall(t, 'deleteLocationSecret', { locationId: '', secretId: otherSecret }, owner), { code: status.INVALID_ARGUMENT, reason: 'REQUIRED_FIELD_MISSING', field: 'location_id' });
    await expectError(appCall(t, 'deleteLocationSecret', { locationId, secretId: '' }, owner), { code: status.INVALID_ARGUMENT, reason: 'REQUIRED_FIELD_MISSING', field: 'secret_id' });
    await expectError(appCall(t, 'deleteLocationSecret', { locationId, secretId: otherSecret }, owner), { code: status.NOT_FOUND, reason: 'SECRET_NOT_FOUND', field: 'secret_id' });
    expect((await appCall(t, 'locationAuth', { locationId: other }, owner)).auth!.secrets).toHaveLength(1);
  });

  it('needs owner on the location: an operator of it is refused', async () => {
    const locationId = await newLocation('Secret Site 4');
    const operator = await scopedKey(t, [{ resourceType: 'location', resourceId: locationId, role: 'operator', organizationId: orgId }]);
    await expectError(appCall(t, 'locationAuth', { locationId }, operator.metadata), { code: status.PERMISSION_DENIED, reason: 'PERMISSION_DENIED' });
  });
});

describe('part secrets', () => {
  it('create answers the part with the new secret last; delete removes by id, the last one too; each leaves a history entry of secret ids', async () => {
    const locationId = await newLocation('Part Secret Site');
    const robotId = (await appCall(t, 'newRobot', { name: 'secret-bot', locationId }, owner)).id;
    const part = (await appCall(t, 'getRobotParts', { robotId }, owner)).parts[0]!;
    expect(part.secrets).toHaveLength(1);
    const original = part.secrets[0]!;
    const after = (await appCall(t, 'createRobotPartSecret', { robotPartId: part.id }, owner)).part!;
    expect(after.secrets.map((s) => s.id)[0]).toBe(original.id);
    expect(after.secrets).toHaveLength(2);
    const added = after.secrets[1]!;
    await appCall(t, 'deleteRobotPartSecret', { robotPartId: part.id, secretId: original.id }, owner);
    await appCall(t, 'deleteRobotPartSecret', { robotPartId: part.id, secretId: added.id }, owner);
    expect((await appCall(t, 'getRobotPart', { robotPartId: part.id }, owner)).part!.secrets).toEqual([]);
    const history = (await appCall(t, 'getRobotPartHistory', { robotPartId: part.id }, owner)).history;
    // Newest first: before the second delete, before the first delete, before the create.
    expect(history.map((h) => h.old!.secrets.map((s) => s.id))).toEqual([[added.id], [original.id, added.id], [original.id]]);
    expect(history.flatMap((h) => h.old!.secrets.map((s) => s.secret))).toEqual(['', '', '', '']);
    expect(history[0]!.editedBy!.identityId).toBe(t.service.bootstrap.apiKeyId);
  });

  it('refuses an unknown part or secret, and needs owner on the machine', async () => {
    const locationId = await newLocation('Part Secret Site 2');
    const robotId = (await appCall(t, 'newRobot', { name: 'secret-bot-2', locationId }, owner)).id;
    const part = (await appCall(t, 'getRobotParts', { robotId }, owner)).parts[0]!;
    await expectError(appCall(t, 'createRobotPartSecret', { robotPartId: '00000000-0000-4000-8000-000000000000' }, owner), { code: status.NOT_FOUND, reason: 'ROBOT_PART_NOT_FOUND' });
    await expectError(appCall(t, 'deleteRobotPartSecret', { robotPartId: part.id, secretId: '00000000-0000-4000-8000-000000000000' }, owner), {
      code: status.NOT_FOUND,
      reason: 'SECRET_NOT_FOUND',
      field: 'secret_id',
    });
    await expectError(appCall(t, 'deleteRobotPartSecret', { robotPartId: part.id, secretId: '' }, owner), { code: status.INVALID_ARGUMENT, reason: 'REQUIRED_FIELD_MISSING', field: 'secret_id' });
    // A refused delete leaves no history entry.
    expect((await appCall(t, 'getRobotPartHistory', { robotPartId: part.id }, owner)).history).toEqual([]);
    const operator = await scopedKey(t, [{ resourceType: 'robot', resourceId: robotId, role: 'operator', organizationId: orgId }]);
    await expectError(appCall(t, 'createRobotPartSecret', { robotPartId: part.id }, operator.metadata), { code: status.PERMISSION_DENIED, reason: 'PERMISSION_DENIED' });
  });
});
