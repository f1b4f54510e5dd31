import { describe, expect, it } from 'vitest';
import type { Fragment } from '../../../../common/fragments';
import type { Module, RegistryItem } from '../../../../common/registry';
import { configChoices } from './choices';

const module = (id: string, models: Module['models'], version?: string): Module => ({
  id,
  name: id.split(':')[1] ?? id,
  orgId: 'o1',
  url: '',
  description: 'Lidar SLAM\nmore',
  models,
  entrypoint: '',
  visibility: 'private',
  versions: version ? [{ version, platforms: [], models, entrypoint: '', uploadedAt: null, files: [] }] : [],
  apps: [],
  firstRun: '',
  createdAt: null,
  updatedAt: null,
});
const item = (id: string, type: RegistryItem['type'] = 'module'): RegistryItem => ({ id, orgId: 'o2', publicNamespace: 'other', name: id, type, visibility: 'public', status: 'published', description: 'A public module', url: '', platforms: [], markdown: null, createdAt: null, updatedAt: null, totalRobotUsage: 0 });
const fragment = (id: string, name: string, orgName: string): Fragment => ({ id, name, orgId: 'o1', orgName, visibility: 'public', createdOn: null, lastUpdated: '2026-11-26T10:00:00.000Z', latestRevision: '4', revisions: [], tags: [], partCount: 2 });

describe('completion choices from the registry and the fragments', () => {
  it('offers the organization’s modules with their models, then public modules, then fragments, each id once', () => {
    const slam = { api: 'rdk:service:slam', model: 'acme:slam:cartographer-lite' };
    const choices = configChoices(
      [module('acme:lidar-slam', [slam], '1.2.0'), module('acme:wms', [])],
      [item('acme:lidar-slam'), item('other:gps'), item('other:model', 'ml_model')],
      [fragment('f1', 'AMR base', 'Acme'), fragment('f1', 'AMR base', 'Acme'), fragment('f2', 'Lidar', 'Acme')],
    );
    expect(choices.modules).toEqual([
      { id: 'acme:lidar-slam', models: [slam], detail: 'v1.2.0' },
      { id: 'acme:wms', models: [], detail: 'Lidar SLAM' },
      { id: 'other:gps', models: [], detail: 'A public module' },
    ]);
    expect(choices.fragments).toEqual([
      { id: 'f1', name: 'AMR base', detail: 'Acme · public · r4' },
      { id: 'f2', name: 'Lidar', detail: 'Acme · public · r4' },
    ]);
  });
});
