/**
 * ML training through the backend, as the renderer calls it, against the real local service (its
 * demo fleet's datasets, jobs and training scripts) with jobs shortened to a few seconds: the jobs
 * cached for offline reading, submitting and following a job to its end (event, notification,
 * badge, the published model version), the version rule, cancelling, deleting several at once, a
 * custom job from a registry training script, and an uploaded training script of our own.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { create as createTar } from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrainingEnded, TrainingJob } from '../../common/training';
import { FleetClient } from '../../main/grpc/client';
import { openTestBackend, tempDir, type TestBackend } from '../helpers/backend';

let dir: ReturnType<typeof tempDir>;
let app: TestBackend;
let orgId: string;
const notices: { title: string; body: string; orgId: string; jobId: string }[] = [];
const badges: number[] = [];
const ended: TrainingEnded[] = [];
let previousSeconds: string | undefined;

const timing = { retryMinMs: 100, retryMaxMs: 500, refreshMs: 60_000, deadlineMs: 5_000, trainingPollMinMs: 150, trainingPollMaxMs: 600 };

/** The app on the test's data dir, with the host's notification and badge recorded, started. */
async function openApp(): Promise<TestBackend> {
  const opened = await openTestBackend(join(dir.path, 'app'), {
    timing,
    notify: (n) => {
      notices.push(n);
      return true;
    },
    setBadge: (n) => badges.push(n),
  });
  opened.backend.events.subscribe((event, payload) => {
    if (event === 'training.ended') ended.push(payload as TrainingEnded);
  });
  await opened.backend.start();
  return opened;
}

beforeAll(async () => {
  // The local service is forked with this environment: its jobs run 2 s instead of minutes.
  previousSeconds = process.env.FLEET_SERVICE_TRAINING_SECONDS;
  process.env.FLEET_SERVICE_TRAINING_SECONDS = '2';
  dir = tempDir('fleet-desk-training-');
  app = await openApp();
  orgId = (await app.value('orgs.list', {})).orgs.find((o) => o.name === 'Acme Warehouse Robotics')!.id;
}, 60_000);
afterAll(async () => {
  await app?.close();
  dir?.remove();
  if (previousSeconds === undefined) delete process.env.FLEET_SERVICE_TRAINING_SECONDS;
  else process.env.FLEET_SERVICE_TRAINING_SECONDS = previousSeconds;
});

