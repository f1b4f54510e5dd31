import type { MLTrainingServiceService } from '../../proto/gen/fleet/mltraining/v1/ml_training';
import { pageSize } from '../paging';
import { org, trainingJob, type Rules } from '../permissions/rules';
import { registryId, registryName, requiredId } from '../validate';
import { datasetId, modelType, modelVersion, scriptVersion, statusFilter, tags } from './validate';

/**
 * The permission table of MLTrainingService: every operation needs owner on the organization (the
 * job's, for calls that name a job); training is the organization's, so only organization roles
 * count (docs/PROTOCOL.md, "ML training").
 */
export const trainingRules: Rules<typeof MLTrainingServiceService> = {
  submitTrainingJob: {
    validate: (r) => {
      requiredId('org_id', r.orgId);
      datasetId('dataset_id', r.datasetId);
      registryName('model_name', r.modelName);
      modelVersion('model_version', r.modelVersion);
      modelType('model_type', r.modelType);
      tags('tags', r.tags);
    },
    resource: (r) => org(r.orgId),
    need: 'owner',
  },
  submitCustomTrainingJob: {
    validate: (r) => {
      requiredId('org_id', r.orgId);
      datasetId('dataset_id', r.datasetId);
      registryId('registry_item_id', r.registryItemId);
      scriptVersion('registry_item_version', r.registryItemVersion);
      registryName('model_name', r.modelName);
      modelVersion('model_version', r.modelVersion);
    },
    resource: (r) => org(r.orgId),
    need: 'owner',
  },
  getTrainingJob: { resource: (r) => trainingJob(r.id), need: 'owner' },
  listTrainingJobs: {
    validate: (r) => {
      requiredId('org_id', r.orgId);
      statusFilter('status', r.status);
      pageSize('page_size', r.pageSize);
    },
    resource: (r) => org(r.orgId),
    need: 'owner',
  },
  cancelTrainingJob: { resource: (r) => trainingJob(r.id), need: 'owner' },
  deleteCompletedTrainingJob: { resource: (r) => trainingJob(r.id), need: 'owner' },
  listTrainingDatasets: { resource: (r) => org(r.orgId), need: 'owner' },
  listModelVersions: { resource: (r) => org(r.orgId), need: 'owner' },
};
