/**
 * The training bridge channels. Jobs are read through the cache (online: from the service, and
 * cached; offline: the cached copy, saying so); submitting, cancelling and deleting need the
 * service, and what it answers is written to the cache at once, so the page and the badge follow
 * without waiting for the next poll. Datasets and training scripts are read from the service only:
 * they are what a new job is made of, and a job cannot be submitted offline anyway.
 */
import type { TrainingJob, TrainingJobs, TrainingModel, TrainingScript } from '../../common/training';
import type { BackendContext } from '../backend/context';
import { online, readThrough, write } from '../backend/calls';
import { AppError } from '../backend/errors';
import type { DomainHandlers } from '../backend/router';
import type { CacheDb } from '../cache/cache';
import type { CacheRunner } from '../connection/connection';
import type { FleetClient } from '../grpc/client';
import { PackageType, Visibility } from '../../proto/gen/fleet/app/v1/registry';
import type { TrainedModel } from '../../proto/gen/fleet/mltraining/v1/ml_training';
import { changedTrainingJobs, countTrainingJobs, datasetsLastUsed, getTrainingJob, listTrainingJobs, trainingSyncedAt } from './cache';
import { datasetFromWire, modelTypeToWire, nextVersion, type CachedJob } from './convert';
import { fetchJob, MODIFIED_SKEW_MS, syncOrgJobs, type TrainingWatcher } from './watcher';

type TrainingChannel =
  | 'training.list'
  | 'training.get'
  | 'training.datasets'
  | 'training.models'
  | 'training.scripts'
  | 'training.submit'
  | 'training.submitCustom'
  | 'training.cancel'
  | 'training.delete'
  | 'training.watch'
  | 'training.summary';

/** Registry items read at most for the model and script lists (pages of 1,000). */
const MAX_REGISTRY_ITEMS = 5_000;

/**
 * Every registry item of these types the key sees for the organization (`orgId` '' lists across
 * organizations); with `includeVersions`, each with its versions, in the same call.
 */
async function registryItems(client: FleetClient, orgId: string, type: PackageType, includeVersions = false) {
  const items = [];
  let pageToken = '';
  do {
    const response = await client.call('list the registry', client.app.listRegistryItems, {
      organizationId: orgId,
      types: [type],
      visibilities: [],
      platforms: [],
      statuses: [],
      searchTerm: '',
      pageToken,
      publicNamespaces: [],
      pageSize: 1000,
      includeVersions,
    });
    items.push(...response.items);
    pageToken = response.nextPageToken;
  } while (pageToken !== '' && items.length < MAX_REGISTRY_ITEMS);
  return items;
}

/**
 * Models of the organization: the versions the service says are taken (ListModelVersions: every job
 * ever submitted, deleted ones too, and uploads to the model's registry item) when it answered, plus
 * what the cached jobs took (all that is known offline). The type is that of the latest built-in job.
 */
