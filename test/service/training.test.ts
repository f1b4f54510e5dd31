// ML training (docs/PROTOCOL.md, "ML training"), every rule over a real socket: the request checks,
// model versions that are never reused, custom jobs on training scripts published with
// UploadModuleFile, the runner (PENDING is real, two runs per organization, progress, datasets and
// tags checked at start, the model published in the registry), cancelling, deleting, listing with
// paging, datasets, permissions on jobs, and jobs surviving a restart of the service.
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { credentials, status, type Metadata } from '@grpc/grpc-js';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PackageType } from '../../proto/gen/fleet/app/v1/registry';
import * as training from '../../proto/gen/fleet/mltraining/v1/ml_training';
import { AuthServiceClient } from '../../proto/gen/fleet/auth/v1/auth';
import { MLTrainingServiceClient, ModelType, TrainingStatus, type TrainingJobMetadata } from '../../proto/gen/fleet/mltraining/v1/ml_training';
import { migrate } from '../../db/migrate';
import { serviceMigrations } from '../../service/db/migrations';
import { openDatabase } from '../../service/db/open';
import { RegistryFiles } from '../../service/registry/files';
import { ModelShelf } from '../../service/registry/models';
import { DATABASE_FILE, startService } from '../../service/server';
import { MAX_RUNNING_PER_ORG, TrainingRunner, trainingTiming } from '../../service/training/runner';
import { TrainingStore } from '../../service/training/store';
import { appCall, bearer, call, createKeyWithOrg, expectError, ownerMetadata, scopedKey, startTestService, tempDir, tokenFor, uploadFile, type TestService } from './helpers';

type Method = 'submitTrainingJob' | 'submitCustomTrainingJob' | 'getTrainingJob' | 'listTrainingJobs' | 'cancelTrainingJob' | 'deleteCompletedTrainingJob' | 'listTrainingDatasets' | 'listModelVersions';
const messages = training as unknown as Record<string, { fromPartial(v: unknown): unknown }>;

/** Call MLTrainingService method `method` with a partial request. */
function trainingCall<R = unknown>(client: MLTrainingServiceClient, method: Method, request: Record<string, unknown>, metadata: Metadata): Promise<R> {
  const type = messages[`${method.charAt(0).toUpperCase()}${method.slice(1)}Request`]!;
  const bound = (client[method] as unknown as (...args: unknown[]) => unknown).bind(client) as Parameters<typeof call<unknown, R>>[0];
  return call(bound, type.fromPartial(request), metadata);
}

interface Fixture {
  readonly t: TestService;
  readonly client: MLTrainingServiceClient;
  readonly owner: Metadata;
  readonly orgId: string;
  /** Datasets of the organization: readable with labels a–d, and an unreadable one. */
  readonly dataset: string;
  readonly unreadable: string;
}

async function fixture(options: { runMs: number; pendingMs: number; tickMs: number; maxPendingJobs?: number }, name: string): Promise<Fixture> {
  const t = await startTestService({ training: options });
  const client = new MLTrainingServiceClient(t.service.address, credentials.createInsecure());
  const owner = await ownerMetadata(t);
  const orgId = (await appCall(t, 'createOrganization', { name }, owner)).organization!.id;
  const store = new TrainingStore(t.db());
  const dataset = store.addDataset({ orgId, name: 'Pallets', sizeBytes: 1_000_000, imageCount: 1200, labels: ['pallet', 'person', 'forklift', 'box'], createdOn: Date.now() - 86_400_000 });
  const unreadable = store.addDataset({ orgId, name: 'Archived scans', sizeBytes: 5_000, imageCount: 40, labels: ['pallet'], readable: false, createdOn: Date.now() - 2 * 86_400_000 });
  return { t, client, owner, orgId, dataset, unreadable };
}

let versions = 0;
const version = () => `${++versions}`;

const submitRequest = (f: Fixture, overrides: Record<string, unknown> = {}) => ({
  orgId: f.orgId,
  datasetId: f.dataset,
  modelName: 'pallets',
  modelVersion: version(),
  modelType: ModelType.MODEL_TYPE_OBJECT_DETECTION,
  tags: ['pallet', 'person'],
  ...overrides,
});

const submit = (f: Fixture, overrides: Record<string, unknown> = {}, md = f.owner) => trainingCall<{ id: string }>(f.client, 'submitTrainingJob', submitRequest(f, overrides), md).then((r) => r.id);
const get = (f: Fixture, id: string, md = f.owner) => trainingCall<{ metadata: TrainingJobMetadata }>(f.client, 'getTrainingJob', { id }, md).then((r) => r.metadata);

