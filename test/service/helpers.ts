// Shared by the service tests: a real service on a real socket, with a temp data dir, and the
// generated clients talking to it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, credentials, Metadata, status as grpcStatus, type CallOptions, type ClientReadableStream, type ServiceError, type status } from '@grpc/grpc-js';
import type Database from 'better-sqlite3';
import { expect } from 'vitest';
import { AppServiceClient, AppServiceService } from '../../proto/gen/fleet/app/v1/app';
import { AuthServiceClient } from '../../proto/gen/fleet/auth/v1/auth';
import { Authorizations } from '../../service/access/authorizations';
import { ApiKeyStore } from '../../service/access/keys';
import { openDatabase } from '../../service/db/open';
import { ERROR_FIELD_KEY, ERROR_REASON_KEY } from '../../service/errors';
import { OrgStore } from '../../service/orgs/store';
import type { ResourceType, Role } from '../../service/permissions/engine';
import * as orgsMessages from '../../proto/gen/fleet/app/v1/orgs';
import * as locationsMessages from '../../proto/gen/fleet/app/v1/locations';
import * as machinesMessages from '../../proto/gen/fleet/app/v1/machines';
import * as logsMessages from '../../proto/gen/fleet/app/v1/logs';
import * as registryMessages from '../../proto/gen/fleet/app/v1/registry';
import * as appsMessages from '../../proto/gen/fleet/app/v1/apps';
import * as fragmentsMessages from '../../proto/gen/fleet/app/v1/fragments';
import * as accessMessages from '../../proto/gen/fleet/app/v1/access';
import { DATABASE_FILE, startService, type RunningService, type ServiceOptions } from '../../service/server';

/** A fresh temp directory; removed by the returned function. */
export function tempDir(prefix = 'fleet-service-test-'): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** A service running in this process, its clients, and what tests need to poke at it. */
export interface TestService {
  readonly service: RunningService;
  readonly dataDir: string;
  readonly auth: AuthServiceClient;
  readonly app: AppServiceClient;
  /** The service's log lines so far. */
  readonly logs: string[];
  /** A second connection to the service's database, as another process would have. */
  db(): Database.Database;
  /** Stop the service, close the clients and the database, and remove the data dir. */
  stop(): Promise<void>;
}

/**
 * Start the service on 127.0.0.1:0 with a new temp data dir. Its liveness simulation is off unless
 * asked for: tests that check last_access drive the simulator themselves.
 */
export async function startTestService(options: Partial<ServiceOptions> = {}): Promise<TestService> {
  const dir = tempDir();
  const logs: string[] = [];
  const service = await startService({ listen: '127.0.0.1:0', dataDir: dir.path, log: (line) => logs.push(line), simulate: false, ...options });
  const auth = new AuthServiceClient(service.address, credentials.createInsecure());
  const app = new AppServiceClient(service.address, credentials.createInsecure());
  let db: Database.Database | undefined;
  return {
    service,
    dataDir: dir.path,
    auth,
    app,
    logs,
    db: () => (db ??= openDatabase(join(dir.path, DATABASE_FILE))),
    stop: async () => {
      auth.close();
      app.close();
      db?.close();
      await service.close();
      dir.remove();
    },
  };
}

type Callback<Res> = (error: ServiceError | null, response: Res) => void;

/**
 * Call a generated client's unary method (bound to its client) and await its answer. Typed by the
 * method's last overload, the one with call options, because that is the one TypeScript infers from.
 */
export function call<Req, Res>(
  method: (request: Req, metadata: Metadata, options: Partial<CallOptions>, callback: Callback<Res>) => unknown,
  request: Req,
  metadata: Metadata = new Metadata(),
): Promise<Res> {
  return new Promise((resolve, reject) => {
    method(request, metadata, {}, (error, response) => (error ? reject(error) : resolve(response)));
  });
}

/** Metadata carrying `authorization: Bearer <token>`. */
export function bearer(token: string): Metadata {
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  return metadata;
}

/** An access token for key `keyId`/`secret` from the service's Authenticate. */
export async function tokenFor(t: TestService, keyId: string, secret: string): Promise<string> {
  const response = await call(t.auth.authenticate.bind(t.auth), { entity: keyId, credentials: { type: 'api-key', payload: secret } });
  expect(response.accessToken).not.toBe('');
  return response.accessToken;
}

