/**
 * The permission tables: for every AppService (and MLTrainingService) operation, the shape checks of its request, the
 * resource its role is checked on, and the least role it needs (docs/PROTOCOL.md sections 10–11).
 * service/rpc.ts applies a method's row before its handler runs, in the protocol's order —
 * authentication, request shape (INVALID_ARGUMENT), existence and visibility (NOT_FOUND), role
 * (PERMISSION_DENIED) — so a handler starts with a valid request on a resource the caller may use,
 * and only checks the state. A handler without a row cannot be registered (rpc.ts), so a new
 * operation adds a row here, not checks of its own.
 */
import type { AppServiceService } from '../../proto/gen/fleet/app/v1/app';
import type { MLTrainingServiceService } from '../../proto/gen/fleet/mltraining/v1/ml_training';
import { logRequest } from '../logs/handlers';
import type { ModuleFileInfo, UploadModuleFileRequest } from '../../proto/gen/fleet/app/v1/registry';
import { invalidArgument, Reason } from '../errors';
import { apps, archivePath, httpUrl, itemStatus, models, packageType, platform, registryId, registryName, registryText, semanticVersion, visibility } from '../registry/validate';
import { displayName, freeText, idList, metadataJson, optionalId, publicNamespace, requiredId } from '../validate';
import { pageSize } from '../paging';
import { datasetId, modelType, modelVersion, scriptVersion, statusFilter, tags } from '../training/validate';
import type { Need, ResourceRef } from './access';

type RequestOf<M> = M extends { requestDeserialize: (bytes: Buffer) => infer Req } ? Req : never;

export interface Rule<Req> {
  /** Shape checks, in the order of the request's fields; throw INVALID_ARGUMENT. */
  readonly validate?: (request: Req) => void;
  /** The resource the role is checked on; null for calls on nothing in particular. */
  readonly resource: (request: Req) => ResourceRef | null;
  readonly need: Need;
  /** Only roles held in the resource's owning organization count (deleting, moving, sharing a location). */
  readonly owningOrganizationOnly?: boolean;
}

export type Rules<D> = { readonly [K in keyof D]?: Rule<RequestOf<D[K]>> };

const org = (id: string, field = 'org_id'): ResourceRef => ({ kind: 'organization', id: requiredId(field, id), field });
const location = (id: string, field = 'location_id'): ResourceRef => ({ kind: 'location', id: requiredId(field, id), field });
const robot = (id: string, field = 'robot_id'): ResourceRef => ({ kind: 'robot', id: requiredId(field, id), field });
const part = (id: string, field = 'robot_part_id'): ResourceRef => ({ kind: 'part', id: requiredId(field, id), field });
const registry = (id: string, field: string, kind: 'registry' | 'module' | 'package' = 'registry'): ResourceRef => ({ kind, id: registryId(field, id), field });
const none = () => null;

/** The first message of an upload (UploadModuleFile, GetModuleFileUpload): the file it names. */
function uploadInfo(info: ModuleFileInfo | undefined, offset = 0): ModuleFileInfo {
  if (info === undefined) {
    throw invalidArgument('module_file_info', Reason.UPLOAD_SEQUENCE_INVALID, 'the first message must carry module_file_info (module_id, version, platform) and no file bytes');
  }
  registryId('module_file_info.module_id', info.moduleId);
  semanticVersion('module_file_info.version', info.version);
  platform('module_file_info.platform', info.platform);
  if (!Number.isSafeInteger(offset) || offset < 0) throw invalidArgument('write_offset', Reason.FIELD_INVALID, 'write_offset must be 0 or the committed_bytes GetModuleFileUpload answered');
  return info;
}
const firstUploadInfo = (r: UploadModuleFileRequest) => uploadInfo(r.moduleFile?.$case === 'moduleFileInfo' ? r.moduleFile.value : undefined, r.writeOffset);

