// The registration layer on its own, over a real socket, with a service definition of every
// streaming kind (the generated ones may not have them all yet).
import { Metadata, Server, ServerCredentials, status, type Client } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller, Guard } from '../../service/rpc';
import { FleetError, invalidArgument } from '../../service/errors';
import { addService, methodLabel, type CallContext } from '../../service/rpc';
import { callAnyKind, expectError, rawClient } from './helpers';

const raw = (bytes: Buffer): Buffer => bytes;
function method<Q extends boolean, S extends boolean>(name: string, requestStream: Q, responseStream: S) {
  return {
    path: `/fleet.test.v1.TestService/${name}`,
    requestStream,
    responseStream,
    requestSerialize: raw,
    requestDeserialize: raw,
    responseSerialize: raw,
    responseDeserialize: raw,
  } as const;
}
const TestService = {
  ping: method('Ping', false, false),
  whoAmI: method('WhoAmI', false, false),
  boom: method('Boom', false, false),
  reject: method('Reject', false, false),
  getThing: method('GetThing', false, false),
  watch: method('Watch', false, true),
  upload: method('Upload', true, false),
  chat: method('Chat', true, true),
} as const;

const caller: Caller = { keyId: 'key-1', identity: { type: '', id: 'key-1' } };
const guard: Guard = async (metadata) => {
  if (metadata.get('authorization')[0] !== 'Bearer good') throw new FleetError(status.UNAUTHENTICATED, 'ACCESS_TOKEN_MISSING', 'no good token');
  return caller;
};
const withToken = () => {
  const metadata = new Metadata();
  metadata.set('authorization', 'Bearer good');
  return metadata;
};

describe('addService', () => {
  const server = new Server();
  const logs: string[] = [];
  const seen: CallContext[] = [];
  let client: Client;
  beforeAll(async () => {
    addService(
      server,
      TestService,
      {
        public: { ping: async (request) => Buffer.concat([Buffer.from('pong:'), request]) },
        authenticated: {
          whoAmI: async (_request, context) => {
            seen.push(context);
            return Buffer.from(context.caller.keyId);
          },
          boom: async () => {
            throw new Error('database exploded at /secret/path');
          },
          reject: async () => {
            throw invalidArgument('thing.name', 'FIELD_TOO_LONG', 'thing.name is too long');
          },
        },
      },
      guard,
      (line) => logs.push(line),
    );
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
    );
    client = rawClient(`127.0.0.1:${port}`);
  });
  afterAll(() => {
    client.close();
    server.forceShutdown();
  });
  const unary = (path: string, request: Buffer, metadata = new Metadata()) =>
    new Promise<Buffer>((resolve, reject) => client.makeUnaryRequest(path, raw, raw, request, metadata, (e, r) => (e || r === undefined ? reject(e) : resolve(r))));

  it('runs a public handler without a token', async () => {
    expect((await unary(TestService.ping.path, Buffer.from('x'))).toString()).toBe('pong:x');
  });

  it('runs an authenticated handler only after the guard, handing it the caller', async () => {
    await expectError(unary(TestService.whoAmI.path, Buffer.alloc(0)), { code: status.UNAUTHENTICATED, reason: 'ACCESS_TOKEN_MISSING' });
    expect(seen).toHaveLength(0);
    expect((await unary(TestService.whoAmI.path, Buffer.alloc(0), withToken())).toString()).toBe('key-1');
    expect(seen).toEqual([{ method: 'TestService/WhoAmI', caller, grants: [], target: null }]);
  });

  it('sends a FleetError as its status, reason and field', async () => {
    await expectError(unary(TestService.reject.path, Buffer.alloc(0), withToken()), {
      code: status.INVALID_ARGUMENT,
      reason: 'FIELD_TOO_LONG',
      field: 'thing.name',
      message: 'thing.name is too long',
    });
  });

  it('turns an unexpected exception into INTERNAL with a generic message, and logs the details', async () => {
    const error = await expectError(unary(TestService.boom.path, Buffer.alloc(0), withToken()), { code: status.INTERNAL, reason: 'INTERNAL' });
    expect(error.details).not.toContain('exploded');
    expect(logs.join('\n')).toMatch(/TestService\/Boom failed unexpectedly: Error: database exploded/);
  });

  const unimplemented = [TestService.getThing, TestService.watch, TestService.upload, TestService.chat];

  it.each(unimplemented)('answers $path UNIMPLEMENTED, after authentication, in its own streaming kind', async (m) => {
    await expectError(callAnyKind(client, m, withToken()), {
      code: status.UNIMPLEMENTED,
      reason: 'NOT_IMPLEMENTED',
      message: `${methodLabel(m.path)} is not implemented by this service yet`,
    });
  });

  it.each(unimplemented)('answers $path UNAUTHENTICATED without a token', async (m) => {
    await expectError(callAnyKind(client, m), { code: status.UNAUTHENTICATED, reason: 'ACCESS_TOKEN_MISSING' });
  });

  it('refuses handlers for methods the definition lacks, or both public and authenticated', () => {
    const handler = async () => Buffer.alloc(0);
    expect(() => addService(new Server(), TestService, { authenticated: { nope: handler } as never }, guard, () => undefined)).toThrow(/"nope"/);
    expect(() => addService(new Server(), TestService, { public: { ping: handler }, authenticated: { ping: handler } }, guard, () => undefined)).toThrow(/both/);
  });
});

describe('methodLabel', () => {
  it('names a method as Service/Method', () => {
    expect(methodLabel('/fleet.app.v1.AppService/GetLocation')).toBe('AppService/GetLocation');
  });
});
