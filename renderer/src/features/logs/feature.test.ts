import type { Component } from 'svelte';
import { describe, expect, it } from 'vitest';
import { page } from '../../lib/router/router.svelte';
import type { FleetTree } from '../../../../common/locations';
import { fakeBridge, settle } from '../../lib/testing/fake-transport';
import { org } from '../../lib/testing/fixtures';
import { testShell } from '../../lib/testing/shell';
import { logsFeature } from './feature';
import type { LogsPages } from './pages.svelte';

const tree: FleetTree = {
  orgId: 'o',
  syncedAt: null,
  locations: [{ id: 'site', name: 'Site', parentLocationId: '', ownerOrgId: 'o', sharedWithOrgIds: [] }],
  machines: [
    {
      id: 'm1',
      name: 'bot',
      locationId: 'site',
      parts: [
        { id: 'p1', name: 'bot-main', mainPart: true, lastAccess: null, markedForRestart: false },
        { id: 'p2', name: 'bot-arm', mainPart: false, lastAccess: null, markedForRestart: false },
      ],
    },
  ],
};

/** The logs feature over a real router and fleet store, main faked. */
async function setup() {
  const { transport, bridge } = fakeBridge();
  transport
    .handleTree(({ orgId }) => ({ ok: true, value: orgId === 'o' ? tree : { ...tree, orgId, locations: [], machines: [] } }))
    .handle('logs.open', { viewId: 'v1', total: 0, sources: [], oldestMs: null, newestMs: null })
    .handle('logs.histogram', { startMs: 0, stepMs: 1, counts: [[], [], [], []] })
    .handle('logs.status', {})
    .handle('logs.close', {})
    .handle('logs.search', { hits: [], more: false, tookMs: 1 })
    .handle('ui.set', {});
  const shell = testShell(bridge, () => [org('o', 'Acme')]);
  const feature = logsFeature(shell);
  shell.workbench.add([feature]);
  // The pages logs lead to (another feature's), as addresses only.
  const Nothing = (() => ({})) as unknown as Component<Record<string, never>>;
  shell.router.register(['/', '/orgs/:orgId', '/orgs/:orgId/parts/:id'].map((pattern) => page({ pattern, owner: 'fleet', page: Nothing, props: () => ({}) })));
  const stop = shell.workbench.follow();
  await shell.router.start();
  const pages = () => (shell.router.match?.route.props(shell.router.match) as { pages: LogsPages }).pages;
  return { transport, shell, feature, stop, pages };
}

describe('log pages', () => {
  it('a page restored before its tree arrived waits for it, then opens the node\'s parts', async () => {
    const { shell, transport, pages } = await setup();
    shell.router.go('/orgs/o/machines/m1/logs');
    expect(pages().waiting).toBe(true);
    expect(transport.callsTo('logs.open')).toEqual([]);
    void shell.fleet.loadTree('o');
    await settle();
    expect(pages().waiting).toBe(false);
    expect(pages().store.view?.target).toMatchObject({ kind: 'machine', orgId: 'o', title: 'bot', partIds: ['p1', 'p2'] });
  });

  it('a part the tree no longer has is opened by id (its cached lines); a machine it lacks says so', async () => {
    const { shell, pages } = await setup();
    await shell.fleet.loadTree('o');
    shell.router.go('/orgs/o/parts/gone/logs?line=42');
    await settle();
    expect(pages().store.view?.target).toEqual({ kind: 'part', orgId: 'o', title: 'gone', partIds: ['gone'] });
    expect(pages().store.view?.reveal).toBe(42);
    shell.router.go('/orgs/o/machines/gone/logs');
    await settle();
    expect(pages().store.view).toBeNull();
    expect(pages().missing).toEqual({ what: 'It is not in the cached fleet any more (deleted, or moved to another organization).', route: '/orgs/o' });
  });

  it('adding a part keeps the filter, on a new entry; closing goes to the node\'s page; the search closes back', async () => {
    const { shell, pages } = await setup();
    await shell.fleet.loadTree('o');
    shell.router.go('/orgs/o/parts/p1/logs');
    await settle();
    const view = pages().store.view;
    if (!view) throw new Error('no view');
    view.filter = { ...view.filter, text: 'stalled' };
    pages().addPart('p2');
    await settle();
    expect(shell.router.path).toBe('/orgs/o/logs?parts=p1%2Cp2');
    expect(pages().store.view?.target.partIds).toEqual(['p1', 'p2']);
    expect(pages().store.view?.filter.text).toBe('stalled');
    shell.router.back();
    await settle();
    pages().close();
    expect(shell.router.path).toBe('/orgs/o/parts/p1');
    shell.router.go('/logs/search');
    pages().openHit({ orgId: 'o', partId: 'p2', key: 7 } as Parameters<LogsPages['openHit']>[0]);
    expect(shell.router.path).toBe('/orgs/o/parts/p2/logs?line=7');
    shell.router.back();
    pages().close();
    expect(shell.router.path).toBe('/orgs/o/parts/p1');
  });

  it('contributes the node pages\' Logs link and the search shortcut; leaving closes the view', async () => {
    const { shell, feature, pages, transport } = await setup();
    expect(feature.nodeLinks?.({ kind: 'machine', orgId: 'o', id: 'm1' }).map((l) => l.route)).toEqual(['/orgs/o/machines/m1/logs']);
    expect(feature.nodeLinks?.({ kind: 'org', orgId: 'o', id: 'o' })).toEqual([]);
    expect(Object.keys(feature.keys?.() ?? {})).toEqual(['$mod+Shift+KeyF']);
    await shell.fleet.loadTree('o');
    shell.router.go('/orgs/o/parts/p1/logs');
    await settle();
    const logs = pages();
    shell.workbench.leave('logs');
    expect(logs.store.view).toBeNull();
    expect(transport.callsTo('logs.close').length).toBeGreaterThan(0);
  });
});