function modelsOf(cache: CacheDb, orgId: string, taken: readonly TrainedModel[]): TrainingModel[] {
  const byName = new Map<string, { versions: string[]; modelType: TrainingModel['modelType']; registryItemId: string }>();
  const entry = (name: string) => {
    let model = byName.get(name);
    if (!model) byName.set(name, (model = { versions: [], modelType: null, registryItemId: '' }));
    return model;
  };
  for (const model of taken) {
    const m = entry(model.modelName);
    m.registryItemId = model.registryItemId;
    m.versions.push(...model.versions);
  }
  for (const job of listTrainingJobs(cache, orgId, null).reverse()) {
    const model = entry(job.modelName);
    if (!model.versions.includes(job.modelVersion)) model.versions.push(job.modelVersion);
    if (!job.custom && job.modelType) model.modelType = job.modelType;
    if (model.registryItemId === '' && job.syncedModelId !== '') model.registryItemId = job.syncedModelId;
  }
  return [...byName.entries()]
    .map(([name, m]) => ({ name, modelType: m.modelType, versions: m.versions, nextVersion: nextVersion(m.versions), registryItemId: m.registryItemId }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

export function trainingHandlers(ctx: BackendContext, watcher: TrainingWatcher): DomainHandlers<TrainingChannel> {
  const { connection } = ctx;

  /** Cache jobs just read or changed by this app, and announce them. */
  const store = async (cache: CacheDb, run: CacheRunner, jobs: readonly CachedJob[], quiet = false) => {
    const written = await run('trainingPut', jobs, new Date().toISOString());
    watcher.apply(cache, jobs.map((j) => j.orgId), written, { quiet });
  };
  const cachedJob = (cache: CacheDb, jobId: string): TrainingJob => {
    const job = getTrainingJob(cache, jobId);
    if (!job) throw new AppError('internal', `The training job ${jobId} was written to the cache but cannot be read back.`);
    return job;
  };
  /** After a submit: the job as the service has it, cached and watched. */
  const submitted = async (client: FleetClient, cache: CacheDb, run: CacheRunner, jobId: string) => {
    const job = await fetchJob(client, jobId);
    await run('trainingWatch', job.id, true, new Date().toISOString());
    await store(cache, run, [job]);
    return cachedJob(cache, job.id);
  };

  return {
    'training.list': ({ orgId, status, since, limit, after }) => {
      watcher.wake();
      /** The cached jobs as the page asked: those changed since its cursor, or all (or the part of them asked for). */
      const answer = (cache: CacheDb, fromCache: boolean, syncedAt: string | null): TrainingJobs => {
        // Taken before reading: a write landing meanwhile is sent again next time, never lost.
        const cursor = new Date().toISOString();
        const total = countTrainingJobs(cache, orgId);
        if (since !== null) {
          const jobs = changedTrainingJobs(cache, orgId, new Date(Date.parse(since) - MODIFIED_SKEW_MS).toISOString());
          return { orgId, jobs, delta: true, cursor, total, more: false, fromCache, syncedAt };
        }
        // One more than asked tells whether anything follows, without counting what follows.
        const jobs = listTrainingJobs(cache, orgId, status, { limit: limit === null ? null : limit + 1, after });
        const more = limit !== null && jobs.length > limit;
        return { orgId, jobs: more ? jobs.slice(0, limit) : jobs, delta: false, cursor, total, more, fromCache, syncedAt };
      };
      return readThrough<TrainingJobs>(
        connection,
        'The training jobs of this organization',
        async (client, cache, run) => {
          const at = new Date().toISOString();
          // Only what changed since the last read: finished jobs are never read again.
          watcher.apply(cache, [orgId], await syncOrgJobs(client, cache, run, orgId, at, false), { quiet: true });
          return answer(cache, false, at);
        },
        (cache) => {
          const syncedAt = trainingSyncedAt(cache, orgId);
          return syncedAt === null && countTrainingJobs(cache, orgId) === 0 ? null : answer(cache, true, syncedAt);
        },
      );
    },

    'training.get': ({ jobId }) => {
      watcher.wake();
      return readThrough<{ job: TrainingJob; fromCache: boolean }>(
        connection,
        'This training job',
        async (client, cache, run) => {
          try {
            await store(cache, run, [await fetchJob(client, jobId)], true);
          } catch (e) {
            // Deleted elsewhere: forget the cached copy, so the page stops showing it.
            if (e instanceof AppError && e.kind === 'not-found' && getTrainingJob(cache, jobId)) {
              const orgId = getTrainingJob(cache, jobId)?.orgId ?? '';
              await run('trainingRemove', [jobId]);
              watcher.apply(cache, [orgId], { changed: true, ended: [], activated: false });
            }
            throw e;
          }
          return { job: cachedJob(cache, jobId), fromCache: false };
        },
        (cache) => {
          const job = getTrainingJob(cache, jobId);
          return job ? { job, fromCache: true } : null;
        },
      );
    },

    'training.datasets': ({ orgId }) =>
      online(connection, 'list the datasets', async (client, cache) => {
        const response = await client.call('list the datasets', client.training.listTrainingDatasets, { orgId });
        const lastUsed = datasetsLastUsed(cache, orgId);
        const datasets = response.datasets.map((d) => datasetFromWire(d, lastUsed.get(d.id) ?? null));
        // Recently used first, then the newest; the service answers newest first, which sort keeps among equals.
        return datasets.sort((a, b) => (b.lastUsedOn ?? '').localeCompare(a.lastUsedOn ?? ''));
      }),

    'training.models': async ({ orgId }) => {
      try {
        return await connection.use(async (client, cache) => {
          const response = await client.call('list the model versions', client.training.listModelVersions, { orgId });
          return modelsOf(cache, orgId, response.models);
        });
      } catch (e) {
        // Offline the cached jobs still say which versions are taken; the service checks again on submit.
        if (e instanceof AppError && e.kind === 'offline') return modelsOf(connection.cache, orgId, []);
        throw e;
      }
    },

    'training.scripts': ({ orgId }) =>
      online(connection, 'list the training scripts', async (client) => {
        // Across organizations: the organization's own scripts and public ones of others, with their versions (one call a page).
        const items = (await registryItems(client, '', PackageType.PACKAGE_TYPE_ML_TRAINING, true)).filter(
          (i) => i.organizationId === orgId || i.visibility === Visibility.VISIBILITY_PUBLIC || i.visibility === Visibility.VISIBILITY_PUBLIC_UNLISTED,
        );
        const scripts: TrainingScript[] = items.map((item) => ({
          itemId: item.itemId,
          orgId: item.organizationId,
          name: item.name,
          description: item.description,
          versions: item.versions.filter((v) => v.files.length > 0).map((v) => ({ version: v.version, uploadedAt: v.uploadedAt?.toISOString() ?? null, platforms: [...v.platforms] })),
        }));
        // The organization's own first, then by name.
        return scripts.sort((a, b) => Number(b.orgId === orgId) - Number(a.orgId === orgId) || a.name.localeCompare(b.name));
      }),

    'training.submit': (r) =>
      write(connection, 'submit the training job', async (client, cache, run) => {
        const response = await client.call('submit the training job', client.training.submitTrainingJob, {
          orgId: r.orgId,
          datasetId: r.datasetId,
          modelName: r.modelName,
          modelVersion: r.modelVersion,
          modelType: modelTypeToWire(r.modelType),
          tags: [...r.tags],
        });
        return submitted(client, cache, run, response.id);
      }),

    'training.submitCustom': (r) =>
      write(connection, 'submit the custom training job', async (client, cache, run) => {
        const response = await client.call('submit the custom training job', client.training.submitCustomTrainingJob, {
          orgId: r.orgId,
          datasetId: r.datasetId,
          registryItemId: r.registryItemId,
          registryItemVersion: r.registryItemVersion,
          modelName: r.modelName,
          modelVersion: r.modelVersion,
        });
        return submitted(client, cache, run, response.id);
      }),

    'training.cancel': ({ jobId }) =>
      write(connection, 'cancel the training job', async (client, cache, run) => {
        await client.call('cancel the training job', client.training.cancelTrainingJob, { id: jobId });
        await store(cache, run, [await fetchJob(client, jobId)]);
        return cachedJob(cache, jobId);
      }),

    'training.delete': ({ jobIds }) =>
      write(connection, 'delete the training jobs', async (client, cache, run) => {
        const deleted: string[] = [];
        const failed: { jobId: string; error: { kind: string; message: string } }[] = [];
        const orgIds = new Set<string>();
        for (const jobId of jobIds) {
          try {
            await client.call('delete the training job', client.training.deleteCompletedTrainingJob, { id: jobId });
            deleted.push(jobId);
            const orgId = getTrainingJob(cache, jobId)?.orgId;
            if (orgId) orgIds.add(orgId);
          } catch (e) {
            if (!(e instanceof AppError)) throw e;
            // Deleted elsewhere since it was listed: what was asked for is done; the cached copy goes.
            const cachedOrg = getTrainingJob(cache, jobId)?.orgId;
            if (e.kind === 'not-found' && cachedOrg !== undefined) {
              deleted.push(jobId);
              orgIds.add(cachedOrg);
              continue;
            }
            // Unreachable midway: the rest is not tried, and each says so.
            if (e.kind === 'offline') {
              for (const rest of jobIds.slice(jobIds.indexOf(jobId))) failed.push({ jobId: rest, error: e.toBridge() });
              break;
            }
            failed.push({ jobId, error: e.toBridge() });
          }
        }
        if (deleted.length > 0) {
          await run('trainingRemove', deleted);
          watcher.apply(cache, [...orgIds], { changed: true, ended: [], activated: false });
        }
        return { deleted, failed };
      }),

    'training.watch': async ({ jobId, watch }) => {
      const at = new Date().toISOString();
      // A job not cached yet is read first; the watch is written where it was read (a switch meanwhile changes nothing here).
      if (!getTrainingJob(connection.cache, jobId)) {
        return online(connection, 'read the training job', async (client, cache, run) => {
          const job = await fetchJob(client, jobId);
          await run('trainingWatch', jobId, watch, at);
          await store(cache, run, [job]);
          return cachedJob(cache, jobId);
        });
      }
      // The watch is the app's own: kept offline too, and announced once the job is seen to end.
      const cache = connection.cache;
      await connection.runCache('trainingWatch', jobId, watch, at);
      if (connection.cache !== cache) throw new AppError('conflict', 'The profile changed while the watch was being saved; open the job again in this profile.');
      watcher.wake();
      return cachedJob(cache, jobId);
    },

    'training.summary': () => Promise.resolve(watcher.summary()),
  };
}