export const appRules: Rules<typeof AppServiceService> = {
  // Organizations
  createOrganization: { validate: (r) => displayName('name', r.name), resource: none, need: 'authenticated' },
  listOrganizations: { resource: none, need: 'authenticated' },
  getOrganization: { resource: (r) => org(r.orgId), need: 'sees' },
  updateOrganization: {
    validate: (r) => {
      requiredId('org_id', r.orgId);
      if (r.name !== undefined) displayName('name', r.name);
      if (r.publicNamespace !== undefined) publicNamespace('public_namespace', r.publicNamespace);
      if (r.region !== undefined) freeText('region', r.region);
      if (r.cid !== undefined) freeText('cid', r.cid);
      r.defaultFragments?.fragments.forEach((f, i) => requiredId(`default_fragments.fragments[${i}].fragment_id`, f.fragmentId));
    },
    resource: (r) => org(r.orgId),
    need: 'owner',
  },
  deleteOrganization: { resource: (r) => org(r.orgId), need: 'owner' },
  getOrganizationNamespaceAvailability: { validate: (r) => publicNamespace('public_namespace', r.publicNamespace), resource: none, need: 'authenticated' },
  getOrganizationsWithAccessToLocation: { resource: (r) => location(r.locationId), need: 'owner' },
  listOrganizationsByUser: { validate: (r) => requiredId('user_id', r.userId), resource: none, need: 'authenticated' },
  getOrganizationMetadata: { resource: (r) => org(r.orgId), need: 'operator' },
  updateOrganizationMetadata: { validate: (r) => (requiredId('org_id', r.orgId), metadataJson('metadata', r.metadata)), resource: (r) => org(r.orgId), need: 'owner' },

  // Locations
  createLocation: {
    validate: (r) => {
      requiredId('org_id', r.orgId);
      displayName('name', r.name);
      optionalId('parent_location_id', r.parentLocationId);
    },
    // Owner on the organization, or on the parent (which covers it through its ancestors).
    resource: (r) => (r.parentLocationId === '' ? org(r.orgId) : location(r.parentLocationId, 'parent_location_id')),
    need: 'owner',
  },
  getLocation: { resource: (r) => location(r.locationId), need: 'operator' },
  updateLocation: {
    validate: (r) => {
      requiredId('location_id', r.locationId);
      // Empty means "leave the name as it is" (spec).
      if (r.name !== undefined && r.name.trim() !== '') displayName('name', r.name);
      if (r.parentLocationId !== undefined) optionalId('parent_location_id', r.parentLocationId);
      if (r.region !== undefined) freeText('region', r.region);
    },
    resource: (r) => location(r.locationId),
    need: 'owner',
  },
  deleteLocation: { resource: (r) => location(r.locationId), need: 'owner', owningOrganizationOnly: true },
  listLocations: { resource: (r) => org(r.orgId), need: 'sees' },
  shareLocation: {
    validate: (r) => {
      requiredId('organization_id', r.organizationId);
      requiredId('location_id', r.locationId);
    },
    resource: (r) => location(r.locationId),
    need: 'owner',
    owningOrganizationOnly: true,
  },
  unshareLocation: {
    validate: (r) => {
      requiredId('organization_id', r.organizationId);
      requiredId('location_id', r.locationId);
    },
    resource: (r) => location(r.locationId),
    need: 'owner',
    owningOrganizationOnly: true,
  },
  getLocationMetadata: { resource: (r) => location(r.locationId), need: 'operator' },
  updateLocationMetadata: { validate: (r) => (requiredId('location_id', r.locationId), metadataJson('metadata', r.metadata)), resource: (r) => location(r.locationId), need: 'owner' },

  // Machines and parts
  getRobot: { resource: (r) => robot(r.robotId), need: 'operator' },
  getRobotParts: { resource: (r) => robot(r.robotId), need: 'operator' },
  getRobotPart: { resource: (r) => part(r.robotPartId), need: 'operator' },
  getRobotPartByNameAndLocation: {
    validate: (r) => {
      displayName('name', r.name);
      requiredId('location_id', r.locationId);
    },
    // The part is found by name in the handler; the location must be seen first (NOT_FOUND), and the
    // handler then requires operator on the part's machine.
    resource: (r) => location(r.locationId),
    need: 'sees',
  },
  newRobotPart: {
    validate: (r) => {
      requiredId('robot_id', r.robotId);
      displayName('part_name', r.partName);
    },
    resource: (r) => robot(r.robotId),
    need: 'owner',
  },
  deleteRobotPart: { resource: (r) => part(r.robotPartId), need: 'owner' },
  markPartAsMain: { resource: (r) => part(r.robotPartId), need: 'owner' },
  markPartForRestart: { resource: (r) => part(r.robotPartId), need: 'operator' },
  listRobots: { resource: (r) => location(r.locationId), need: 'operator' },
  newRobot: {
    validate: (r) => {
      displayName('name', r.name);
      requiredId('location_id', r.locationId);
    },
    resource: (r) => location(r.locationId),
    need: 'owner',
  },
  updateRobot: {
    validate: (r) => {
      requiredId('robot_id', r.robotId);
      displayName('name', r.name);
      requiredId('location_id', r.locationId);
    },
    // Renaming needs owner on the machine; a move needs more, checked by the handler against the
    // destination (organization owner, or owner on both locations).
    resource: (r) => robot(r.robotId),
    need: 'owner',
  },
  deleteRobot: { resource: (r) => robot(r.robotId), need: 'owner' },
  getRobotMetadata: { resource: (r) => robot(r.robotId), need: 'operator' },
  getRobotPartMetadata: { resource: (r) => part(r.robotPartId), need: 'operator' },
  getRobotPartLogs: { validate: (r) => void logRequest(r), resource: (r) => part(r.robotPartId), need: 'operator' },
  tailRobotPartLogs: { resource: (r) => part(r.robotPartId), need: 'operator' },
  updateRobotMetadata: { validate: (r) => (requiredId('robot_id', r.robotId), metadataJson('metadata', r.metadata)), resource: (r) => robot(r.robotId), need: 'owner' },
  updateRobotPartMetadata: { validate: (r) => (requiredId('robot_part_id', r.robotPartId), metadataJson('metadata', r.metadata)), resource: (r) => part(r.robotPartId), need: 'owner' },
  listMachineSummaries: {
    validate: (r) => {
      requiredId('organization_id', r.organizationId);
      idList('fragment_ids', r.fragmentIds);
      idList('location_ids', r.locationIds);
    },
    // Lists the machines the caller can read in the organization (see the handler).
    resource: (r) => org(r.organizationId, 'organization_id'),
    need: 'sees',
  },

  // Registry items and modules: roles on the owning organization; public items seen by everyone.
  getRegistryItem: { resource: (r) => registry(r.itemId, 'item_id'), need: 'sees' },
  // Any item's versions with their files (training scripts, models): seen as GetRegistryItem sees it.
  listRegistryItemVersions: { resource: (r) => registry(r.itemId, 'item_id'), need: 'sees' },
  createRegistryItem: {
    validate: (r) => {
      requiredId('organization_id', r.organizationId);
      registryName('name', r.name);
      packageType('type', r.type);
    },
    resource: (r) => org(r.organizationId, 'organization_id'),
    need: 'owner',
  },
  updateRegistryItem: {
    validate: (r) => {
      registryId('item_id', r.itemId);
      packageType('type', r.type);
      registryText('description', r.description);
      visibility('visibility', r.visibility);
      if (r.url !== undefined) httpUrl('url', r.url);
    },
    resource: (r) => registry(r.itemId, 'item_id'),
    need: 'owner',
  },
  listRegistryItems: {
    validate: (r) => {
      optionalId('organization_id', r.organizationId);
      r.types.forEach((t, i) => packageType(`types[${i}]`, t));
      r.visibilities.forEach((v, i) => visibility(`visibilities[${i}]`, v));
      r.platforms.forEach((p, i) => platform(`platforms[${i}]`, p));
      r.statuses.forEach((s, i) => itemStatus(`statuses[${i}]`, s));
      r.publicNamespaces.forEach((n, i) => publicNamespace(`public_namespaces[${i}]`, n));
      freeText('search_term', r.searchTerm);
    },
    // Lists what the caller can see, across organizations or in one (see the handler).
    resource: none,
    need: 'authenticated',
  },
  deleteRegistryItem: { resource: (r) => registry(r.itemId, 'item_id'), need: 'owner' },
  createModule: {
    validate: (r) => {
      requiredId('org_id', r.orgId);
      registryName('name', r.name);
    },
    resource: (r) => org(r.orgId),
    need: 'owner',
  },
  updateModule: {
    validate: (r) => {
      registryId('module_id', r.moduleId);
      httpUrl('url', r.url);
      registryText('description', r.description);
      models('models', r.models);
      archivePath('entrypoint', r.entrypoint, true);
      apps('apps', r.apps);
      archivePath('first_run', r.firstRun, false);
    },
    resource: (r) => registry(r.moduleId, 'module_id', 'module'),
    need: 'owner',
  },
  // A client stream: the row applies to its first message (rpc.ts).
  uploadModuleFile: { validate: firstUploadInfo, resource: (r) => registry(firstUploadInfo(r).moduleId, 'module_file_info.module_id', 'package'), need: 'owner' },
  getModuleFileUpload: { validate: (r) => uploadInfo(r.moduleFileInfo), resource: (r) => registry(uploadInfo(r.moduleFileInfo).moduleId, 'module_file_info.module_id', 'package'), need: 'owner' },
  getModule: { resource: (r) => registry(r.moduleId, 'module_id', 'module'), need: 'sees' },
  listModules: {
    validate: (r) => requiredId('org_id', r.orgId),
    // Members see every module, others the public ones (see the handler).
    resource: none,
    need: 'authenticated',
  },
  getAppContent: {
    validate: (r) => (publicNamespace('public_namespace', r.publicNamespace), displayName('name', r.name)),
    // Found by namespace and app name, then seen as its module is (see the handler).
    resource: none,
    need: 'authenticated',
  },
  getAppBranding: {
    validate: (r) => (publicNamespace('public_namespace', r.publicNamespace), displayName('name', r.name)),
    resource: none,
    need: 'authenticated',
  },
};

const trainingJob = (id: string, field = 'id'): ResourceRef => ({ kind: 'trainingJob', id: requiredId(field, id), field });

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
