import type { ConnectionState } from '../../../../common/connection';
import type { LocalServiceState } from '../../../../common/local-service';
import type { Organization, OrgsSnapshot } from '../../../../common/orgs';
import type { ProfileView, ProfilesState } from '../../../../common/profiles';
import type { Module, ModuleVersion, RegistryItem, Upload, UploadCandidate } from '../../../../common/registry';
import type { TrainingDataset, TrainingJob, TrainingModel, TrainingScript, TrainingSummary } from '../../../../common/training';

export const localProfile: ProfileView = {
  id: 'local',
  name: 'Local',
  kind: 'local',
  address: '127.0.0.1:50123',
  tls: false,
  apiKeyId: 'key-local',
  keyStorage: 'keychain',
};

export const remoteProfile: ProfileView = {
  id: 'p-prod',
  name: 'Production',
  kind: 'remote',
  address: 'fleet.example.com:443',
  tls: true,
  apiKeyId: 'key-prod',
  keyStorage: 'keychain',
};

export function profilesState(overrides: Partial<ProfilesState> = {}): ProfilesState {
  return {
    profiles: [localProfile, remoteProfile],
    activeId: 'local',
    keychain: { available: true, reason: null },
    ...overrides,
  };
}

export function connectionState(overrides: Partial<ConnectionState> = {}): ConnectionState {
  return {
    profileId: 'local',
    status: 'online',
    address: '127.0.0.1:50123',
    lastSyncedAt: '2026-11-22T14:02:00.000Z',
    offlineSince: null,
    nextRetryAt: null,
    error: null,
    sync: null,
    ...overrides,
  };
}

export function localServiceState(overrides: Partial<LocalServiceState> = {}): LocalServiceState {
  return { status: 'running', address: '127.0.0.1:50123', dataDir: '/data/fleet', error: null, ...overrides };
}

export function org(id: string, name: string, overrides: Partial<Organization> = {}): Organization {
  return {
    id,
    name,
    createdOn: '2025-03-12T09:30:00.000Z',
    publicNamespace: '',
    region: 'us-east-1',
    cid: '',
    defaultFragments: [],
    ...overrides,
  };
}

export function orgsSnapshot(orgs: readonly Organization[], syncedAt: string | null = '2026-11-22T14:02:00.000Z'): OrgsSnapshot {
  return { orgs, syncedAt };
}

export function registryItem(name: string, overrides: Partial<RegistryItem> = {}): RegistryItem {
  return {
    id: `acme:${name}`,
    orgId: 'org-acme',
    publicNamespace: 'acme',
    name,
    type: 'module',
    visibility: 'private',
    status: 'in_development',
    description: `The ${name} module.`,
    url: '',
    platforms: [],
    markdown: null,
    createdAt: '2026-11-01T10:00:00.000Z',
    updatedAt: '2026-11-01T10:00:00.000Z',
    totalRobotUsage: 0,
    ...overrides,
  };
}

export function registryModule(name: string, overrides: Partial<Module> = {}): Module {
  return {
    id: `acme:${name}`,
    name,
    orgId: 'org-acme',
    url: '',
    description: '',
    models: [],
    entrypoint: 'run.sh',
    visibility: 'private',
    versions: [],
    apps: [],
    firstRun: '',
    createdAt: '2026-11-01T10:00:00.000Z',
    updatedAt: '2026-11-01T10:00:00.000Z',
    ...overrides,
  };
}

export function upload(id: string, overrides: Partial<Upload> = {}): Upload {
  return {
    id,
    moduleId: 'acme:stepper',
    version: '1.0.0',
    platform: 'linux/amd64',
    fileName: 'stepper.tar.gz',
    sizeBytes: 1000,
    sentBytes: 0,
    resumedFrom: 0,
    state: 'queued',
    bytesPerSecond: null,
    secondsLeft: null,
    error: null,
    result: null,
    createdAt: '2026-11-01T10:00:00.000Z',
    finishedAt: null,
    ...overrides,
  };
}

/** A file main looked into for upload, proposing 1.2.0 for linux/arm64 (its meta.json's). */
export function uploadCandidate(source: UploadCandidate['source'], fileName: string, overrides: Partial<UploadCandidate> = {}): UploadCandidate {
  return {
    source,
    fileName,
    sizeBytes: 1234,
    sha256: null,
    problem: null,
    proposal: { version: '1.2.0', platform: 'linux/arm64', moduleId: 'acme:stepper', entrypoint: 'run.sh' },
    ...overrides,
  };
}

