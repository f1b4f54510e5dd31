// Every method of every generated service is served: implemented ones answer, the others answer
// UNIMPLEMENTED once authenticated and UNAUTHENTICATED before. Reads the definitions from proto/gen
// itself, so a service or method that is generated but not registered fails here.
import { Metadata, status, type Client } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppServiceService } from '../../proto/gen/fleet/app/v1/app';
import { AuthServiceService } from '../../proto/gen/fleet/auth/v1/auth';
import { MLTrainingServiceService } from '../../proto/gen/fleet/mltraining/v1/ml_training';
import { appRules, trainingRules } from '../../service/server';
import { methodLabel } from '../../service/rpc';
import { callAnyKind, expectError, ownerMetadata, rawClient, startTestService, type MethodShape, type TestService } from './helpers';

const GENERATED: readonly Readonly<Record<string, MethodShape>>[] = [AuthServiceService, AppServiceService, MLTrainingServiceService];

const label = (service: string, name: string) => `${service}/${name.charAt(0).toUpperCase()}${name.slice(1)}`;
/**
 * Authenticate and AcceptOrganizationInvite (public: no row), and every AppService and
 * MLTrainingService method with a row in a permission table (a handler cannot be registered without one).
 */
const IMPLEMENTED = new Set([
  'AuthService/Authenticate',
  'AppService/AcceptOrganizationInvite',
  ...Object.keys(appRules).map((name) => methodLabel((AppServiceService as Record<string, MethodShape>)[name]?.path ?? label('AppService', name))),
  ...Object.keys(trainingRules).map((name) => label('MLTrainingService', name)),
]);
const methods = GENERATED.flatMap((definition) => Object.values(definition));
const unimplemented = methods.filter((m) => !IMPLEMENTED.has(methodLabel(m.path)));

describe('the generated services', () => {
  let t: TestService;
  let client: Client;
  let owner: Metadata;
  beforeAll(async () => {
    t = await startTestService();
    client = rawClient(t.service.address);
    owner = await ownerMetadata(t);
  });
  afterAll(async () => {
    client.close();
    await t.stop();
  });

  it('include every implemented method', () => {
    expect(methods.map((m) => methodLabel(m.path))).toEqual(expect.arrayContaining([...IMPLEMENTED]));
  });

  it('answer every implemented method with something other than UNIMPLEMENTED', async () => {
    for (const m of methods.filter((m) => IMPLEMENTED.has(methodLabel(m.path)))) {
      const outcome = await callAnyKind(client, m, owner).then(
        () => status.OK,
        (e: { code: status }) => e.code,
      );
      expect({ method: m.path, outcome }).not.toEqual({ method: m.path, outcome: status.UNIMPLEMENTED });
    }
  });

  it(`answer the ${unimplemented.length} other methods UNIMPLEMENTED when authenticated, UNAUTHENTICATED when not`, async () => {
    for (const m of unimplemented) {
      await expectError(callAnyKind(client, m, owner), {
        code: status.UNIMPLEMENTED,
        reason: 'NOT_IMPLEMENTED',
        message: `${methodLabel(m.path)} is not implemented by this service yet`,
      });
      await expectError(callAnyKind(client, m, new Metadata()), { code: status.UNAUTHENTICATED, reason: 'ACCESS_TOKEN_MISSING' });
    }
  });

  it('answer a method no service defines with grpc-js\'s own UNIMPLEMENTED', async () => {
    await expectError(callAnyKind(client, { path: '/fleet.app.v1.AppService/NoSuchMethod', requestStream: false, responseStream: false }, owner), {
      code: status.UNIMPLEMENTED,
    });
  });
});