/** Poll the job until `done` holds (or fail after `ms`). Answers every state seen, and the last. */
async function until(f: Fixture, id: string, done: (j: TrainingJobMetadata) => boolean, ms = 10_000): Promise<{ job: TrainingJobMetadata; seen: TrainingJobMetadata[] }> {
  const seen: TrainingJobMetadata[] = [];
  const deadline = Date.now() + ms;
  for (;;) {
    const job = await get(f, id);
    seen.push(job);
    if (done(job)) return { job, seen };
    if (Date.now() > deadline) throw new Error(`job ${id} is still ${TrainingStatus[job.status]} (${job.progressPercent}%) after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 15));
  }
}
const FINAL = [TrainingStatus.TRAINING_STATUS_SUCCEEDED, TrainingStatus.TRAINING_STATUS_FAILED, TrainingStatus.TRAINING_STATUS_CANCELED];
const final = (j: TrainingJobMetadata) => FINAL.includes(j.status);

/** Jobs run 60 s and start at once: the first two of an organization RUN, the rest stay PENDING. */
let slow: Fixture;
/** Jobs wait 150 ms and run 600 ms. */
let fast: Fixture;

beforeAll(async () => {
  [slow, fast] = await Promise.all([fixture({ runMs: 60_000, pendingMs: 0, tickMs: 20 }, 'Slow Trainers'), fixture({ runMs: 600, pendingMs: 150, tickMs: 10 }, 'Fast Trainers')]);
});
afterAll(async () => {
  for (const f of [slow, fast]) {
    f.client.close();
    await f.t.stop();
  }
});

describe('SubmitTrainingJob', () => {
  it('answers a new job id (a UUID); the job starts PENDING with what was asked, tags trimmed', async () => {
    const org = (await appCall(slow.t, 'createOrganization', { name: 'Pending Only' }, slow.owner)).organization!.id;
    const store = new TrainingStore(slow.t.db());
    const ds = store.addDataset({ orgId: org, name: 'D', sizeBytes: 1, imageCount: 1, labels: ['pallet'], createdOn: Date.now() });
    // Two jobs hold the run slots; the third is PENDING for as long as they run.
    await submit(slow, { orgId: org, datasetId: ds, tags: ['pallet'] });
    await submit(slow, { orgId: org, datasetId: ds, tags: ['pallet'] });
    const before = Date.now();
    const id = await submit(slow, { orgId: org, datasetId: ds, modelName: 'boxes', modelVersion: '1.0.0', tags: ['  pallet '] });
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await new Promise((r) => setTimeout(r, 100));
    const job = await get(slow, id);
    expect(job).toMatchObject({
      id,
      orgId: org,
      datasetId: ds,
      datasetName: 'D',
      modelName: 'boxes',
      modelVersion: '1.0.0',
      modelType: ModelType.MODEL_TYPE_OBJECT_DETECTION,
      tags: ['pallet'],
      isCustomJob: false,
      registryItemId: '',
      registryItemVersion: '',
      status: TrainingStatus.TRAINING_STATUS_PENDING,
      progressPercent: 0,
      syncedModelId: '',
    });
    expect(job.error).toBeUndefined();
    expect(job.trainingStarted).toBeUndefined();
    expect(job.trainingEnded).toBeUndefined();
    expect(job.cancelRequested).toBeUndefined();
    expect(job.createdOn!.getTime()).toBeGreaterThanOrEqual(before - 5);
    expect(job.lastModified).toEqual(job.createdOn);
    const jobs = (await trainingCall<{ jobs: TrainingJobMetadata[] }>(slow.client, 'listTrainingJobs', { orgId: org }, slow.owner)).jobs;
    expect(jobs.map((j) => j.status)).toEqual([TrainingStatus.TRAINING_STATUS_PENDING, TrainingStatus.TRAINING_STATUS_RUNNING, TrainingStatus.TRAINING_STATUS_RUNNING]);
  });

  it.each([
    ['org_id', { orgId: '' }, 'REQUIRED_FIELD_MISSING'],
    ['dataset_id', { datasetId: '' }, 'REQUIRED_FIELD_MISSING'],
    ['dataset_id', { datasetId: 'd'.repeat(201) }, 'FIELD_TOO_LONG'],
    ['dataset_id', { datasetId: '\u0000abc' }, 'FIELD_INVALID'],
    ['model_name', { modelName: '' }, 'REQUIRED_FIELD_MISSING'],
    ['model_name', { modelName: 'Pallet Detector' }, 'FIELD_INVALID'],
    ['model_name', { modelName: '-pallets' }, 'FIELD_INVALID'],
    ['model_name', { modelName: 'p'.repeat(201) }, 'FIELD_TOO_LONG'],
    ['model_version', { modelVersion: '' }, 'REQUIRED_FIELD_MISSING'],
    ['model_version', { modelVersion: '.1' }, 'FIELD_INVALID'],
    ['model_version', { modelVersion: '1 0' }, 'FIELD_INVALID'],
    ['model_version', { modelVersion: 'v1/2' }, 'FIELD_INVALID'],
    ['model_version', { modelVersion: '1'.repeat(65) }, 'FIELD_TOO_LONG'],
    ['model_type', { modelType: ModelType.MODEL_TYPE_UNSPECIFIED }, 'ENUM_VALUE_INVALID'],
    ['model_type', { modelType: 9 }, 'ENUM_VALUE_INVALID'],
    ['tags', { tags: [] }, 'REQUIRED_FIELD_MISSING'],
    ['tags', { tags: Array.from({ length: 101 }, (_, i) => `t${i}`) }, 'FIELD_INVALID'],
    ['tags[1]', { tags: ['pallet', '  '] }, 'REQUIRED_FIELD_MISSING'],
    ['tags[0]', { tags: ['x'.repeat(101)] }, 'FIELD_TOO_LONG'],
    ['tags[0]', { tags: ['a\u0007b'] }, 'FIELD_INVALID'],
    ['tags[2]', { tags: ['pallet', 'person', ' pallet'] }, 'FIELD_INVALID'],
  ])('refuses a bad %s: INVALID_ARGUMENT %#', async (field, overrides, reason) => {
    await expectError(submit(slow, overrides), { code: status.INVALID_ARGUMENT, reason, field });
  });

  it('accepts free version labels: 1, 1.0.0, 2026-11-25, rc_2, and 64 characters', async () => {
    for (const v of ['1', '1.0.0', '2026-11-25', 'rc_2', 'A'.repeat(64)]) await submit(slow, { modelName: 'labels', modelVersion: v });
  });

  it('answers NOT_FOUND for an unknown organization, or one the caller cannot see', async () => {
    await expectError(submit(slow, { orgId: '00000000-0000-4000-8000-000000000000' }), { code: status.NOT_FOUND, reason: 'ORGANIZATION_NOT_FOUND' });
    const other = await createKeyWithOrg(slow.t, 'Elsewhere');
    await expectError(submit(slow, { orgId: other.orgId }), { code: status.NOT_FOUND, reason: 'ORGANIZATION_NOT_FOUND' });
  });

  it('refuses a model_name that names a registry item of another type: FAILED_PRECONDITION MODEL_NAME_TAKEN naming the item and its type', async () => {
    await appCall(slow.t, 'createModule', { orgId: slow.orgId, name: 'lidar-driver' }, slow.owner);
    await expectError(submit(slow, { modelName: 'lidar-driver' }), {
      code: status.FAILED_PRECONDITION,
      reason: 'MODEL_NAME_TAKEN',
      message: new RegExp(`registry item ${slow.orgId}:lidar-driver, of type PACKAGE_TYPE_MODULE.*choose another model_name`),
    });
    // An ML model item of that name is where the model goes: fine.
    await appCall(slow.t, 'createRegistryItem', { organizationId: slow.orgId, name: 'existing-model', type: PackageType.PACKAGE_TYPE_ML_MODEL }, slow.owner);
    await submit(slow, { modelName: 'existing-model' });
  });
});

describe('model versions are never reused', () => {
  it('refuses a version used before for the model in the organization, by any job, even a deleted one, with ALREADY_EXISTS MODEL_VERSION_TAKEN', async () => {
    const id = await submit(slow, { modelName: 'reuse', modelVersion: '1' });
    await expectError(submit(slow, { modelName: 'reuse', modelVersion: '1' }), { code: status.ALREADY_EXISTS, reason: 'MODEL_VERSION_TAKEN', field: 'model_version', message: /used before.*pick another/ });
    await trainingCall(slow.client, 'cancelTrainingJob', { id }, slow.owner);
    await until(slow, id, final);
    await trainingCall(slow.client, 'deleteCompletedTrainingJob', { id }, slow.owner);
    await expectError(submit(slow, { modelName: 'reuse', modelVersion: '1' }), { code: status.ALREADY_EXISTS, reason: 'MODEL_VERSION_TAKEN' });
    // Custom jobs share the ledger.
    const script = await trainingScript(slow, 'reuse-script');
    await expectError(trainingCall(slow.client, 'submitCustomTrainingJob', { orgId: slow.orgId, datasetId: slow.dataset, registryItemId: script, registryItemVersion: '1.0.0', modelName: 'reuse', modelVersion: '1' }, slow.owner), {
      code: status.ALREADY_EXISTS,
      reason: 'MODEL_VERSION_TAKEN',
    });
    // Another model, or another organization, may use the label.
    await submit(slow, { modelName: 'reuse-other', modelVersion: '1' });
    const org2 = (await appCall(slow.t, 'createOrganization', { name: 'Second Org' }, slow.owner)).organization!.id;
    await submit(slow, { orgId: org2, modelName: 'reuse', modelVersion: '1' });
  });

  it('refuses a version already published in the ML model item of that name', async () => {
    await appCall(slow.t, 'createRegistryItem', { organizationId: slow.orgId, name: 'uploaded-model', type: PackageType.PACKAGE_TYPE_ML_MODEL }, slow.owner);
    await uploadFile(slow.t, { moduleId: `${slow.orgId}:uploaded-model`, version: '1.0.0', platform: 'linux/any' }, [Buffer.from('weights')], slow.owner);
    await expectError(submit(slow, { modelName: 'uploaded-model', modelVersion: '1.0.0' }), { code: status.ALREADY_EXISTS, reason: 'MODEL_VERSION_TAKEN', message: /published in registry item/ });
    await submit(slow, { modelName: 'uploaded-model', modelVersion: '1.0.1' });
  });

  it('of ten submissions of one version at once, accepts exactly one', async () => {
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => submit(slow, { modelName: 'raced', modelVersion: '7' })));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of outcomes) if (o.status === 'rejected') expect((o.reason as { code: status }).code).toBe(status.ALREADY_EXISTS);
  });

  it('lists jobs submitted within one millisecond in the order they came (newest first is exact)', () => {
    const store = new TrainingStore(slow.t.db());
    const ds = store.addDataset({ orgId: slow.orgId, name: 'Same ms', sizeBytes: 1, imageCount: 1, labels: ['x'], createdOn: Date.now() });
    const at = Date.now() + 60_000;
    const ids = ['a', 'b', 'c'].map((v) => store.submit({ orgId: slow.orgId, datasetId: ds, modelName: 'same-ms', modelVersion: v, modelType: ModelType.MODEL_TYPE_OBJECT_DETECTION, tags: ['x'] }, at));
    expect(store.list(slow.orgId, TrainingStatus.TRAINING_STATUS_UNSPECIFIED, null, 3).rows.map((r) => r.id)).toEqual([...ids].reverse());
  });

  it('is race-safe across writers: a version another writer took after the check (the ledger’s key) is ALREADY_EXISTS, and nothing is stored', () => {
    // Two processes on one database may both pass the check before either inserts; the ledger's primary key decides.
    const other = new TrainingStore(openDatabase(join(slow.t.dataDir, DATABASE_FILE)));
    const store = new TrainingStore(slow.t.db());
    const ds = store.addDataset({ orgId: slow.orgId, name: 'Race', sizeBytes: 1, imageCount: 1, labels: ['x'], createdOn: Date.now() });
    const job = { orgId: slow.orgId, datasetId: ds, modelName: 'raced-writers', modelVersion: '1', modelType: ModelType.MODEL_TYPE_OBJECT_DETECTION, tags: ['x'] };
    other.submit(job, Date.now());
    const blind = Object.assign(Object.create(store) as TrainingStore, { versionTaken: () => undefined });
    const jobsBefore = slow.t.db().prepare('SELECT count(*) FROM training_jobs').pluck().get();
    expect(() => blind.submit(job, Date.now())).toThrow(/used before in this organization \(another job took it just now\)/);
    expect(slow.t.db().prepare('SELECT count(*) FROM training_jobs').pluck().get()).toBe(jobsBefore);
  });
});

/** A private training script of the fixture's organization with version 1.0.0 uploaded; answers its id. */
async function trainingScript(f: Fixture, name: string, upload = true): Promise<string> {
  await appCall(f.t, 'createRegistryItem', { organizationId: f.orgId, name, type: PackageType.PACKAGE_TYPE_ML_TRAINING }, f.owner);
  const id = `${f.orgId}:${name}`;
  if (upload) await uploadFile(f.t, { moduleId: id, version: '1.0.0', platform: 'linux/any' }, [Buffer.from('#!/bin/sh\ntrain\n')], f.owner);
  return id;
}

describe('SubmitCustomTrainingJob', () => {
  const custom = (f: Fixture, overrides: Record<string, unknown>) =>
    trainingCall<{ id: string }>(f.client, 'submitCustomTrainingJob', { orgId: f.orgId, datasetId: f.dataset, registryItemVersion: '1.0.0', modelName: 'custom', modelVersion: version(), ...overrides }, f.owner).then((r) => r.id);

  it('checks its fields as SubmitTrainingJob does, and the script id and version', async () => {
    const script = await trainingScript(slow, 'checked-script', false);
    await expectError(custom(slow, { registryItemId: '' }), { code: status.INVALID_ARGUMENT, reason: 'REQUIRED_FIELD_MISSING', field: 'registry_item_id' });
    await expectError(custom(slow, { registryItemId: 'no-colon' }), { code: status.INVALID_ARGUMENT, reason: 'FIELD_INVALID', field: 'registry_item_id' });
    await expectError(custom(slow, { registryItemId: script, registryItemVersion: '' }), { code: status.INVALID_ARGUMENT, reason: 'REQUIRED_FIELD_MISSING', field: 'registry_item_version' });
    await expectError(custom(slow, { registryItemId: script, registryItemVersion: 'v'.repeat(201) }), { code: status.INVALID_ARGUMENT, reason: 'FIELD_TOO_LONG', field: 'registry_item_version' });
    await expectError(custom(slow, { registryItemId: script, modelName: 'Bad Name' }), { code: status.INVALID_ARGUMENT, reason: 'FIELD_INVALID', field: 'model_name' });
    await expectError(custom(slow, { registryItemId: script, modelVersion: '' }), { code: status.INVALID_ARGUMENT, reason: 'REQUIRED_FIELD_MISSING', field: 'model_version' });
    await expectError(custom(slow, { registryItemId: script, datasetId: '' }), { code: status.INVALID_ARGUMENT, reason: 'REQUIRED_FIELD_MISSING', field: 'dataset_id' });
  });

  it('answers NOT_FOUND for an unknown item or one the caller cannot see, FAILED_PRECONDITION for an item that is no training script', async () => {
    await expectError(custom(slow, { registryItemId: `${slow.orgId}:no-such-script` }), { code: status.NOT_FOUND, reason: 'REGISTRY_ITEM_NOT_FOUND', field: 'registry_item_id' });
    const other = await createKeyWithOrg(slow.t, 'Script Owners');
    const otherMd = bearer(await tokenFor(slow.t, other.keyId, other.secret));
    await appCall(slow.t, 'createRegistryItem', { organizationId: other.orgId, name: 'private-script', type: PackageType.PACKAGE_TYPE_ML_TRAINING }, otherMd);
    await expectError(custom(slow, { registryItemId: `${other.orgId}:private-script` }), { code: status.NOT_FOUND, reason: 'REGISTRY_ITEM_NOT_FOUND', message: 'no registry item' });
    await appCall(slow.t, 'createRegistryItem', { organizationId: slow.orgId, name: 'a-model', type: PackageType.PACKAGE_TYPE_ML_MODEL }, slow.owner);
    await expectError(custom(slow, { registryItemId: `${slow.orgId}:a-model` }), { code: status.FAILED_PRECONDITION, reason: 'REGISTRY_ITEM_WRONG_TYPE', message: /PACKAGE_TYPE_ML_MODEL.*training script/ });
  });

  it('records the job as custom: no model type or tags, the script in its canonical id form and the version as given', async () => {
    const ns = `trainers-${Date.now().toString(36)}`;
    const org = (await appCall(slow.t, 'createOrganization', { name: 'Namespaced Trainers' }, slow.owner)).organization!.id;
    await appCall(slow.t, 'updateOrganization', { orgId: org, publicNamespace: ns }, slow.owner);
    await appCall(slow.t, 'createRegistryItem', { organizationId: org, name: 'trainer', type: PackageType.PACKAGE_TYPE_ML_TRAINING }, slow.owner);
    const id = await custom(slow, { orgId: org, registryItemId: `${org}:trainer`, registryItemVersion: '9.9.9' });
    expect(await get(slow, id)).toMatchObject({ isCustomJob: true, modelType: ModelType.MODEL_TYPE_UNSPECIFIED, tags: [], registryItemId: `${ns}:trainer`, registryItemVersion: '9.9.9' });
  });

  it('runs a training script published with UploadModuleFile (an ML_TRAINING item, version 1.0.0 for linux/any) and SUCCEEDS', async () => {
    const script = await trainingScript(fast, 'published-script');
    expect((await appCall(fast.t, 'listRegistryItemVersions', { itemId: script }, fast.owner)).versions.map((v) => [v.version, v.platforms])).toEqual([['1.0.0', ['linux/any']]]);
    const id = await custom(fast, { registryItemId: script, modelName: 'scripted-model', modelVersion: '1' });
    const { job } = await until(fast, id, final);
    expect(job).toMatchObject({ status: TrainingStatus.TRAINING_STATUS_SUCCEEDED, progressPercent: 100, syncedModelId: `${fast.orgId}:scripted-model` });
  });

  it('FAILS at start when the script version has no uploaded file, or the script was deleted', async () => {
    const script = await trainingScript(fast, 'unpublished-script', false);
    const id = await custom(fast, { registryItemId: script, registryItemVersion: '2.0.0' });
    const { job } = await until(fast, id, final);
    expect(job.status).toBe(TrainingStatus.TRAINING_STATUS_FAILED);
    expect(job.error).toEqual({ code: status.NOT_FOUND, message: expect.stringMatching(/has no uploaded version "2.0.0": publish it with UploadModuleFile/) });
    const gone = await trainingScript(fast, 'deleted-script');
    const id2 = await custom(fast, { registryItemId: gone });
    await appCall(fast.t, 'deleteRegistryItem', { itemId: gone }, fast.owner);
    const { job: job2 } = await until(fast, id2, final);
    expect(job2).toMatchObject({ status: TrainingStatus.TRAINING_STATUS_FAILED, registryItemId: gone, error: { code: status.NOT_FOUND, message: expect.stringMatching(/no longer exists/) } });
  });
});

describe('the runner', () => {
  it('runs a job PENDING → RUNNING (progress rising) → SUCCEEDED and publishes the model: an ML_MODEL item with the version and a real artifact', async () => {
    const id = await submit(fast, { modelName: 'forklift-finder', modelVersion: '1', tags: ['forklift', 'person'] });
    const { job, seen } = await until(fast, id, final);
    const running = seen.filter((j) => j.status === TrainingStatus.TRAINING_STATUS_RUNNING).map((j) => j.progressPercent);
    expect(running.some((p) => p > 0 && p < 100)).toBe(true);
    expect([...running].sort((a, b) => a - b)).toEqual(running);
    expect(job).toMatchObject({ status: TrainingStatus.TRAINING_STATUS_SUCCEEDED, progressPercent: 100, syncedModelId: `${fast.orgId}:forklift-finder` });
    expect(job.error).toBeUndefined();
    // PENDING for the pending time first.
    expect(job.trainingStarted!.getTime()).toBeGreaterThanOrEqual(job.createdOn!.getTime() + 150);
    expect(job.trainingEnded!.getTime() - job.trainingStarted!.getTime()).toBeGreaterThanOrEqual(600);
    expect(job.lastModified).toEqual(job.trainingEnded);

    const { item } = await appCall(fast.t, 'getRegistryItem', { itemId: job.syncedModelId }, fast.owner);
    expect(item).toMatchObject({ type: PackageType.PACKAGE_TYPE_ML_MODEL, platforms: ['linux/any'], description: expect.stringContaining('object detection') });
    const [published] = (await appCall(fast.t, 'listRegistryItemVersions', { itemId: job.syncedModelId }, fast.owner)).versions;
    expect(published).toMatchObject({ version: '1', platforms: ['linux/any'] });
    const file = published!.files[0]!;
    const bytes = readFileSync(new RegistryFiles(fast.t.dataDir).path(fast.t.db().prepare('SELECT id FROM registry_items WHERE organization_id = ? AND name = ?').pluck().get(fast.orgId, 'forklift-finder') as string, '1', 'linux/any'));
    expect(bytes.length).toBe(file.sizeBytes);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(file.sha256);
    const tar = gunzipSync(bytes);
    expect(tar.subarray(257, 262).toString()).toBe('ustar');
    const text = tar.toString('latin1');
    expect(text).toContain('"model_type": "MODEL_TYPE_OBJECT_DETECTION"');
    expect(text).toContain(`"training_job_id": "${id}"`);
    expect(text).toContain('"forklift"');
  });

  it('adds versions to an existing ML model item; the item and its versions stay when the job is deleted', async () => {
    const first = await submit(fast, { modelName: 'growing', modelVersion: '1', tags: ['box'] });
    await until(fast, first, final);
    const second = await submit(fast, { modelName: 'growing', modelVersion: '2026-11-25', tags: ['box'] });
    await until(fast, second, final);
    await trainingCall(fast.client, 'deleteCompletedTrainingJob', { id: first }, fast.owner);
    expect((await appCall(fast.t, 'listRegistryItemVersions', { itemId: `${fast.orgId}:growing` }, fast.owner)).versions.map((v) => v.version)).toEqual(['1', '2026-11-25']);
    await expectError(submit(fast, { modelName: 'growing', modelVersion: '1' }), { code: status.ALREADY_EXISTS, reason: 'MODEL_VERSION_TAKEN' });
  });

  it('FAILS a job whose dataset the organization does not have, or cannot read, or whose tags are not labels of the dataset', async () => {
    const other = await createKeyWithOrg(fast.t, 'Dataset Holder');
    const foreign = new TrainingStore(fast.t.db()).addDataset({ orgId: other.orgId, name: 'Theirs', sizeBytes: 1, imageCount: 1, labels: ['pallet'], createdOn: Date.now() });
    const cases: [Record<string, unknown>, number, RegExp][] = [
      [{ datasetId: 'no-such-dataset' }, status.NOT_FOUND, /^dataset no-such-dataset cannot be read: the organization has no such dataset/],
      [{ datasetId: foreign }, status.NOT_FOUND, new RegExp(`^dataset ${foreign} cannot be read: the organization has no such dataset`)],
      [{ datasetId: fast.unreadable }, status.FAILED_PRECONDITION, /^dataset Archived scans .* cannot be read/],
      [{ tags: ['pallet', 'gloves', 'drone'] }, status.INVALID_ARGUMENT, /no label "gloves", "drone"; its labels are "pallet", "person", "forklift", "box"/],
    ];
    for (const [overrides, code, message] of cases) {
      const id = await submit(fast, overrides);
      const { job } = await until(fast, id, final);
      expect(job).toMatchObject({ status: TrainingStatus.TRAINING_STATUS_FAILED, progressPercent: 0, syncedModelId: '' });
      expect(job.error?.code).toBe(code);
      expect(job.error?.message).toMatch(message);
      expect(job.trainingEnded).toBeDefined();
    }
  });

  it('runs at most two jobs of an organization at once; the others wait PENDING and then run', async () => {
    const org = (await appCall(fast.t, 'createOrganization', { name: 'Queue' }, fast.owner)).organization!.id;
    const ds = new TrainingStore(fast.t.db()).addDataset({ orgId: org, name: 'Q', sizeBytes: 1, imageCount: 1, labels: ['pallet'], createdOn: Date.now() });
    const ids = [];
    for (let i = 0; i < 4; i++) ids.push(await submit(fast, { orgId: org, datasetId: ds, tags: ['pallet'] }));
    let most = 0;
    const deadline = Date.now() + 15_000;
    for (;;) {
      const jobs = (await trainingCall<{ jobs: TrainingJobMetadata[] }>(fast.client, 'listTrainingJobs', { orgId: org }, fast.owner)).jobs;
      most = Math.max(most, jobs.filter((j) => j.status === TrainingStatus.TRAINING_STATUS_RUNNING).length);
      if (jobs.every(final) || Date.now() > deadline) {
        expect(jobs.map((j) => j.status)).toEqual(ids.map(() => TrainingStatus.TRAINING_STATUS_SUCCEEDED));
        break;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(most).toBe(2);
  });
});

describe('CancelTrainingJob', () => {
  it('turns a PENDING or RUNNING job CANCELING, then CANCELED on the next tick, keeping its progress; cancelling again changes nothing', async () => {
    const org = (await appCall(slow.t, 'createOrganization', { name: 'Cancellers' }, slow.owner)).organization!.id;
    const ds = new TrainingStore(slow.t.db()).addDataset({ orgId: org, name: 'C', sizeBytes: 1, imageCount: 1, labels: ['pallet'], createdOn: Date.now() });
    const running = await submit(slow, { orgId: org, datasetId: ds, tags: ['pallet'] });
    await submit(slow, { orgId: org, datasetId: ds, tags: ['pallet'] });
    const pending = await submit(slow, { orgId: org, datasetId: ds, tags: ['pallet'] });
    await until(slow, running, (j) => j.status === TrainingStatus.TRAINING_STATUS_RUNNING);
    // Progress of a 60 s run: make it visible by moving the start back 30 s.
    slow.t.db().prepare('UPDATE training_jobs SET training_started = ? WHERE id = ?').run(new Date(Date.now() - 30_000).toISOString(), running);
    await until(slow, running, (j) => j.progressPercent >= 50);
    expect((await get(slow, pending)).status).toBe(TrainingStatus.TRAINING_STATUS_PENDING);

    for (const id of [pending, running]) {
      const before = await get(slow, id);
      await trainingCall(slow.client, 'cancelTrainingJob', { id }, slow.owner);
      const asked = await get(slow, id);
      expect([TrainingStatus.TRAINING_STATUS_CANCELING, TrainingStatus.TRAINING_STATUS_CANCELED]).toContain(asked.status);
      expect(asked.progressPercent).toBeGreaterThanOrEqual(before.progressPercent);
      const { job } = await until(slow, id, final);
      // Progress stays where the cancel found it.
      expect(job).toMatchObject({ status: TrainingStatus.TRAINING_STATUS_CANCELED, progressPercent: asked.progressPercent });
      expect(job.cancelRequested).toBeDefined();
      expect(job.trainingEnded!.getTime()).toBeGreaterThanOrEqual(job.cancelRequested!.getTime());
      await trainingCall(slow.client, 'cancelTrainingJob', { id }, slow.owner);
      expect(await get(slow, id)).toEqual(job);
    }
    expect((await get(slow, pending)).trainingStarted).toBeUndefined();
    expect((await get(slow, running)).progressPercent).toBeGreaterThanOrEqual(50);
  });

  it('answers FAILED_PRECONDITION TRAINING_JOB_COMPLETED for a SUCCEEDED or FAILED job, NOT_FOUND for an unknown id', async () => {
    const succeeded = await submit(fast);
    const failed = await submit(fast, { datasetId: 'missing' });
    for (const id of [succeeded, failed]) {
      await until(fast, id, final);
      await expectError(trainingCall(fast.client, 'cancelTrainingJob', { id }, fast.owner), { code: status.FAILED_PRECONDITION, reason: 'TRAINING_JOB_COMPLETED', message: /nothing to cancel/ });
    }
    await expectError(trainingCall(fast.client, 'cancelTrainingJob', { id: '00000000-0000-4000-8000-000000000000' }, fast.owner), { code: status.NOT_FOUND, reason: 'TRAINING_JOB_NOT_FOUND', field: 'id' });
    await expectError(trainingCall(fast.client, 'cancelTrainingJob', { id: '' }, fast.owner), { code: status.INVALID_ARGUMENT, reason: 'REQUIRED_FIELD_MISSING', field: 'id' });
  });
});

describe('DeleteCompletedTrainingJob', () => {
  it('deletes SUCCEEDED, FAILED and CANCELED jobs; refuses PENDING, RUNNING and CANCELING ones with FAILED_PRECONDITION TRAINING_JOB_NOT_COMPLETED', async () => {
    const succeeded = await submit(fast);
    const failed = await submit(fast, { datasetId: 'missing' });
    const canceled = await submit(fast);
    await trainingCall(fast.client, 'cancelTrainingJob', { id: canceled }, fast.owner);
    for (const id of [succeeded, failed, canceled]) {
      await until(fast, id, final);
      await trainingCall(fast.client, 'deleteCompletedTrainingJob', { id }, fast.owner);
      await expectError(get(fast, id), { code: status.NOT_FOUND, reason: 'TRAINING_JOB_NOT_FOUND' });
      await expectError(trainingCall(fast.client, 'deleteCompletedTrainingJob', { id }, fast.owner), { code: status.NOT_FOUND, reason: 'TRAINING_JOB_NOT_FOUND' });
    }
    const org = (await appCall(slow.t, 'createOrganization', { name: 'Busy' }, slow.owner)).organization!.id;
    const ds = new TrainingStore(slow.t.db()).addDataset({ orgId: org, name: 'B', sizeBytes: 1, imageCount: 1, labels: ['pallet'], createdOn: Date.now() });
    const running = await submit(slow, { orgId: org, datasetId: ds, tags: ['pallet'] });
    await submit(slow, { orgId: org, datasetId: ds, tags: ['pallet'] });
    const pending = await submit(slow, { orgId: org, datasetId: ds, tags: ['pallet'] });
    await until(slow, running, (j) => j.status === TrainingStatus.TRAINING_STATUS_RUNNING);
    for (const id of [running, pending]) {
      await expectError(trainingCall(slow.client, 'deleteCompletedTrainingJob', { id }, slow.owner), { code: status.FAILED_PRECONDITION, reason: 'TRAINING_JOB_NOT_COMPLETED', message: /is (RUNNING|PENDING), not completed/ });
    }
    // CANCELING lasts until the next tick: set it in the row to see the answer.
    slow.t.db().prepare('UPDATE training_jobs SET status = 5 WHERE id = ?').run(pending);
    await expectError(trainingCall(slow.client, 'deleteCompletedTrainingJob', { id: pending }, slow.owner), { code: status.FAILED_PRECONDITION, reason: 'TRAINING_JOB_NOT_COMPLETED', message: /CANCELING/ }).catch(async (e: unknown) => {
      // The runner may have turned it CANCELED in between; then it is deletable (and the call above deleted it).
      const now = await get(slow, pending).then(
        (j) => j.status,
        (gone: { code?: number }) => (gone.code === status.NOT_FOUND ? TrainingStatus.TRAINING_STATUS_CANCELED : Promise.reject(gone)),
      );
      if (now !== TrainingStatus.TRAINING_STATUS_CANCELED) throw e;
    });
  });
});

describe('ListTrainingJobs and ListTrainingDatasets', () => {
  let org: string;
  let ids: string[];
  beforeAll(async () => {
    org = (await appCall(slow.t, 'createOrganization', { name: 'Listed' }, slow.owner)).organization!.id;
    const ds = new TrainingStore(slow.t.db()).addDataset({ orgId: org, name: 'L', sizeBytes: 1, imageCount: 1, labels: ['pallet'], createdOn: Date.now() });
    ids = [];
    for (let i = 0; i < 5; i++) ids.push(await submit(slow, { orgId: org, datasetId: ds, tags: ['pallet'] }));
    await until(slow, ids[1]!, (j) => j.status === TrainingStatus.TRAINING_STATUS_RUNNING);
  });
  const list = (request: Record<string, unknown>) => trainingCall<{ jobs: TrainingJobMetadata[]; nextPageToken: string }>(slow.client, 'listTrainingJobs', { orgId: org, ...request }, slow.owner);

  it('lists the organization\'s jobs newest first, filtered by status (UNSPECIFIED = all)', async () => {
    expect((await list({})).jobs.map((j) => j.id)).toEqual([...ids].reverse());
    expect((await list({ status: TrainingStatus.TRAINING_STATUS_RUNNING })).jobs.map((j) => j.id)).toEqual([ids[1], ids[0]]);
    expect((await list({ status: TrainingStatus.TRAINING_STATUS_PENDING })).jobs.map((j) => j.id)).toEqual([ids[4], ids[3], ids[2]]);
    expect((await list({ status: TrainingStatus.TRAINING_STATUS_SUCCEEDED })).jobs).toEqual([]);
    await expectError(list({ status: 7 }), { code: status.INVALID_ARGUMENT, reason: 'ENUM_VALUE_INVALID', field: 'status' });
    await expectError(list({ status: -1 }), { code: status.INVALID_ARGUMENT, reason: 'ENUM_VALUE_INVALID', field: 'status' });
  });

  it('pages with page_size (0 = 100, at most 1000) and signed page tokens bound to the request', async () => {
    const seen: string[] = [];
    let token = '';
    let pages = 0;
    do {
      const page = await list({ pageSize: 2, pageToken: token });
      seen.push(...page.jobs.map((j) => j.id));
      token = page.nextPageToken;
      pages += 1;
    } while (token !== '');
    expect(seen).toEqual([...ids].reverse());
    expect(pages).toBe(3);
    const first = await list({ pageSize: 2 });
    await expectError(list({ pageSize: 2, pageToken: first.nextPageToken, status: TrainingStatus.TRAINING_STATUS_PENDING }), { code: status.INVALID_ARGUMENT, reason: 'PAGE_TOKEN_INVALID' });
    await expectError(list({ pageToken: 'forged.token' }), { code: status.INVALID_ARGUMENT, reason: 'PAGE_TOKEN_INVALID' });
    await expectError(list({ pageSize: -1 }), { code: status.INVALID_ARGUMENT, reason: 'PAGE_SIZE_INVALID', field: 'page_size' });
    expect((await list({ pageSize: 5000 })).jobs).toHaveLength(5);
  });

  it('lists with modified_since only the jobs modified at or after it, newest first, through the last_modified index; its page tokens are bound to it', async () => {
    const since = new Date(Date.now() - 1);
    await trainingCall(slow.client, 'cancelTrainingJob', { id: ids[4] }, slow.owner);
    const changed = (await list({ modifiedSince: since })).jobs;
    expect(changed.map((j) => j.id)).toContain(ids[4]);
    // Waiting PENDING jobs did not change; the running ones may have (their progress moves).
    expect(changed.map((j) => j.id)).not.toContain(ids[2]);
    expect(changed.map((j) => j.id)).not.toContain(ids[3]);
    for (const job of changed) expect(job.lastModified!.getTime()).toBeGreaterThanOrEqual(since.getTime());
    expect((await list({ modifiedSince: new Date(Date.now() + 60_000) })).jobs).toEqual([]);
    expect((await list({ modifiedSince: new Date(0) })).jobs.map((j) => j.id)).toEqual([...ids].reverse());
    const first = await list({ pageSize: 2, modifiedSince: new Date(0) });
    await expectError(list({ pageSize: 2, pageToken: first.nextPageToken }), { code: status.INVALID_ARGUMENT, reason: 'PAGE_TOKEN_INVALID' });
    const plan = slow.t
      .db()
      .prepare("EXPLAIN QUERY PLAN SELECT id FROM training_jobs j WHERE j.organization_id = ? AND j.last_modified >= ? ORDER BY j.created_on DESC, j.id DESC")
      .all(org, since.toISOString()) as { detail: string }[];
    expect(plan.map((p) => p.detail).join('\n')).toContain('training_jobs_by_modified');
  });

  it('lists datasets of the organization, newest first, with size, image count and labels', async () => {
    const { datasets } = await trainingCall<{ datasets: training.TrainingDataset[] }>(fast.client, 'listTrainingDatasets', { orgId: fast.orgId }, fast.owner);
    expect(datasets.map((d) => d.name)).toEqual(['Pallets', 'Archived scans']);
    expect(datasets[0]).toMatchObject({ id: fast.dataset, orgId: fast.orgId, sizeBytes: 1_000_000, imageCount: 1200, labels: ['pallet', 'person', 'forklift', 'box'] });
    expect(datasets[0]!.createdOn!.getTime()).toBeGreaterThan(datasets[1]!.createdOn!.getTime());
    expect((await trainingCall<{ datasets: unknown[] }>(slow.client, 'listTrainingDatasets', { orgId: org }, slow.owner)).datasets).toHaveLength(1);
  });

  it('lists every version each model took, oldest first: by jobs (deleted ones too) and uploads to its ML model item, with the item', async () => {
    const org = (await appCall(slow.t, 'createOrganization', { name: 'Versions Ledger' }, slow.owner)).organization!.id;
    const ds = new TrainingStore(slow.t.db()).addDataset({ orgId: org, name: 'V', sizeBytes: 1, imageCount: 1, labels: ['pallet'], createdOn: Date.now() });
    const models = async () => (await trainingCall<{ models: training.TrainedModel[] }>(slow.client, 'listModelVersions', { orgId: org }, slow.owner)).models;
    expect(await models()).toEqual([]);
    await submit(slow, { orgId: org, datasetId: ds, modelName: 'ledger', modelVersion: '1', tags: ['pallet'] });
    const second = await submit(slow, { orgId: org, datasetId: ds, modelName: 'ledger', modelVersion: '2', tags: ['pallet'] });
    await trainingCall(slow.client, 'cancelTrainingJob', { id: second }, slow.owner);
    await until(slow, second, final);
    await trainingCall(slow.client, 'deleteCompletedTrainingJob', { id: second }, slow.owner);
    await appCall(slow.t, 'createRegistryItem', { organizationId: org, name: 'uploaded', type: PackageType.PACKAGE_TYPE_ML_MODEL }, slow.owner);
    await uploadFile(slow.t, { moduleId: `${org}:uploaded`, version: '0.9.0', platform: 'linux/any' }, [Buffer.from('weights')], slow.owner);
    expect(await models()).toEqual([
      { modelName: 'ledger', versions: ['1', '2'], registryItemId: '' },
      { modelName: 'uploaded', versions: ['0.9.0'], registryItemId: `${org}:uploaded` },
    ]);
    // Another organization's models are not listed.
    expect((await trainingCall<{ models: unknown[] }>(slow.client, 'listModelVersions', { orgId: slow.orgId }, slow.owner)).models.some((m) => (m as training.TrainedModel).modelName === 'ledger')).toBe(false);
  });
});

describe('permissions on jobs', () => {
  it('answers a job of an organization the caller cannot see NOT_FOUND like an unknown id; one it sees without owner PERMISSION_DENIED', async () => {
    const id = await submit(slow);
    const other = await createKeyWithOrg(slow.t, 'Outsider');
    const outsider = bearer(await tokenFor(slow.t, other.keyId, other.secret));
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const method of ['getTrainingJob', 'cancelTrainingJob', 'deleteCompletedTrainingJob'] as const) {
      const hidden = await expectError(trainingCall(slow.client, method, { id }, outsider), { code: status.NOT_FOUND, reason: 'TRAINING_JOB_NOT_FOUND', field: 'id' });
      const missing = await expectError(trainingCall(slow.client, method, { id: unknown }, outsider), { code: status.NOT_FOUND, reason: 'TRAINING_JOB_NOT_FOUND' });
      expect(hidden.details.replace(id, 'ID')).toBe(missing.details.replace(unknown, 'ID'));
      for (const grant of [
        { resourceType: 'organization' as const, resourceId: slow.orgId, role: 'operator' as const },
        { resourceType: 'location' as const, resourceId: (await appCall(slow.t, 'createLocation', { orgId: slow.orgId, name: `Site ${method}` }, slow.owner)).location!.id, role: 'owner' as const },
      ]) {
        const key = await scopedKey(slow.t, [{ ...grant, organizationId: slow.orgId }]);
        await expectError(trainingCall(slow.client, method, { id }, key.metadata), { code: status.PERMISSION_DENIED, reason: 'PERMISSION_DENIED', message: `needs owner on organization ${slow.orgId}` });
      }
    }
  });
});

describe('a restart', () => {
  it('keeps every job: a RUNNING one goes on by its clock (finishing at once if its time passed), CANCELING becomes CANCELED, PENDING waits its turn', async () => {
    const dir = tempDir();
    try {
      const options = { listen: '127.0.0.1:0', dataDir: dir.path, log: () => undefined, simulate: false, training: { runMs: 1500, pendingMs: 0, tickMs: 20 } };
      let service = await startService(options);
      let client = new MLTrainingServiceClient(service.address, credentials.createInsecure());
      const db = () => openDatabase(join(dir.path, DATABASE_FILE));
      const setup = db();
      const orgId = service.bootstrap.orgId;
      const ds = new TrainingStore(setup).addDataset({ orgId, name: 'R', sizeBytes: 1, imageCount: 1, labels: ['pallet'], createdOn: Date.now() });
      setup.close();
      const token = async () => {
        const auth = new AuthServiceClient(service.address, credentials.createInsecure());
        const r = await call(auth.authenticate.bind(auth), { entity: service.bootstrap.apiKeyId, credentials: { type: 'api-key', payload: service.bootstrap.apiKey } });
        auth.close();
        return bearer(r.accessToken);
      };
      let md = await token();
      const ask = (id: string) => trainingCall<{ metadata: TrainingJobMetadata }>(client, 'getTrainingJob', { id }, md).then((r) => r.metadata);
      const submitted = async (v: string) => (await trainingCall<{ id: string }>(client, 'submitTrainingJob', { orgId, datasetId: ds, modelName: 'restarted', modelVersion: v, modelType: ModelType.MODEL_TYPE_OBJECT_DETECTION, tags: ['pallet'] }, md)).id;
      const a = await submitted('1');
      const b = await submitted('2');
      const c = await submitted('3');
      for (;;) {
        const [ja, jb] = [await ask(a), await ask(b)];
        if (ja.status === TrainingStatus.TRAINING_STATUS_RUNNING && jb.status === TrainingStatus.TRAINING_STATUS_RUNNING) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      expect((await ask(c)).status).toBe(TrainingStatus.TRAINING_STATUS_PENDING);
      client.close();
      await service.close();

      // While it is down: b is found CANCELING; a's run time passes.
      const down = db();
      down.prepare("UPDATE training_jobs SET status = 5, cancel_requested = ? WHERE id = ?").run(new Date().toISOString(), b);
      down.close();
      await new Promise((r) => setTimeout(r, 1600));

      service = await startService(options);
      client = new MLTrainingServiceClient(service.address, credentials.createInsecure());
      md = await token();
      expect(await ask(a)).toMatchObject({ status: TrainingStatus.TRAINING_STATUS_SUCCEEDED, progressPercent: 100, syncedModelId: `${orgId}:restarted` });
      expect((await ask(b)).status).toBe(TrainingStatus.TRAINING_STATUS_CANCELED);
      const deadline = Date.now() + 10_000;
      let jc = await ask(c);
      while (!final(jc) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
        jc = await ask(c);
      }
      expect(jc.status).toBe(TrainingStatus.TRAINING_STATUS_SUCCEEDED);
      client.close();
      await service.close();
    } finally {
      dir.remove();
    }
  });
});

describe('the pending-job cap', () => {
  it('refuses a submission past --max-pending-jobs PENDING jobs with RESOURCE_EXHAUSTED TRAINING_QUEUE_FULL, for that organization only, and takes them again once jobs start or are canceled', async () => {
    const f = await fixture({ runMs: 60_000, pendingMs: 0, tickMs: 20, maxPendingJobs: 3 }, 'Capped Trainers');
    try {
      const script = await trainingScript(f, 'capped-script', false);
      const running = [await submit(f), await submit(f)];
      for (const id of running) await until(f, id, (j) => j.status === TrainingStatus.TRAINING_STATUS_RUNNING);
      // The run slots are taken: these three wait, and fill the queue.
      const pending = [await submit(f), await submit(f), await submit(f)];
      const full = { code: status.RESOURCE_EXHAUSTED, reason: 'TRAINING_QUEUE_FULL', message: /has 3 training jobs PENDING, the most .* wait until some of them start, or cancel some with CancelTrainingJob, then submit again/ };
      await expectError(submit(f), full);
      await expectError(trainingCall(f.client, 'submitCustomTrainingJob', { orgId: f.orgId, datasetId: f.dataset, modelName: 'custom', modelVersion: version(), registryItemId: script, registryItemVersion: '1.0.0' }, f.owner), full);

      const other = (await appCall(f.t, 'createOrganization', { name: 'Uncapped Neighbours' }, f.owner)).organization!.id;
      for (let i = 0; i < 3; i++) await submit(f, { orgId: other });

      // Two at once for one place: one gets it.
      await trainingCall(f.client, 'cancelTrainingJob', { id: pending[2]! }, f.owner);
      const raced = await Promise.allSettled([submit(f), submit(f)]);
      expect(raced.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of raced) if (r.status === 'rejected') expect((r.reason as { code: status }).code).toBe(status.RESOURCE_EXHAUSTED);

      // A run ends, the oldest waiting job starts, and its place in the queue is free again.
      await trainingCall(f.client, 'cancelTrainingJob', { id: running[0]! }, f.owner);
      await until(f, pending[0]!, (j) => j.status === TrainingStatus.TRAINING_STATUS_RUNNING);
      await submit(f);
      await expectError(submit(f), full);
    } finally {
      f.client.close();
      await f.t.stop();
    }
  });
});

describe('the runner, tick by tick', () => {
  const T0 = Date.parse('2026-11-26T08:00:00.000Z');
  const cleanups: (() => void)[] = [];
  afterAll(() => {
    for (const c of cleanups.splice(0)) c();
  });

  /** A migrated database of its own, on a temp dir, with the registry's files beside it (as the runner publishes into them). */
  function standalone(): { db: Database.Database; files: ModelShelf } {
    const dir = tempDir();
    const db = openDatabase(join(dir.path, DATABASE_FILE));
    cleanups.push(() => {
      db.close();
      dir.remove();
    });
    migrate(db, serviceMigrations);
    return { db, files: new ModelShelf(db, new RegistryFiles(dir.path)) };
  }

  /** An organization with a dataset labelled `pallet`; answers both ids. */
  function organization(db: Database.Database, n: number): { orgId: string; datasetId: string } {
    const orgId = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
    db.prepare('INSERT INTO organizations (id, name, created_on) VALUES (?, ?, ?)').run(orgId, `Org ${n}`, new Date(T0).toISOString());
    const datasetId = new TrainingStore(db).addDataset({ orgId, name: 'Pallets', sizeBytes: 1, imageCount: 1, labels: ['pallet'], createdOn: T0 });
    return { orgId, datasetId };
  }

  /** `n` PENDING jobs of the organization, created a millisecond apart from `T0` on, inserted newest first; answers their ids oldest first. */
  function queue(db: Database.Database, org: { orgId: string; datasetId: string }, n: number): string[] {
    const ids = Array.from({ length: n }, () => randomUUID());
    const insert = db.prepare(
      `INSERT INTO training_jobs (id, organization_id, dataset_id, model_name, model_version, model_type, tags, is_custom, status, created_on, last_modified)
       VALUES (?, ?, ?, 'queued', ?, 3, '["pallet"]', 0, 1, ?, ?)`,
    );
    db.transaction(() => {
      for (let i = n - 1; i >= 0; i--) insert.run(ids[i], org.orgId, org.datasetId, `v${i}`, new Date(T0 + i).toISOString(), new Date(T0 + i).toISOString());
    })();
    return ids;
  }

  const statusOf = (db: Database.Database, id: string) => db.prepare('SELECT status FROM training_jobs WHERE id = ?').pluck().get(id) as TrainingStatus;
  const running = (db: Database.Database) => db.prepare('SELECT id FROM training_jobs WHERE status = 2 ORDER BY id').pluck().all() as string[];

  /** `db` as the runner sees it, counting the statements it runs and the rows they answer. */
  function counting(db: Database.Database): { db: Database.Database; work: { statements: number; rows: number } } {
    const work = { statements: 0, rows: 0 };
    const statement = (s: Database.Statement): Database.Statement => {
      const counted: Database.Statement = new Proxy(s, {
        get(target, key) {
          const value = Reflect.get(target, key, target) as unknown;
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            const result = (value as (...a: unknown[]) => unknown).apply(target, args);
            // pluck(), raw(), expand() answer the statement: keep counting through it.
            if (result === target) return counted;
            if (key === 'run' || key === 'get' || key === 'all' || key === 'iterate') work.statements += 1;
            if (key === 'get' && result !== undefined) work.rows += 1;
            if (key === 'all') work.rows += (result as unknown[]).length;
            return result;
          };
        },
      });
      return counted;
    };
    const proxy = new Proxy(db, {
      get(target, key) {
        if (key === 'prepare') return (sql: string) => statement(target.prepare(sql));
        const value = Reflect.get(target, key, target) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    return { db: proxy, work };
  }

  it('does the same work per tick with 100 or 10,000 jobs queued, and still starts the oldest first, two per organization', () => {
    const timing = trainingTiming({ runMs: 3_600_000, pendingMs: 1_000, tickMs: 1_000 });
    const measured = [100, 10_000].map((length) => {
      const { db, files } = standalone();
      const big = organization(db, 1);
      const small = organization(db, 2);
      const bigQueue = queue(db, big, length);
      const smallQueue = queue(db, small, 3);
      const { db: watched, work } = counting(db);
      const runner = new TrainingRunner(watched, files, (line) => expect.fail(line), timing);
      const ticks: { statements: number; rows: number }[] = [];
      const tick = (at: number) => {
        const before = { ...work };
        runner.tick(at);
        ticks.push({ statements: work.statements - before.statements, rows: work.rows - before.rows });
      };

      // Nothing has waited its pending time yet.
      tick(T0 + 999);
      expect(running(db)).toEqual([]);
      // The two oldest of each organization start; the rest wait for a slot.
      tick(T0 + 10_000);
      expect(running(db)).toEqual([bigQueue[0], bigQueue[1], smallQueue[0], smallQueue[1]].sort());
      tick(T0 + 11_000);
      expect(running(db)).toHaveLength(2 * MAX_RUNNING_PER_ORG);
      // A slot frees: the oldest waiting job of that organization takes it.
      new TrainingStore(db).cancel(bigQueue[0]!, T0 + 11_500);
      tick(T0 + 12_000);
      expect(statusOf(db, bigQueue[0]!)).toBe(TrainingStatus.TRAINING_STATUS_CANCELED);
      expect(running(db)).toEqual([bigQueue[1], bigQueue[2], smallQueue[0], smallQueue[1]].sort());
      expect(statusOf(db, bigQueue[3]!)).toBe(TrainingStatus.TRAINING_STATUS_PENDING);
      return ticks;
    });
    expect(measured[1]).toEqual(measured[0]);
  });

  it('logs a full disk once, whatever the jobs and ticks it stops, keeps every job, and logs once more when there is room again', () => {
    const { db, files } = standalone();
    const orgs = [1, 2, 3].map((n) => organization(db, n));
    const queues = orgs.map((org) => queue(db, org, 20));
    const timing = trainingTiming({ runMs: 60_000, pendingMs: 0, tickMs: 1_000 });
    // One job of the first organization has run its time: publishing its model needs room too.
    const finished = queues[0]![0]!;
    db.prepare('UPDATE training_jobs SET status = 2, training_started = ? WHERE id = ?').run(new Date(T0 - 120_000).toISOString(), finished);

    // The database may not grow past what it holds, and every write of a job needs room (a megabyte).
    db.exec('CREATE TABLE ballast (bytes BLOB NOT NULL) STRICT');
    db.exec('CREATE TEMP TRIGGER needs_room AFTER UPDATE ON training_jobs BEGIN INSERT INTO ballast VALUES (zeroblob(1048576)); END');
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);

    const logs: string[] = [];
    const runner = new TrainingRunner(db, files, (line) => logs.push(line), timing);
    for (let i = 0; i < 5; i++) runner.tick(T0 + 1_000 * i);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/database or disk is full \(SQLITE_FULL\).*free space on the disk that holds the data dir/);
    expect(logs[0]).not.toMatch(/\n\s+at /);
    expect(running(db)).toEqual([finished]);
    expect(db.prepare('SELECT count(*) FROM training_jobs WHERE status = 1').pluck().get()).toBe(59);

    // Another condition is logged, once.
    db.pragma('query_only = ON');
    for (let i = 5; i < 8; i++) runner.tick(T0 + 1_000 * i);
    expect(logs).toHaveLength(2);
    expect(logs[1]).toMatch(/SQLITE_READONLY.*writable/);
    db.pragma('query_only = OFF');

    db.pragma('max_page_count = 1000000');
    runner.tick(T0 + 9_000);
    runner.tick(T0 + 10_000);
    expect(logs).toHaveLength(3);
    expect(logs[2]).toMatch(/takes writes again \(SQLITE_READONLY is over\); training jobs go on/);
    expect(statusOf(db, finished)).toBe(TrainingStatus.TRAINING_STATUS_SUCCEEDED);
    expect(running(db)).toEqual([queues[0]![1], queues[0]![2], queues[1]![0], queues[1]![1], queues[2]![0], queues[2]![1]].sort());
  });
});