/** Metadata with a token of the bootstrap key. */
export async function ownerMetadata(t: TestService): Promise<Metadata> {
  return bearer(await tokenFor(t, t.service.bootstrap.apiKeyId, t.service.bootstrap.apiKey));
}

/** A new API key with an organization of its own, created straight in the database (no CreateKey yet). */
export async function createKeyWithOrg(t: TestService, orgName: string): Promise<{ keyId: string; secret: string; orgId: string }> {
  const keys = new ApiKeyStore(t.db());
  const key = keys.prepare('test');
  keys.insert(key);
  const org = new OrgStore(t.db(), new Authorizations(t.db())).create(orgName, { type: '', id: key.id });
  return { keyId: key.id, secret: key.secret, orgId: org.id };
}

/** What a failed call must look like. */
export interface ExpectedError {
  readonly code: status;
  readonly reason?: string;
  readonly field?: string;
  /** A substring or pattern of the status message. */
  readonly message?: string | RegExp;
}

/** Await a call that must fail, and check its status, message and error metadata. */
export async function expectError(promise: Promise<unknown>, expected: ExpectedError): Promise<ServiceError> {
  const error = await promise.then(
    (response: unknown) => {
      throw new Error(`expected the call to fail with status ${expected.code}, but it answered ${JSON.stringify(response)}`);
    },
    (e: unknown) => e as ServiceError,
  );
  expect({ code: error.code, details: error.details }).toMatchObject({ code: expected.code });
  if (expected.message !== undefined) expect(error.details).toMatch(expected.message);
  if (expected.reason !== undefined) expect(error.metadata.get(ERROR_REASON_KEY)).toEqual([expected.reason]);
  if (expected.field !== undefined) expect(error.metadata.get(ERROR_FIELD_KEY)).toEqual([expected.field]);
  return error;
}

/** The parts of a method definition that say how to call it. */
export interface MethodShape {
  readonly path: string;
  readonly requestStream: boolean;
  readonly responseStream: boolean;
}

const raw = (bytes: Buffer): Buffer => bytes;

/**
 * Call any method, whatever its streaming kind, with empty messages (a valid encoding of every
 * protobuf message), through an untyped client. Resolves when the call ends OK, rejects with its
 * status otherwise.
 */
export function callAnyKind(client: Client, method: MethodShape, metadata: Metadata = new Metadata()): Promise<void> {
  const empty = Buffer.alloc(0);
  return new Promise((resolve, reject) => {
    const done = (error: ServiceError | null) => (error ? reject(error) : resolve());
    if (!method.requestStream && !method.responseStream) {
      client.makeUnaryRequest(method.path, raw, raw, empty, metadata, done);
    } else if (method.requestStream && !method.responseStream) {
      client.makeClientStreamRequest(method.path, raw, raw, metadata, done).end();
    } else {
      const stream = method.requestStream
        ? client.makeBidiStreamRequest(method.path, raw, raw, metadata).end()
        : client.makeServerStreamRequest(method.path, raw, raw, empty, metadata);
      stream.on('data', () => undefined);
      stream.on('error', reject);
      stream.on('status', (s: { code: number }) => {
        if (s.code === 0) resolve();
      });
    }
  });
}

/** An untyped client for `address`, for {@link callAnyKind}. */
export function rawClient(address: string): Client {
  return new Client(address, credentials.createInsecure());
}

// ---- The fleet: typed calls with partial requests, scoped keys, and a small world to test against.

type Callback2<Res> = (error: ServiceError | null, response: Res) => void;
type LastOverload<F> = F extends (request: infer Req, metadata: Metadata, options: Partial<CallOptions>, callback: Callback2<infer Res>) => unknown ? [Req, Res] : never;
type UnaryNames = { [K in keyof AppServiceClient]: LastOverload<AppServiceClient[K]> extends never ? never : K }[keyof AppServiceClient];
export type RequestOfMethod<K extends UnaryNames> = LastOverload<AppServiceClient[K]>[0];
export type ResponseOfMethod<K extends UnaryNames> = LastOverload<AppServiceClient[K]>[1];

const generated = { ...orgsMessages, ...locationsMessages, ...machinesMessages, ...logsMessages, ...registryMessages, ...appsMessages, ...fragmentsMessages, ...accessMessages } as unknown as Record<string, { fromPartial(value: unknown): unknown }>;
// By lower-cased name too: the method getUserIdByEmail takes GetUserIDByEmailRequest.
const messages = { ...Object.fromEntries(Object.entries(generated).map(([k, v]) => [k.toLowerCase(), v])), ...generated };

