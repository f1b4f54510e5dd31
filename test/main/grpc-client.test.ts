/**
 * The main process's gRPC client against the real service on a loopback port: it signs in, carries
 * the bearer token, signs in again once when the token has expired, gives up with `unauthenticated`
 * when the key itself is gone, and turns a service that never answers into `offline` at its deadline.
 * How many times it signs in is counted against a tiny gRPC server of our own (the real service
 * cannot be made to refuse a fresh token, nor counted).
 */
import { Server as GrpcServer, ServerCredentials, status, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AppServiceService, type AppServiceServer } from '../../proto/gen/fleet/app/v1/app';
import type { ListOrganizationsRequest, ListOrganizationsResponse } from '../../proto/gen/fleet/app/v1/orgs';
import { AuthServiceService, type AuthenticateRequest, type AuthenticateResponse, type AuthServiceServer } from '../../proto/gen/fleet/auth/v1/auth';
import { ApiKeyStore } from '../../service/access/keys';
import { AppError } from '../../main/backend/errors';
import { FleetClient } from '../../main/grpc/client';
import { startTestService, type TestService } from '../service/helpers';

let service: TestService | undefined;
let client: FleetClient | undefined;
let fake: FakeService | undefined;
afterEach(async () => {
  client?.close();
  await service?.stop();
  await fake?.stop();
  service = undefined;
  client = undefined;
  fake = undefined;
});

/**
 * AuthService that always hands out a fresh token, and AppService.listOrganizations answering as
 * `listOrganizations` says; both count their calls and note the bearer tokens they were sent.
 */
interface FakeService {
  readonly address: string;
  readonly authenticateCalls: AuthenticateRequest[];
  /** The authorization header of every ListOrganizations call. */
  readonly listCalls: string[];
  stop(): Promise<void>;
}

