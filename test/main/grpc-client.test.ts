/**
 * The main process's gRPC client against the real service on a loopback port: it signs in, carries
 * the bearer token, signs in again once when the token has expired, gives up with `unauthenticated`
 * when the key itself is gone, and turns a service that never answers into `offline` at its deadline.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiKeyStore } from '../../service/auth/keys';
import { AppError } from '../../main/backend/errors';
import { FleetClient } from '../../main/grpc/client';
import { startTestService, type TestService } from '../service/helpers';

let service: TestService | undefined;
let client: FleetClient | undefined;
afterEach(async () => {
  client?.close();
  await service?.stop();
  service = undefined;
  client = undefined;
});

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
      expect(error.message).toContain(`127.0.0.1:${port}`);
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });

  it('reports nothing listening as offline', async () => {
    client = new FleetClient({ address: '127.0.0.1:1', tls: false, apiKeyId: 'id', apiKey: 'key' }, { deadlineMs: 2_000 });
    const error = await failure(client.call('list organizations', client.app.listOrganizations, {}));
    expect(error.kind).toBe('offline');
  });
});
