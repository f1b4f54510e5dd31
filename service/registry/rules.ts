/**
 * The permission rows of the registry operations: roles on the owning organization; public and
 * unlisted items are seen by every authenticated caller (docs/PROTOCOL.md sections 10–11).
 */
import type { AppServiceService } from '../../proto/gen/fleet/app/v1/app';
import type { ModuleFileInfo, UploadModuleFileRequest } from '../../proto/gen/fleet/app/v1/registry';
import { invalidArgument, Reason } from '../errors';
import { none, org, registry, type Rules } from '../permissions/rules';
import { displayName, freeText, optionalId, publicNamespace, registryId, registryName, requiredId } from '../validate';
import { apps, archivePath, httpUrl, itemStatus, models, packageType, platform, registryText, semanticVersion, visibility } from './validate';

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

export const registryRules: Rules<typeof AppServiceService> = {
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