/** A request with any field, at any depth, left out (`fromPartial` fills proto3 defaults at every level). */
export type DeepPartial<T> = T extends Date | Buffer | Uint8Array ? T : T extends readonly (infer U)[] ? DeepPartial<U>[] : T extends object ? { [P in keyof T]?: DeepPartial<T[P]> } : T;

/**
 * Call AppService method `method` with a partial request (the rest takes proto3 defaults, as
 * `fromPartial` fills them), with `metadata`.
 */
export function appCall<K extends UnaryNames>(t: TestService, method: K, request: DeepPartial<RequestOfMethod<K>>, metadata: Metadata): Promise<ResponseOfMethod<K>> {
  const name = `${method.charAt(0).toUpperCase()}${method.slice(1)}Request`;
  const message = messages[name] ?? messages[name.toLowerCase()];
  if (message === undefined) throw new Error(`no message ${name} in the generated code`);
  if ((AppServiceService as Record<string, { responseStream: boolean }>)[method]?.responseStream) {
    return streamAdmitted(openStream(t, method, message.fromPartial(request), metadata)) as Promise<ResponseOfMethod<K>>;
  }
  const bound = (t.app[method] as unknown as (...args: unknown[]) => unknown).bind(t.app) as Parameters<typeof call<unknown, ResponseOfMethod<K>>>[0];
  return call(bound, message.fromPartial(request), metadata);
}

/** Open AppService server-streaming method `method` (e.g. `tailRobotPartLogs`). */
export function openStream(t: TestService, method: string, request: unknown, metadata: Metadata): ClientReadableStream<unknown> {
  const fn = (t.app as unknown as Record<string, (request: unknown, metadata: Metadata) => ClientReadableStream<unknown>>)[method]!;
  return fn.call(t.app, request, metadata);
}

/**
 * How a stream's opening went, as a unary call would say it: rejects with the status the service
 * ended it with at once (refused before streaming), resolves with the messages of the first
 * `openMs` if it was let in (then cancels it).
 */
export function streamAdmitted(stream: ClientReadableStream<unknown>, openMs = 300): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const received: unknown[] = [];
    const timer = setTimeout(() => {
      resolve(received);
      stream.cancel();
    }, openMs);
    stream.on('data', (m: unknown) => received.push(m));
    stream.on('error', (e: ServiceError) => {
      clearTimeout(timer);
      if (e.code !== grpcStatus.CANCELLED) reject(e);
    });
    stream.on('end', () => {
      clearTimeout(timer);
      resolve(received);
    });
  });
}

/** An API key holding `grants`, created straight in the store (the API-key operations are not built yet), and its metadata. */
export async function scopedKey(
  t: TestService,
  grants: readonly { resourceType: ResourceType; resourceId: string; role: Role; organizationId: string }[],
): Promise<{ keyId: string; metadata: Metadata }> {
  const keys = new ApiKeyStore(t.db());
  const key = keys.prepare('scoped');
  keys.insert(key);
  const authorizations = new Authorizations(t.db());
  for (const g of grants) authorizations.grant({ type: '', id: key.id }, { organizationId: g.organizationId, resourceType: g.resourceType, resourceId: g.resourceId, role: g.role });
  return { keyId: key.id, metadata: bearer(await tokenFor(t, key.id, key.secret)) };
}

/** What an upload stream answered, or the status it ended with. */
export type UploadOutcome = registryMessages.UploadModuleFileResponse;

/**
 * UploadModuleFile: the first message names the file (and `writeOffset`), then `chunks` in order,
 * then a half-close. `messages` replaces the whole sequence (to send what a client must not).
 */
export function uploadFile(
  t: TestService,
  info: registryMessages.ModuleFileInfo,
  chunks: readonly Buffer[],
  metadata: Metadata,
  options: { writeOffset?: number; messages?: readonly registryMessages.UploadModuleFileRequest[] } = {},
): Promise<UploadOutcome> {
  return new Promise((resolve, reject) => {
    const stream = t.app.uploadModuleFile(metadata, (error, response) => (error ? reject(error) : resolve(response)));
    const sequence = options.messages ?? [
      { moduleFile: { $case: 'moduleFileInfo' as const, value: info }, writeOffset: options.writeOffset ?? 0 },
      ...chunks.map((c) => ({ moduleFile: { $case: 'file' as const, value: c }, writeOffset: 0 })),
    ];
    for (const message of sequence) stream.write(message);
    stream.end();
  });
}