const until = async <T>(read: () => Promise<T> | T, check: (value: T) => boolean, timeoutMs = 30_000, what = 'condition'): Promise<T> => {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(value).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

const job = async (jobId: string): Promise<TrainingJob> => (await app.value('training.get', { jobId })).job;

/** A version no job has taken: the models' own proposal. */
async function freeVersion(modelName: string): Promise<string> {
  const model = (await app.value('training.models', { orgId })).find((m) => m.name === modelName);
  return model?.nextVersion ?? '1';
}

async function dataset() {
  const datasets = await app.value('training.datasets', { orgId });
  const usable = datasets.find((d) => d.labels.length > 0 && d.imageCount > 0 && !/unreadable|corrupt/i.test(d.name));
  expect(usable).toBeDefined();
  return usable!;
}

describe('training jobs in the cache', () => {
  it('syncs the demo organization’s jobs, every status among them, newest first, with the counts for the badge', async () => {
    const list = await app.value('training.list', { orgId });
    expect(list.fromCache).toBe(false);
    for (const status of ['succeeded', 'failed', 'canceled'] as const) expect(list.jobs.some((j) => j.status === status)).toBe(true);
    const created = list.jobs.map((j) => j.createdOn ?? '');
    expect([...created].sort().reverse()).toEqual(created);
    const failed = list.jobs.find((j) => j.status === 'failed')!;
    expect(failed.error?.message.length).toBeGreaterThan(10);
    // Each job names its dataset, so the list reads the same offline.
    expect(list.jobs.every((j) => j.datasetName !== '')).toBe(true);
    expect(list.jobs.some((j) => j.custom && j.registryItemId !== '')).toBe(true);
    const succeeded = (await app.value('training.list', { orgId, status: 'succeeded' })).jobs;
    expect(succeeded.length).toBeGreaterThan(0);
    expect(succeeded.every((j) => j.status === 'succeeded' && j.progressPercent === 100 && j.syncedModelId !== '')).toBe(true);
    const summary = await app.value('training.summary', {});
    const cached = list.jobs.filter((j) => j.status === 'running').length;
    expect(summary.byOrg[orgId]?.running ?? 0).toBe(cached);
  });

  it('sends a whole list in parts when asked: the first jobs with `more`, then the rest after the last one, together the whole list', async () => {
    const whole = await app.value('training.list', { orgId });
    expect(whole.more).toBe(false);
    const first = await app.value('training.list', { orgId, limit: 2 });
    expect(first).toMatchObject({ delta: false, more: true, total: whole.total });
    expect(first.jobs.map((j) => j.id)).toEqual(whole.jobs.slice(0, 2).map((j) => j.id));
    const last = first.jobs.at(-1)!;
    const rest = await app.value('training.list', { orgId, after: { createdOn: last.createdOn, id: last.id } });
    expect(rest.more).toBe(false);
    expect([...first.jobs, ...rest.jobs].map((j) => j.id)).toEqual(whole.jobs.map((j) => j.id));
    // A delta is sent whole: the limit does not cut it.
    const delta = await app.value('training.list', { orgId, since: '2000-01-01T00:00:00.000Z', limit: 1 });
    expect(delta).toMatchObject({ delta: true, more: false });
    expect(delta.jobs.length).toBe(whole.jobs.length);
  });

  it('offers the organization’s datasets with names, sizes and labels, and the models with their versions taken and the next one proposed', async () => {
    const datasets = await app.value('training.datasets', { orgId });
    expect(datasets.length).toBeGreaterThan(1);
    expect(datasets.every((d) => d.orgId === orgId && d.name !== '' && d.sizeBytes > 0)).toBe(true);
    // Recently used first: the datasets the demo jobs trained on come before the unused ones.
    const used = datasets.map((d) => d.lastUsedOn !== null);
    expect(used.indexOf(false) === -1 || !used.slice(used.indexOf(false)).includes(true)).toBe(true);
    const models = await app.value('training.models', { orgId });
    expect(models.length).toBeGreaterThan(0);
    for (const model of models) {
      expect(model.versions).not.toContain(model.nextVersion);
      expect(model.nextVersion).not.toBe('');
    }
  });
});

describe('a job from submit to its end', () => {
  it('goes pending → running → succeeded, is announced with a notification and the badge, and publishes the model version in the registry', async () => {
    const data = await dataset();
    const modelName = `yard-test-${Date.now().toString(36)}`;
    const submitted = await app.value('training.submit', { orgId, datasetId: data.id, modelName, modelVersion: '1', modelType: 'single_label_classification', tags: [data.labels[0]!] });
    expect(submitted).toMatchObject({ orgId, modelName, modelVersion: '1', status: 'pending', watched: true, custom: false });
    const seen = new Set<string>([submitted.status]);
    const done = await until(
      async () => {
        const current = await job(submitted.id);
        seen.add(current.status);
        return current;
      },
      (j) => j.status === 'succeeded' || j.status === 'failed',
      40_000,
      'the job to end',
    );
    expect(done.error).toBeNull();
    expect(done.status).toBe('succeeded');
    expect(seen.has('running')).toBe(true);
    expect(done.progressPercent).toBe(100);
    expect(done.startedOn! >= done.createdOn!).toBe(true);
    expect(done.endedOn! >= done.startedOn!).toBe(true);
    // Announced once, with a desktop notification shown by the host.
    const announced = await until(() => ended.filter((e) => e.job.id === submitted.id), (e) => e.length > 0, 10_000, 'training.ended');
    expect(announced).toHaveLength(1);
    expect(announced[0]).toMatchObject({ notified: true, job: { status: 'succeeded' } });
    expect(notices.find((n) => n.jobId === submitted.id)).toMatchObject({ orgId, title: `Training succeeded: ${modelName} 1` });
    expect(badges.some((n) => n > 0)).toBe(true);
    // The model is a version of an ML model item of the organization.
    expect(done.syncedModelId).not.toBe('');
    const item = await app.value('registry.get', { itemId: done.syncedModelId });
    expect(item).toMatchObject({ type: 'ml_model', orgId, name: modelName, status: 'published' });
    const versions = await app.value('registry.versions', { itemId: done.syncedModelId });
    expect(versions.map((v) => v.version)).toEqual(['1']);
    expect(versions[0]!.files[0]!.sha256).toMatch(/^[0-9a-f]{64}$/);
    // The version is taken, and 2 is proposed next.
    const model = (await app.value('training.models', { orgId })).find((m) => m.name === modelName);
    expect(model).toMatchObject({ versions: ['1'], nextVersion: '2', modelType: 'single_label_classification', registryItemId: done.syncedModelId });
  }, 60_000);

  it('refuses a version the model already used, saying so, and changes nothing', async () => {
    const data = await dataset();
    const taken = (await app.value('training.models', { orgId })).find((m) => m.versions.length > 0)!;
    const before = (await app.value('training.list', { orgId })).jobs.length;
    const answer = await app.call('training.submit', { orgId, datasetId: data.id, modelName: taken.name, modelVersion: taken.versions[0]!, modelType: 'object_detection', tags: [data.labels[0]!] });
    expect(answer).toMatchObject({ ok: false, error: { kind: 'conflict' } });
    if (!answer.ok) expect(answer.error.message).toContain(taken.versions[0]!);
    expect((await app.value('training.list', { orgId })).jobs.length).toBe(before);
  });

  it('refuses a malformed request before the service sees it', async () => {
    const answer = await app.call('training.submit', { orgId, datasetId: 'd', modelName: 'Bad Name', modelVersion: '1', modelType: 'object_detection', tags: ['a', 'a'] });
    expect(answer).toMatchObject({ ok: false, error: { kind: 'invalid' } });
  });

  it('ends a job whose dataset cannot be read as failed, with the reason, announced as such', async () => {
    const modelName = `broken-${Date.now().toString(36)}`;
    const submitted = await app.value('training.submit', { orgId, datasetId: 'no-such-dataset', modelName, modelVersion: '1', modelType: 'object_detection', tags: ['cone'] });
    const done = await until(() => job(submitted.id), (j) => j.status === 'failed' || j.status === 'succeeded', 40_000, 'the job to fail');
    expect(done.status).toBe('failed');
    expect(done.datasetName).toBe('');
    expect(done.error?.message).toContain('no-such-dataset');
    const announced = await until(() => ended.filter((e) => e.job.id === submitted.id), (e) => e.length > 0, 10_000, 'training.ended');
    expect(notices.find((n) => n.jobId === submitted.id)?.title).toBe(`Training failed: ${modelName} 1`);
    expect(announced[0]!.job.error?.message).toContain('no-such-dataset');
  }, 60_000);
});

describe('cancelling and deleting', () => {
  it('cancels a pending or running job (canceling, then canceled) and refuses to cancel a finished one', async () => {
    const data = await dataset();
    const modelName = `cancel-${Date.now().toString(36)}`;
    const submitted = await app.value('training.submit', { orgId, datasetId: data.id, modelName, modelVersion: '1', modelType: 'object_detection', tags: [data.labels[0]!] });
    const canceling = await app.value('training.cancel', { jobId: submitted.id });
    expect(['canceling', 'canceled']).toContain(canceling.status);
    expect(canceling.cancelRequestedOn).not.toBeNull();
    const done = await until(() => job(submitted.id), (j) => j.status === 'canceled', 20_000, 'canceled');
    expect(done.syncedModelId).toBe('');
    const finished = (await app.value('training.list', { orgId, status: 'succeeded' })).jobs[0]!;
    const refused = await app.call('training.cancel', { jobId: finished.id });
    expect(refused).toMatchObject({ ok: false, error: { kind: 'invalid' } });
    // Cancelled by the user: not announced as an end.
    expect(ended.some((e) => e.job.id === submitted.id)).toBe(false);
  }, 40_000);

  it('deletes several completed jobs at once and says which could not be (a running one), keeping the rest', async () => {
    const data = await dataset();
    const modelName = `delete-${Date.now().toString(36)}`;
    const running = await app.value('training.submit', { orgId, datasetId: data.id, modelName, modelVersion: '1', modelType: 'object_detection', tags: [data.labels[0]!] });
    const completed = (await app.value('training.list', { orgId })).jobs.filter((j) => ['succeeded', 'failed', 'canceled'].includes(j.status)).slice(0, 2);
    expect(completed).toHaveLength(2);
    const answer = await app.value('training.delete', { jobIds: [...completed.map((j) => j.id), running.id, 'no-such-job'] });
    expect(answer.deleted).toEqual(completed.map((j) => j.id));
    expect(answer.failed.map((f) => [f.jobId, f.error.kind])).toEqual([
      [running.id, 'invalid'],
      ['no-such-job', 'not-found'],
    ]);
    const left = (await app.value('training.list', { orgId })).jobs.map((j) => j.id);
    for (const j of completed) expect(left).not.toContain(j.id);
    expect(left).toContain(running.id);
    // A deleted job's version stays taken.
    const again = await app.call('training.submit', { orgId, datasetId: data.id, modelName: completed[0]!.modelName, modelVersion: completed[0]!.modelVersion, modelType: 'object_detection', tags: [data.labels[0]!] });
    expect(again).toMatchObject({ ok: false, error: { kind: 'conflict' } });
    await app.value('training.cancel', { jobId: running.id });
  }, 30_000);

  it('counts a cached job another client deleted meanwhile as deleted, and forgets it', async () => {
    const target = (await app.value('training.list', { orgId })).jobs.find((j) => ['succeeded', 'failed', 'canceled'].includes(j.status))!;
    const credentials = JSON.parse(readFileSync(join(dir.path, 'app', 'local-service', 'bootstrap-credentials.json'), 'utf8')) as { api_key_id: string; api_key: string };
    const { address } = await app.value('connection.get', {});
    const client = new FleetClient({ address, tls: false, apiKeyId: credentials.api_key_id, apiKey: credentials.api_key });
    try {
      await client.call('delete', client.training.deleteCompletedTrainingJob, { id: target.id });
    } finally {
      client.close();
    }
    const answer = await app.value('training.delete', { jobIds: [target.id] });
    expect(answer).toEqual({ deleted: [target.id], failed: [] });
    expect(await app.call('training.get', { jobId: target.id })).toMatchObject({ ok: false, error: { kind: 'not-found' } });
  });
});

describe('custom training', () => {
  it('runs a registry training script of the demo fleet, at one of its uploaded versions', async () => {
    const data = await dataset();
    const scripts = await app.value('training.scripts', { orgId });
    const script = scripts.find((s) => s.versions.length > 0);
    expect(script).toBeDefined();
    const version = script!.versions.at(-1)!.version;
    const modelName = `custom-${Date.now().toString(36)}`;
    const submitted = await app.value('training.submitCustom', { orgId, datasetId: data.id, registryItemId: script!.itemId, registryItemVersion: version, modelName, modelVersion: await freeVersion(modelName) });
    expect(submitted).toMatchObject({ custom: true, registryItemVersion: version, modelType: null, tags: [] });
    const done = await until(() => job(submitted.id), (j) => j.status === 'succeeded' || j.status === 'failed', 40_000, 'the custom job to end');
    expect(done.error).toBeNull();
    expect(done.status).toBe('succeeded');
  }, 60_000);

  it('runs a training script of our own once a version is uploaded to its registry item, and fails a job on a version never uploaded', async () => {
    const data = await dataset();
    const name = `trainer-${Date.now().toString(36)}`;
    const item = await app.value('registry.create', { orgId, name, type: 'ml_training' });
    const src = join(dir.path, 'trainer');
    mkdirSync(src, { recursive: true });
    writeFileSync(join(src, 'train.py'), 'print("training")\n');
    const file = join(dir.path, `${name}.tar.gz`);
    await createTar({ gzip: true, file, cwd: src }, ['train.py']);
    const queued = await app.value('registry.upload', { moduleId: item.id, version: '0.1.0', platform: 'linux/any', source: { path: file } });
    await until(() => app.value('registry.uploads', {}), (all) => all.find((u) => u.id === queued.id)?.state === 'done', 20_000, 'the script upload');
    expect((await app.value('training.scripts', { orgId })).find((s) => s.itemId === item.id)?.versions.map((v) => v.version)).toEqual(['0.1.0']);
    const good = await app.value('training.submitCustom', { orgId, datasetId: data.id, registryItemId: item.id, registryItemVersion: '0.1.0', modelName: `${name}-model`, modelVersion: '1' });
    const missing = await app.value('training.submitCustom', { orgId, datasetId: data.id, registryItemId: item.id, registryItemVersion: '9.9.9', modelName: `${name}-model`, modelVersion: '2' });
    const [a, b] = await Promise.all([
      until(() => job(good.id), (j) => j.status === 'succeeded' || j.status === 'failed', 40_000, 'the job on 0.1.0'),
      until(() => job(missing.id), (j) => j.status === 'succeeded' || j.status === 'failed', 40_000, 'the job on 9.9.9'),
    ]);
    expect(a.status).toBe('succeeded');
    expect(b.status).toBe('failed');
    expect(b.error?.message).toContain('9.9.9');
    // A script id that is not a training script is refused at once.
    const module = (await app.value('registry.list', { orgId, types: ['module'], pageSize: 1 })).items[0]!;
    expect(await app.call('training.submitCustom', { orgId, datasetId: data.id, registryItemId: module.id, registryItemVersion: '1.0.0', modelName: `${name}-model`, modelVersion: '3' })).toMatchObject({
      ok: false,
      error: { kind: 'invalid' },
    });
  }, 80_000);
});

describe('a restart of the app', () => {
  it('announces a watched job that ended while the app was closed, once, at the next start', async () => {
    const data = await dataset();
    const modelName = `restart-${Date.now().toString(36)}`;
    const submitted = await app.value('training.submit', { orgId, datasetId: data.id, modelName, modelVersion: '1', modelType: 'object_detection', tags: [data.labels[0]!] });
    expect(submitted.watched).toBe(true);
    // Quit while the job is pending: the local service stops with the app, and resumes the job by its clock.
    await app.close();
    ended.length = 0;
    notices.length = 0;
    await new Promise((r) => setTimeout(r, 6_000));
    app = await openApp();
    const announced = await until(() => ended.filter((e) => e.job.id === submitted.id), (e) => e.length > 0, 30_000, 'training.ended after the restart');
    expect(announced[0]!.job.status).toBe('succeeded');
    expect(notices.filter((n) => n.jobId === submitted.id)).toHaveLength(1);
    await app.value('training.list', { orgId });
    await new Promise((r) => setTimeout(r, 500));
    expect(ended.filter((e) => e.job.id === submitted.id)).toHaveLength(1);
  }, 90_000);
});

describe('offline', () => {
  it('reads the jobs and one job from the cache while the service is stopped, and refuses a submit saying nothing changed', async () => {
    const online = await app.value('training.list', { orgId });
    const one = online.jobs[0]!;
    await app.value('localService.stop', {});
    try {
      const offline = await app.value('training.list', { orgId });
      expect(offline.fromCache).toBe(true);
      expect(offline.jobs.map((j) => j.id)).toEqual(online.jobs.map((j) => j.id));
      expect(offline.syncedAt).not.toBeNull();
      expect(await app.value('training.get', { jobId: one.id })).toMatchObject({ fromCache: true, job: { id: one.id } });
      // Watching is the app's own: it works offline.
      expect((await app.value('training.watch', { jobId: one.id, watch: true })).watched).toBe(true);
      const refused = await app.call('training.submit', { orgId, datasetId: 'd', modelName: 'offline-model', modelVersion: '1', modelType: 'object_detection', tags: ['x'] });
      expect(refused).toMatchObject({ ok: false, error: { kind: 'offline' } });
      if (!refused.ok) expect(refused.error.message).toMatch(/Nothing was changed/);
    } finally {
      await app.value('localService.start', {});
    }
  }, 60_000);
});
