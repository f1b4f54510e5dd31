// The service works with the ecosystem's generic tools, without the .proto files: the standard gRPC
// health service answers, and server reflection describes every service well enough for `buf curl`
// (the same protocol grpcurl and GUI clients use) to list methods and make real calls.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { credentials, makeGenericClientConstructor, type ServiceError } from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/backend';
import { startTestService, type TestService } from './helpers';

const run = promisify(execFile);
const buf = join(repoRoot, 'node_modules', '.bin', 'buf');

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(async () => {
  await t.stop();
});

/** `buf curl` against the service over plaintext HTTP/2, resolving the schema by reflection. Async: the service runs in this process. */
async function bufCurl(...args: string[]): Promise<string> {
  const { stdout } = await run(buf, ['curl', '--protocol', 'grpc', '--http2-prior-knowledge', ...args], { timeout: 30_000 });
  return stdout;
}

describe('ecosystem', () => {
  it('lists every method of every service through reflection, with no token', async () => {
    const methods = (await bufCurl('--list-methods', `http://${t.service.address}`)).trim().split('\n');
    expect(methods).toEqual(expect.arrayContaining(['fleet.app.v1.AppService/ListMachineSummaries', 'fleet.auth.v1.AuthService/Authenticate', 'fleet.mltraining.v1.MLTrainingService/SubmitTrainingJob', 'grpc.health.v1.Health/Check']));
    // The 83 operations of the spec, GetModuleFileUpload, ListRegistryItemVersions, SetFragmentTag, DeleteFragmentTag and AcceptOrganizationInvite; the 6 of ML training, ListTrainingDatasets and ListModelVersions.
    expect(methods.filter((m) => m.startsWith('fleet.app.v1.AppService/'))).toHaveLength(88);
    expect(methods.filter((m) => m.startsWith('fleet.mltraining.v1.MLTrainingService/'))).toHaveLength(8);
  });

  it('answers the health check as SERVING, for the server and each service', async () => {
    expect(JSON.parse(await bufCurl('-d', '{}', `http://${t.service.address}/grpc.health.v1.Health/Check`))).toEqual({ status: 'SERVING' });
    expect(JSON.parse(await bufCurl('-d', '{"service":"fleet.app.v1.AppService"}', `http://${t.service.address}/grpc.health.v1.Health/Check`))).toEqual({ status: 'SERVING' });
    // And through the library's own client, as grpc_health_probe would.
    const Health = makeGenericClientConstructor(healthService, 'Health');
    const client = new Health(t.service.address, credentials.createInsecure()) as unknown as {
      check(request: { service: string }, callback: (e: ServiceError | null, r: unknown) => void): void;
      close(): void;
    };
    try {
      const response = await new Promise<unknown>((resolve, reject) => client.check({ service: '' }, (e, r) => (e ? reject(e) : resolve(r))));
      expect(response).toEqual({ status: 'SERVING' });
    } finally {
      client.close();
    }
  });

  it('makes real calls with JSON built from the reflected schema: sign in, then list organizations and summaries', async () => {
    const { apiKeyId, apiKey } = t.service.bootstrap;
    const signIn = JSON.parse(await bufCurl('-d', JSON.stringify({ entity: apiKeyId, credentials: { type: 'api-key', payload: apiKey } }), `http://${t.service.address}/fleet.auth.v1.AuthService/Authenticate`)) as { accessToken: string };
    expect(signIn.accessToken).toMatch(/^ey/);
    const auth = ['-H', `authorization: Bearer ${signIn.accessToken}`];
    const orgs = JSON.parse(await bufCurl(...auth, '-d', '{}', `http://${t.service.address}/fleet.app.v1.AppService/ListOrganizations`)) as { organizations: { id: string; createdOn: string }[] };
    expect(orgs.organizations[0]?.createdOn).toMatch(/^\d{4}-\d\d-\d\dT/);
    const summaries = JSON.parse(await bufCurl(...auth, '-d', JSON.stringify({ organizationId: orgs.organizations[0]!.id }), `http://${t.service.address}/fleet.app.v1.AppService/ListMachineSummaries`));
    expect(summaries).toEqual({});
  });
});