async function startFakeService(listOrganizations: 'unauthenticated' | 'ok', options: { authDelayMs?: number; refuseKey?: boolean } = {}): Promise<FakeService> {
  const authenticateCalls: AuthenticateRequest[] = [];
  const listCalls: string[] = [];
  const auth: Pick<AuthServiceServer, 'authenticate'> = {
    authenticate(call: ServerUnaryCall<AuthenticateRequest, AuthenticateResponse>, callback: sendUnaryData<AuthenticateResponse>) {
      authenticateCalls.push(call.request);
      if (options.refuseKey) {
        callback({ code: status.UNAUTHENTICATED, details: 'API key was deleted' });
        return;
      }
      const token = `token-${authenticateCalls.length}`;
      setTimeout(() => callback(null, { accessToken: token }), options.authDelayMs ?? 0);
    },
  };
  const app: Pick<AppServiceServer, 'listOrganizations'> = {
    listOrganizations(call: ServerUnaryCall<ListOrganizationsRequest, ListOrganizationsResponse>, callback: sendUnaryData<ListOrganizationsResponse>) {
      listCalls.push(String(call.metadata.get('authorization')[0] ?? ''));
      if (listOrganizations === 'unauthenticated') callback({ code: status.UNAUTHENTICATED, details: 'the token is not accepted' });
      else callback(null, { organizations: [] });
    },
  };
  const server = new GrpcServer();
  server.addService(AuthServiceService, auth);
  server.addService(AppServiceService, app);
  const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
  return {
    address: `127.0.0.1:${port}`,
    authenticateCalls,
    listCalls,
    stop: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
}

function clientForFake(f: FakeService): FleetClient {
  return new FleetClient({ address: f.address, tls: false, apiKeyId: 'key-id', apiKey: 'key-secret' }, { deadlineMs: 3_000 });
}

function clientFor(t: TestService, apiKey = t.service.bootstrap.apiKey, deadlineMs?: number): FleetClient {
  return new FleetClient({ address: t.service.address, tls: false, apiKeyId: t.service.bootstrap.apiKeyId, apiKey }, { deadlineMs });
}

async function failure(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('FleetClient', () => {
  it('signs in and calls with the token', async () => {
    service = await startTestService();
    client = clientFor(service);
    const response = await client.call('list organizations', client.app.listOrganizations, {});
    expect(response.organizations.map((o) => o.id)).toEqual([service.service.bootstrap.orgId]);
  });

  it('signs in again, once, when the token expired', async () => {
    service = await startTestService({ tokenTtlSeconds: 1 });
    client = clientFor(service);
    await client.call('list organizations', client.app.listOrganizations, {});
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const response = await client.call('list organizations', client.app.listOrganizations, {});
    expect(response.organizations).toHaveLength(1);
  });

  it('reports a rejected key as unauthenticated, saying what to check', async () => {
    service = await startTestService();
    client = clientFor(service, 'wrong-key');
    const error = await failure(client.call('list organizations', client.app.listOrganizations, {}));
    expect(error.kind).toBe('unauthenticated');
    expect(error.message).toMatch(/Could not list organizations: the service rejected the API key/);
  });

  it('gives up after one fresh sign-in when the key was deleted meanwhile', async () => {
    service = await startTestService();
    client = clientFor(service);
    await client.call('list organizations', client.app.listOrganizations, {});
    new ApiKeyStore(service.db()).delete(service.service.bootstrap.apiKeyId);
    const error = await failure(client.call('list organizations', client.app.listOrganizations, {}));
    expect(error.kind).toBe('unauthenticated');
  });

  it('signs in again once when a call is refused, and reports (no loop) when the fresh token is refused too', async () => {
    fake = await startFakeService('unauthenticated');
    client = clientForFake(fake);
    const error = await failure(client.call('list organizations', client.app.listOrganizations, {}));
    expect(error.kind).toBe('unauthenticated');
    expect(error.message).toMatch(/^Could not list organizations: /);
    expect(fake.authenticateCalls).toHaveLength(2);
    expect(fake.authenticateCalls[0]).toEqual({ entity: 'key-id', credentials: { type: 'api-key', payload: 'key-secret' } });
    // The retry carried the fresh token, not the refused one.
    expect(fake.listCalls).toEqual(['Bearer token-1', 'Bearer token-2']);
  });

  it('a refused key is not offered again until a step allows it: many callers, one Authenticate per step', async () => {
    fake = await startFakeService('ok', { refuseKey: true });
    client = clientForFake(fake);
    expect((await failure(client.call('list organizations', client.app.listOrganizations, {}))).kind).toBe('unauthenticated');
    // Log tails, uploads and calls retrying on their own schedules meanwhile: answered at once, no sign-in.
    const errors = await Promise.all(Array.from({ length: 20 }, () => failure(client!.call('list organizations', client!.app.listOrganizations, {}))));
    expect(errors.every((e) => e.kind === 'unauthenticated')).toBe(true);
    expect(fake.authenticateCalls).toHaveLength(1);
    client.allowSignIn();
    await Promise.all(Array.from({ length: 5 }, () => failure(client!.call('list organizations', client!.app.listOrganizations, {}))));
    expect(fake.authenticateCalls).toHaveLength(2);
  });

  it('concurrent calls share one Authenticate', async () => {
    // A slow sign-in keeps the first one in flight while the other calls ask for a token.
    fake = await startFakeService('ok', { authDelayMs: 200 });
    client = clientForFake(fake);
    const c = client;
    await Promise.all([1, 2, 3].map(() => c.call('list organizations', c.app.listOrganizations, {})));
    expect(fake.authenticateCalls).toHaveLength(1);
    expect(fake.listCalls).toEqual(['Bearer token-1', 'Bearer token-1', 'Bearer token-1']);

    // And the token is kept: a later call signs in no more.
    await c.call('list organizations', c.app.listOrganizations, {});
    expect(fake.authenticateCalls).toHaveLength(1);
  });

  it('maps service errors to bridge kinds with the service message', async () => {
    service = await startTestService();
    client = clientFor(service);
    const notFound = await failure(client.call('read the organization', client.app.getOrganization, { orgId: 'no-such-org' }));
    expect(notFound.kind).toBe('not-found');
    const invalid = await failure(client.call('create the organization', client.app.createOrganization, { name: '' }));
    expect(invalid.kind).toBe('invalid');
    expect(invalid.message).toMatch(/^Could not create the organization: /);
  });

  it('turns a service that accepts connections but never answers into offline at the deadline', async () => {
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    client = new FleetClient({ address: `127.0.0.1:${port}`, tls: false, apiKeyId: 'id', apiKey: 'key' }, { deadlineMs: 500 });
    try {
      const error = await failure(client.call('list organizations', client.app.listOrganizations, {}));
      expect(error.kind).toBe('offline');
      expect(error.message).toBe(`Could not list organizations: can't reach the service at 127.0.0.1:${port}: it did not answer in time.`);
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });

  it('reports nothing listening as offline', async () => {
    client = new FleetClient({ address: '127.0.0.1:1', tls: false, apiKeyId: 'id', apiKey: 'key' }, { deadlineMs: 2_000 });
    const error = await failure(client.call('list organizations', client.app.listOrganizations, {}));
    expect(error.kind).toBe('offline');
    // The cause, in words, not gRPC's channel log.
    expect(error.message).toBe("Could not list organizations: can't reach the service at 127.0.0.1:1: nothing is listening at that address (connection refused).");
  });
});
