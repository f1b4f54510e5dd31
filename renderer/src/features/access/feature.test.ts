import type { Component } from 'svelte';
import { describe, expect, it } from 'vitest';
import type { KeyPermissions } from '../../../../common/access';
import type { FleetTree } from '../../../../common/locations';
import { ok } from '../../../../common/result';
import { page } from '../../lib/router/router.svelte';
import { fakeBridge, settle } from '../../lib/testing/fake-transport';
import { org } from '../../lib/testing/fixtures';
import { testShell } from '../../lib/testing/shell';
import { accessFeature } from './feature';
import type { AccessPages } from './pages.svelte';

const tree: FleetTree = {
  orgId: 'o',
  syncedAt: null,
  locations: [{ id: 'reno', name: 'Reno', parentLocationId: '', ownerOrgId: 'o', sharedWithOrgIds: [] }],
  machines: [{ id: 'm1', name: 'amr-1', locationId: 'reno', parts: [{ id: 'p1', name: 'amr-1-main', mainPart: true, lastAccess: null, markedForRestart: false }] }],
};
const owner: KeyPermissions = { orgId: 'o', organization: 0b1111, locations: { reno: 0b111 }, machines: { m1: 0b111111 }, checkedAt: '2026-11-26T10:00:00.000Z', fromCache: false };
const operatorOfReno: KeyPermissions = { ...owner, organization: 0, locations: { reno: 0b001 }, machines: { m1: 0b011101 } };

async function setup(permissions: KeyPermissions) {
  const { transport, bridge } = fakeBridge();
  transport
    .handleTree(() => ok(tree))
    .handle('access.permissions', () => ok(permissions))
    .handle('access.locationSecrets', ({ locationId }) => ok({ owner: 'location', ownerId: locationId, secrets: [] }))
    .handle('access.people', ({ orgId }) => ok({ orgId, members: [], invites: [], fromCache: false, syncedAt: null }));
  const shell = testShell(bridge, () => [org('o', 'Acme')]);
  await shell.fleet.loadTree('o');
  await shell.permissions.load('o');
  const feature = accessFeature(shell);
  shell.workbench.add([feature]);
  const Nothing = (() => ({})) as unknown as Component<Record<string, never>>;
  shell.router.register([page({ pattern: '/', owner: 'fleet', page: Nothing, props: () => ({}) })]);
  await shell.router.start();
  const pages = () => (shell.router.match?.route.props(shell.router.match) as { pages: AccessPages }).pages;
  return { transport, shell, feature, pages };
}

describe('the access feature', () => {
  it('offers an owner People, keys and roles on the organization, roles and secrets on a location, keys on a machine', async () => {
    const { feature } = await setup(owner);
    expect(feature.orgLinks?.('o').map((l) => l.route)).toEqual(['/orgs/o/people', '/orgs/o/keys', '/orgs/o/roles']);
    expect(feature.nodeLinks?.({ kind: 'location', orgId: 'o', id: 'reno' }).map((l) => l.route)).toEqual(['/orgs/o/locations/reno/roles', '/orgs/o/locations/reno/secrets']);
    expect(feature.nodeLinks?.({ kind: 'machine', orgId: 'o', id: 'm1' }).map((l) => l.id)).toEqual(['roles', 'machine-keys']);
    expect(feature.nodeLinks?.({ kind: 'part', orgId: 'o', id: 'p1' }).map((l) => l.route)).toEqual(['/orgs/o/parts/p1/secrets']);
  });

  it('offers a key scoped to a location nothing it could not read', async () => {
    const { feature } = await setup(operatorOfReno);
    expect(feature.orgLinks?.('o')).toEqual([]);
    expect(feature.nodeLinks?.({ kind: 'location', orgId: 'o', id: 'reno' })).toEqual([]);
    expect(feature.nodeLinks?.({ kind: 'part', orgId: 'o', id: 'p1' })).toEqual([]);
  });

  it('opens a page’s state on entering it and drops it on leaving', async () => {
    const { shell, pages, feature, transport } = await setup(owner);
    shell.router.go('/orgs/o/locations/reno/secrets');
    await settle();
    expect(pages().secrets?.ownerId).toBe('reno');
    expect(transport.callsTo('access.locationSecrets')).toEqual([{ locationId: 'reno' }]);
    shell.router.go('/orgs/o/people');
    await settle();
    expect(pages().secrets).toBeNull();
    expect(pages().people?.people.value?.orgId).toBe('o');
    feature.leave?.();
    expect(pages().people).toBeNull();
  });
});
