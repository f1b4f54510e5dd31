// Malformed requests to every operation of the fleet, generated with fast-check: empty, unknown and
// over-long ids, huge and odd strings, out-of-range numbers, huge lists, deeply nested or huge
// Structs, and bytes that are no message at all. Whatever comes in, the answer is a status the caller
// can act on — never INTERNAL or UNKNOWN — and the service keeps serving.
import type { Metadata} from '@grpc/grpc-js';
import { Client, credentials, status, type ServiceError } from '@grpc/grpc-js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as locationsMessages from '../../proto/gen/fleet/app/v1/locations';
import * as machinesMessages from '../../proto/gen/fleet/app/v1/machines';
import * as orgsMessages from '../../proto/gen/fleet/app/v1/orgs';
import * as logsMessages from '../../proto/gen/fleet/app/v1/logs';
import * as registryMessages from '../../proto/gen/fleet/app/v1/registry';
import * as appsMessages from '../../proto/gen/fleet/app/v1/apps';
import * as fragmentsMessages from '../../proto/gen/fleet/app/v1/fragments';
import * as accessMessages from '../../proto/gen/fleet/app/v1/access';
import * as trainingMessages from '../../proto/gen/fleet/mltraining/v1/ml_training';
import { MLTrainingServiceClient, MLTrainingServiceService } from '../../proto/gen/fleet/mltraining/v1/ml_training';
import { AppServiceService } from '../../proto/gen/fleet/app/v1/app';
import { appRules, trainingRules } from '../../service/server';
import { TrainingStore } from '../../service/training/store';
import { appCall, call, ownerMetadata, startTestService, uploadFile, type TestService } from './helpers';

const generated = { ...orgsMessages, ...locationsMessages, ...machinesMessages, ...logsMessages, ...registryMessages, ...appsMessages, ...fragmentsMessages, ...trainingMessages, ...accessMessages } as unknown as Record<
  string,
  { fromPartial(v: unknown): Record<string, unknown> }
>;
// By lower-cased name too: the method getUserIdByEmail takes GetUserIDByEmailRequest.
const messages: typeof generated = { ...Object.fromEntries(Object.entries(generated).map(([k, v]) => [k.toLowerCase(), v])), ...generated };
const isTraining = (method: string) => method in trainingRules;
const definitionOf = (method: string) => (isTraining(method) ? MLTrainingServiceService : AppServiceService) as Record<string, { path: string; requestStream: boolean }>;

const anyString = fc.oneof(
  fc.constant(''),
  fc.constant('00000000-0000-4000-8000-000000000000'),
  fc.uuid(),
  fc.string({ minLength: 201, maxLength: 400 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constant('x'.repeat(200_000)),
  fc.constant(' \t\n '),
  fc.constant('a\u0000b'),
  // SQLite's length() stops at a NUL: a leading one makes a stored text look empty.
  fc.constant('\u0000abc'),
);
const anyNumber = fc.oneof(fc.constant(0), fc.constant(-1), fc.constant(-2_147_483_648), fc.constant(2_147_483_647), fc.integer({ min: -1000, max: 5000 }));
const anyList = fc.oneof(fc.array(anyString, { maxLength: 5 }), fc.constant(Array.from({ length: 5000 }, (_, i) => `id-${i}`)));

function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true };
  for (let i = 1; i < levels; i++) value = { n: value };
  return value;
}
const anyStruct = fc.oneof(
  fc.constant(undefined),
  fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 4 }), { maxKeys: 8 }),
  fc.integer({ min: 1, max: 45 }).map(nested),
  fc.constant({ huge: 'y'.repeat(100_000) }),
  fc.constant(Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i]))),
);