/** A module or registry item version with one file per platform. */
export function registryVersion(version: string, platforms: readonly string[] = ['linux/amd64'], overrides: Partial<ModuleVersion> = {}): ModuleVersion {
  return {
    version,
    platforms,
    models: [],
    entrypoint: '',
    uploadedAt: '2026-11-20T10:00:00.000Z',
    files: platforms.map((platform, i) => ({
      platform,
      sizeBytes: 1024 * 1024 * (i + 1),
      sha256: `${version.replace(/\W/g, '')}${i}`.padEnd(64, 'a'),
      uploadedAt: '2026-11-20T10:00:00.000Z',
      url: `http://x/registry/${version}/${platform}`,
    })),
    ...overrides,
  };
}

/**
 * A training job of org-acme: `yard-detector 4`, running at 40 % since 10:00 by default. Ids are
 * `job-<model>-<version>`, so a test names jobs by what they train.
 */
export function trainingJob(modelName = 'yard-detector', modelVersion = '4', overrides: Partial<TrainingJob> = {}): TrainingJob {
  return {
    id: `job-${modelName}-${modelVersion}`,
    orgId: 'org-acme',
    datasetId: 'ds-yard',
    datasetName: 'Yard cameras',
    modelName,
    modelVersion,
    modelType: 'object_detection',
    tags: ['cone', 'pallet'],
    custom: false,
    registryItemId: '',
    registryItemVersion: '',
    status: 'running',
    error: null,
    progressPercent: 40,
    createdOn: '2026-11-25T09:58:00.000Z',
    lastModified: '2026-11-25T10:05:00.000Z',
    startedOn: '2026-11-25T10:00:00.000Z',
    endedOn: null,
    cancelRequestedOn: null,
    syncedModelId: '',
    watched: true,
    ...overrides,
  };
}

/** A job that ended: succeeded (published as `acme:<model>`), failed (with an error) or canceled. */
export function endedJob(status: 'succeeded' | 'failed' | 'canceled', modelName = 'yard-detector', modelVersion = '3', overrides: Partial<TrainingJob> = {}): TrainingJob {
  return trainingJob(modelName, modelVersion, {
    status,
    progressPercent: status === 'succeeded' ? 100 : 60,
    endedOn: '2026-11-25T10:12:05.000Z',
    syncedModelId: status === 'succeeded' ? `acme:${modelName}` : '',
    error: status === 'failed' ? { code: 'RESOURCE_EXHAUSTED', message: 'The trainer ran out of GPU memory.' } : null,
    cancelRequestedOn: status === 'canceled' ? '2026-11-25T10:12:00.000Z' : null,
    ...overrides,
  });
}

export function trainingDataset(id: string, name: string, labels: readonly string[] = ['cone', 'pallet', 'person'], overrides: Partial<TrainingDataset> = {}): TrainingDataset {
  return { id, orgId: 'org-acme', name, sizeBytes: 40 * 1024 * 1024, imageCount: 1200, labels, createdOn: '2026-10-01T10:00:00.000Z', lastUsedOn: null, ...overrides };
}

export function trainingModel(name: string, versions: readonly string[], nextVersion: string, overrides: Partial<TrainingModel> = {}): TrainingModel {
  return { name, modelType: 'object_detection', versions, nextVersion, registryItemId: `acme:${name}`, ...overrides };
}

export function trainingScript(name: string, versions: readonly string[], overrides: Partial<TrainingScript> = {}): TrainingScript {
  return {
    itemId: `acme:${name}`,
    orgId: 'org-acme',
    name,
    description: '',
    versions: versions.map((version) => ({ version, uploadedAt: '2026-11-20T10:00:00.000Z', platforms: ['linux/any'] })),
    ...overrides,
  };
}

export function trainingSummary(byOrg: Record<string, { running: number; pending: number }> = {}): TrainingSummary {
  const all = Object.values(byOrg);
  return { running: all.reduce((n, o) => n + o.running, 0), pending: all.reduce((n, o) => n + o.pending, 0), byOrg };
}
