import { status } from '@grpc/grpc-js';
import { PackageType } from '../../proto/gen/fleet/app/v1/registry';
import { ModelType, type MLTrainingServiceService } from '../../proto/gen/fleet/mltraining/v1/ml_training';
import type { Permissions } from '../permissions/engine';
import { FleetError, Reason } from '../errors';
import { PageTokens, pageSize } from '../paging';
import type { CallContext, UnaryHandlers } from '../rpc';
import { notFound } from '../validate';
import { DEFAULT_MAX_PENDING_JOBS, iso, type TrainingStore } from './store';
import { tags } from './validate';

function jobId(ctx: CallContext): string {
  if (ctx.target?.kind !== 'trainingJob') throw new Error(`${ctx.method}: the permission table resolved ${ctx.target?.kind ?? 'nothing'}, not a training job`);
  return ctx.target.id;
}

/**
 * MLTrainingService. The permission table (trainingRules) has checked the request's shape, that the
 * organization or job exists and is seen, and that the caller is its owner before these run; they
 * check the state. The runner (runner.ts) moves jobs on from PENDING.
 */
export function createTrainingHandlers(
  store: TrainingStore,
  permissions: Permissions,
  tokens: PageTokens,
  options: { now?: () => number; maxPendingJobs?: number } = {},
): UnaryHandlers<typeof MLTrainingServiceService, CallContext> {
  const now = options.now ?? Date.now;
  const maxPending = options.maxPendingJobs ?? DEFAULT_MAX_PENDING_JOBS;
  return {
    async submitTrainingJob(request) {
      const id = store.submit(
        { orgId: request.orgId, datasetId: request.datasetId, modelName: request.modelName, modelVersion: request.modelVersion, modelType: request.modelType, tags: tags('tags', request.tags) },
        now(),
        maxPending,
      );
      return { id };
    },

    async submitCustomTrainingJob(request, ctx) {
      const item = permissions.registryItem(request.registryItemId);
      if (item === undefined || !permissions.sees(ctx.grants, item)) throw notFound(Reason.REGISTRY_ITEM_NOT_FOUND, 'registry item', request.registryItemId, 'registry_item_id');
      if (item.type !== PackageType.PACKAGE_TYPE_ML_TRAINING) {
        throw new FleetError(
          status.FAILED_PRECONDITION,
          Reason.REGISTRY_ITEM_WRONG_TYPE,
          `registry item ${item.itemId} is of type ${PackageType[item.type] ?? item.type}; a custom training job runs a training script (a PACKAGE_TYPE_ML_TRAINING item): name one`,
          'registry_item_id',
        );
      }
      const id = store.submit(
        {
          orgId: request.orgId,
          datasetId: request.datasetId,
          modelName: request.modelName,
          modelVersion: request.modelVersion,
          modelType: ModelType.MODEL_TYPE_UNSPECIFIED,
          tags: [],
          script: { itemId: item.id, wireId: item.itemId, version: request.registryItemVersion },
        },
        now(),
        maxPending,
      );
      return { id };
    },

    async getTrainingJob(_request, ctx) {
      return { metadata: store.toMetadata(store.found(jobId(ctx))) };
    },

    async listTrainingJobs(request) {
      const size = pageSize('page_size', request.pageSize);
      const since = request.modifiedSince ? iso(request.modifiedSince.getTime()) : null;
      const fingerprint = PageTokens.fingerprint('ListTrainingJobs', { orgId: request.orgId, status: request.status, since });
      const cursor = tokens.read(fingerprint, request.pageToken);
      const after = cursor ? ([String(cursor.after[0]), String(cursor.after[1])] as const) : null;
      const { rows, more } = store.list(request.orgId, request.status, after, size, since);
      const last = rows.at(-1);
      return {
        jobs: rows.map((row) => store.toMetadata(row)),
        nextPageToken: more && last ? tokens.issue(fingerprint, { after: [last.created_on, last.id], returned: (cursor?.returned ?? 0) + rows.length }) : '',
      };
    },

    async cancelTrainingJob(_request, ctx) {
      store.cancel(jobId(ctx), now());
      return {};
    },

    async deleteCompletedTrainingJob(_request, ctx) {
      store.deleteCompleted(jobId(ctx));
      return {};
    },

    async listTrainingDatasets(request) {
      return { datasets: store.datasets(request.orgId).map((row) => store.toDataset(row)) };
    },

    async listModelVersions(request) {
      return { models: store.modelVersions(request.orgId) };
    },
  };
}