/** JSON texts a config editor might send: objects (with fragments, mods), and what is no object. */
const anyJsonText = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 3 })).map((o) => JSON.stringify(o)),
  fc.constantFrom('{"fragments": ["x", {"id": 1}]}', '{"fragments": [{"id": "00000000-0000-4000-8000-000000000000", "version": "stable"}]}', '{"fragment_mods": [{"fragment_id": "x", "mods": [{"$set": {"a.b": 1}}]}]}', '{', '[]', 'null'),
  fc.integer({ min: 90, max: 5000 }).map((n) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`),
);

/** A training job of the target organization, so that random requests hit a real one too. */
const JOB_ID = '11111111-1111-4111-8111-111111111111';
/** Real resources of the target organization, filled before the properties run: fragments (one nesting the other), a machine and its main part. */
const real = { fragments: [] as string[], robotId: '', partId: '', locationId: '', orgId: '', keyIds: [] as string[], secretIds: [] as string[] };

const fileInfo = fc.record({ moduleId: fc.oneof(anyString, fc.constant('target-co:x')), version: fc.oneof(anyString, fc.constant('1.0.0')), platform: fc.oneof(anyString, fc.constant('linux/any')) });

/** An arbitrary for each field of a request, from its proto3 default (and the few fields whose default says nothing). */
function fieldArbitrary(name: string, defaultValue: unknown): fc.Arbitrary<unknown> {
  if (name === 'metadata' || name === 'robotConfig' || name === 'config') return anyStruct;
  if (name === 'robotConfigJson') return fc.option(fc.oneof(anyString, anyJsonText), { nil: undefined });
  if (name === 'lastKnownUpdate') return fc.option(fc.date({ min: new Date(0), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }), { nil: undefined });
  if (name === 'defaultFragments') return fc.option(fc.record({ fragments: fc.array(fc.record({ fragmentId: anyString, version: fc.option(anyString, { nil: undefined }) }), { maxLength: 3 }) }), { nil: undefined });
  if (name === 'numLogEntries') return fc.option(anyNumber, { nil: undefined });
  if (name === 'errorsOnly') return fc.option(fc.boolean(), { nil: undefined });
  if (name === 'start' || name === 'end' || name === 'modifiedSince') return fc.option(fc.date({ min: new Date(0), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }), { nil: undefined });
  if (name === 'types' || name === 'visibilities' || name === 'statuses') return fc.array(anyNumber, { maxLength: 5 });
  // Optional enums and booleans (presence): absent or any value of their type.
  if (name === 'visibility') return typeof defaultValue === 'number' ? anyNumber : fc.option(anyNumber, { nil: undefined });
  if (name === 'public' || name === 'showPublic') return fc.option(fc.boolean(), { nil: undefined });
  if (name === 'registryItemId') return fc.oneof(anyString, fc.constant('target-co:trainer'), fc.constant('target-co:x'));
  if (name === 'id') return fc.oneof(anyString, fc.constant(JOB_ID), ...[...real.fragments, ...real.keyIds].map((f) => fc.constant(f)));
  if (name === 'locationId') return fc.oneof(anyString, fc.constant(real.locationId));
  if (name === 'secretId') return fc.oneof(anyString, ...real.secretIds.map((s) => fc.constant(s)));
  if (name === 'authorizations') {
    const pick = (values: string[]) => fc.oneof(anyString, fc.constantFrom(...values));
    return fc.array(fc.record({ role: pick(['owner', 'operator']), resourceType: pick(['organization', 'location', 'robot']), resourceId: pick([real.orgId, real.locationId, real.robotId]) }), { maxLength: 4 });
  }
  // Real machines, parts and fragments too, so that random configs, versions and tags reach the stores.
  if (name === 'fragmentId' || name === 'additionalFragmentIds' || name === 'fragmentIds') {
    const ids = fc.oneof(anyString, ...real.fragments.map((f) => fc.constant(f)));
    return name === 'fragmentId' ? ids : fc.oneof(anyList, fc.array(ids, { maxLength: 4 }));
  }
  if (name === 'robotPartId') return fc.oneof(anyString, fc.constant(real.partId));
  if (name === 'machineId' || name === 'robotId') return fc.oneof(anyString, fc.constant(real.robotId));
  if (name === 'version' && typeof defaultValue === 'string') return fc.oneof(anyString, fc.constantFrom('1', '2', 'stable', 'v1'));
  if (name === 'models') return fc.array(fc.record({ api: anyString, model: anyString }), { maxLength: 3 });
  if (name === 'apps') return fc.array(fc.record({ name: anyString, type: anyNumber, entrypoint: anyString, logoPath: anyString, customizations: fc.constant({}), fragmentIds: fc.array(anyString, { maxLength: 2 }) }), { maxLength: 3 });
  if (name === 'moduleFileInfo') return fc.option(fileInfo, { nil: undefined });
  if (name === 'moduleFile') {
    return fc.oneof(
      fc.constant(undefined),
      fileInfo.map((value) => ({ $case: 'moduleFileInfo', value })),
      fc.uint8Array({ maxLength: 100 }).map((b) => ({ $case: 'file', value: Buffer.from(b) })),
    );
  }
  // Authorizations of invites and permission checks: real and odd roles, types and ids.
  if (name === 'authorizations' || name === 'addAuthorizations' || name === 'removeAuthorizations') {
    return fc.oneof(anyList, fc.array(fc.record({ roleId: fc.oneof(anyString, fc.constantFrom('owner', 'operator')), resourceType: fc.oneof(anyString, fc.constantFrom('organization', 'location', 'robot')), resourceId: fc.oneof(anyString, fc.constant(real.robotId)) }), { maxLength: 4 }));
  }
  if (name === 'permissions') {
    return fc.array(fc.record({ resourceType: fc.oneof(anyString, fc.constantFrom('organization', 'location', 'robot')), resourceId: fc.oneof(anyString, fc.constant(real.robotId)), permissions: fc.oneof(anyList, fc.array(fc.constantFrom('read_robot', 'write_robot', 'read_organization'), { maxLength: 3 })) }), { maxLength: 4 });
  }
  if (name === 'role' || name === 'oldRole' || name === 'newRole') return fc.oneof(anyString, fc.constantFrom('owner', 'operator'));
  if (/^(old|new)?[rR]esourceType$/.test(name)) return fc.oneof(anyString, fc.constantFrom('organization', 'location', 'robot'));
  if (name === 'sendEmailInvite') return fc.option(fc.boolean(), { nil: undefined });
  if (name === 'email') return fc.oneof(anyString, fc.constantFrom('ada@example.com', 'ADA@Example.com', 'a@b', 'x@y.z'));
  if (typeof defaultValue === 'boolean') return fc.boolean();
  if (typeof defaultValue === 'string') return anyString;
  if (typeof defaultValue === 'number') return anyNumber;
  if (Array.isArray(defaultValue)) return anyList;
  // Optional strings (presence): absent or any string.
  return fc.option(anyString, { nil: undefined });
}

const OPTIONAL_FIELDS: Record<string, readonly string[]> = {
  UpdateOrganizationRequest: ['name', 'publicNamespace', 'region', 'cid'],
  UpdateLocationRequest: ['name', 'parentLocationId', 'region'],
  GetRobotPartLogsRequest: ['numLogEntries', 'start', 'end'],
  TailRobotPartLogsRequest: ['errorsOnly'],
  UpdateRegistryItemRequest: ['url'],
};

const isClientStream = (method: string) => definitionOf(method)[method]?.requestStream === true;

/** A unary call, or a client stream whose first message is `request` (then a chunk, then the end). */
function callMalformed(method: string, request: Record<string, unknown>, metadata: Metadata): Promise<unknown> {
  if (isTraining(method)) {
    const bound = (training[method as 'getTrainingJob'] as unknown as (...args: unknown[]) => unknown).bind(training) as Parameters<typeof call<unknown, unknown>>[0];
    return call(bound, messages[`${method.charAt(0).toUpperCase()}${method.slice(1)}Request`]!.fromPartial(request), metadata);
  }
  if (!isClientStream(method)) return appCall(t, method as 'getRobot', request as never, metadata);
  const first = registryMessages.UploadModuleFileRequest.fromPartial(request as Partial<registryMessages.UploadModuleFileRequest>);
  return uploadFile(t, { moduleId: '', version: '', platform: '' }, [], metadata, { messages: [first, { moduleFile: { $case: 'file', value: Buffer.from('chunk') }, writeOffset: 0 }] });
}

function requestArbitrary(method: string): fc.Arbitrary<Record<string, unknown>> {
  const type = `${method.charAt(0).toUpperCase()}${method.slice(1)}Request`;
  const message = messages[type] ?? messages[type.toLowerCase()];
  if (message === undefined) throw new Error(`no ${type}`);
  const defaults = message.fromPartial({});
  const fields = [...new Set([...Object.keys(defaults), ...(OPTIONAL_FIELDS[type] ?? []), ...('metadata' in defaults || /Metadata$/.test(method) ? ['metadata'] : [])])];
  // The key operations on an organization aim at the target one too (others keep random ids: a real one would let DeleteOrganization end the run).
  const arbitrary = (f: string) => (f === 'orgId' && (method === 'createKey' || method === 'listKeys') ? fc.oneof(anyString, fc.constant(real.orgId)) : fieldArbitrary(f, defaults[f]));
  return fc.record(Object.fromEntries(fields.map((f) => [f, arbitrary(f)])) as Record<string, fc.Arbitrary<unknown>>);
}

let t: TestService;
let owner: Metadata;
let training: MLTrainingServiceClient;
beforeAll(async () => {
  t = await startTestService();
  owner = await ownerMetadata(t);
  // Something to aim at: random requests hit real resources as well as unknown ones.
  const orgId = (await appCall(t, 'createOrganization', { name: 'Target Co' }, owner)).organization!.id;
  const locationId = (await appCall(t, 'createLocation', { orgId, name: 'Target Site' }, owner)).location!.id;
  real.robotId = (await appCall(t, 'newRobot', { name: 'target', locationId }, owner)).id;
  real.partId = (await appCall(t, 'getRobotParts', { robotId: real.robotId }, owner)).parts[0]!.id;
  real.orgId = orgId;
  real.locationId = locationId;
  // Keys and secrets of the target, so random requests reach them (never the owner's own key: deleting it would end the run).
  for (let i = 0; i < 2; i++) real.keyIds.push((await appCall(t, 'createKey', { orgId, authorizations: [{ role: 'operator', resourceType: 'location', resourceId: locationId }] }, owner)).id);
  real.secretIds.push(...(await appCall(t, 'locationAuth', { locationId }, owner)).auth!.secrets.map((s) => s.id));
  real.secretIds.push(...(await appCall(t, 'getRobotPart', { robotPartId: real.partId }, owner)).part!.secrets.map((s) => s.id));
  const leaf = (await appCall(t, 'createFragment', { orgId, name: 'Target leaf', config: { components: [{ name: 'cam', type: 'camera' }] } }, owner)).fragment!.id;
  await appCall(t, 'setFragmentTag', { fragmentId: leaf, tag: 'stable' }, owner);
  const parent = (await appCall(t, 'createFragment', { orgId, name: 'Target parent', config: { fragments: [leaf] }, visibility: 2 }, owner)).fragment!.id;
  real.fragments.push(leaf, parent);
  await appCall(t, 'updateRobotPart', { robotPartId: real.partId, name: 'target-main', robotConfig: { fragments: [parent] } }, owner);
  await appCall(t, 'updateOrganization', { orgId, publicNamespace: 'target-co' }, owner);
  const { moduleId } = await appCall(t, 'createModule', { orgId, name: 'x' }, owner);
  await appCall(t, 'updateModule', { moduleId, url: 'https://example.com/x', entrypoint: 'run' }, owner);
  await appCall(t, 'createRegistryItem', { organizationId: orgId, name: 'trainer', type: registryMessages.PackageType.PACKAGE_TYPE_ML_TRAINING }, owner);
  const job = new TrainingStore(t.db()).submit({ orgId, datasetId: 'd', modelName: 'm', modelVersion: '1', modelType: 1, tags: ['a'] }, Date.now());
  t.db().prepare('UPDATE training_jobs SET id = ? WHERE id = ?').run(JOB_ID, job);
  training = new MLTrainingServiceClient(t.service.address, credentials.createInsecure());
});
afterAll(async () => {
  training.close();
  await t.stop();
});

const BAD = new Set([status.INTERNAL, status.UNKNOWN]);

describe.each([...Object.keys(appRules), ...Object.keys(trainingRules)])('%s', (method) => {
  it('answers every malformed request with a status the caller can act on, never INTERNAL or UNKNOWN', async () => {
    await fc.assert(
      fc.asyncProperty(requestArbitrary(method), async (request) => {
        const outcome = await callMalformed(method, request, owner).then(
          () => status.OK,
          (e: ServiceError) => e.code,
        );
        expect(BAD.has(outcome), `${method} ${JSON.stringify(request).slice(0, 300)} answered ${status[outcome]}`).toBe(false);
      }),
      { numRuns: 20 },
    );
  });

  it('answers bytes that are no request message with INVALID_ARGUMENT', async () => {
    const client = new Client(t.service.address, credentials.createInsecure());
    const path = definitionOf(method)[method]!.path;
    try {
      await fc.assert(
        fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 200 }), async (bytes) => {
          const code = await new Promise<status>((resolve) => {
            const done = (e: ServiceError | null) => resolve(e?.code ?? status.OK);
            if (isClientStream(method)) client.makeClientStreamRequest(path, (b: Buffer) => b, (b: Buffer) => b, owner, done).end(Buffer.from(bytes));
            else client.makeUnaryRequest(path, (b: Buffer) => b, (b: Buffer) => b, Buffer.from(bytes), owner, done);
          });
          expect(BAD.has(code), `${method} with bytes ${Buffer.from(bytes).toString('hex')} answered ${status[code]}`).toBe(false);
        }),
        { numRuns: 15 },
      );
    } finally {
      client.close();
    }
  });
});

it('decodes nothing deeper than the decoder allows: a Struct nested 5,000 deep is INVALID_ARGUMENT, and the service keeps serving', async () => {
  // Built by hand from the inside out: a client's encoder would recurse as deeply as the server's decoder.
  const field = (number: number, payload: Buffer) => Buffer.concat([Buffer.from([(number << 3) | 2]), varint(payload.length), payload]);
  let value = Buffer.from([0x08, 0x00]); // Value { null_value: NULL_VALUE }
  for (let i = 0; i < 5_000; i++) {
    const entry = Buffer.concat([field(1, Buffer.from('k')), field(2, value)]);
    value = field(5, field(1, entry)); // Value { struct_value: Struct { fields: { k: value } } }
  }
  const request = Buffer.concat([field(1, Buffer.from('some-robot')), field(2, field(1, Buffer.concat([field(1, Buffer.from('k')), field(2, value)])))]);
  const client = new Client(t.service.address, credentials.createInsecure());
  try {
    const error = await new Promise<ServiceError | null>((resolve) => {
      client.makeUnaryRequest(AppServiceService.updateRobotMetadata.path, (b: Buffer) => b, (b: Buffer) => b, request, owner, (e: ServiceError | null) => resolve(e));
    });
    expect(error?.code).toBe(status.INVALID_ARGUMENT);
    expect(error?.metadata.get('fleet-error-reason')).toEqual(['MESSAGE_MALFORMED']);
  } finally {
    client.close();
  }
  expect((await appCall(t, 'listOrganizations', {}, owner)).organizations.length).toBeGreaterThan(0);
});

function varint(n: number): Buffer {
  const bytes: number[] = [];
  while (n > 0x7f) {
    bytes.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  bytes.push(n);
  return Buffer.from(bytes);
}
