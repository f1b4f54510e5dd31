import type { ConnectionState } from '../../../../common/connection';
import type { LocalServiceState } from '../../../../common/local-service';
import type { Organization, OrgsSnapshot } from '../../../../common/orgs';
import type { ProfileView, ProfilesState } from '../../../../common/profiles';
import type { Module, RegistryItem, Upload } from '../../../../common/registry';

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
