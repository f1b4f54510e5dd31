import type { Component } from 'svelte';
import { describe, expect, it, vi } from 'vitest';
import type { ConfigDraft, PartConfig } from '../../../../common/config';
import type { FleetTree } from '../../../../common/locations';
import { ok } from '../../../../common/result';
import { page } from '../../lib/router/router.svelte';
import { fakeBridge, settle } from '../../lib/testing/fake-transport';
import { org } from '../../lib/testing/fixtures';
import { testShell } from '../../lib/testing/shell';
import { configFeature } from './feature';
import type { ConfigPages } from './pages.svelte';

const tree: FleetTree = {
  orgId: 'o',
  syncedAt: null,
  locations: [{ id: 'site', name: 'Site', parentLocationId: '', ownerOrgId: 'o', sharedWithOrgIds: [] }],
  machines: [{ id: 'm1', name: 'bot', locationId: 'site', parts: [{ id: 'p1', name: 'bot-main', mainPart: true, lastAccess: null, markedForRestart: false }] }],
};
const config: PartConfig = { partId: 'p1', machineId: 'm1', name: 'bot-main', configJson: '{\n  "components": []\n}', lastUpdated: '2026-11-26T10:00:00.000Z', fromCache: true, syncedAt: '2026-11-26T10:00:00.000Z', draft: null };
const draft = (partId: string, partName: string): ConfigDraft => ({ partId, machineId: 'm1', partName, configJson: '{}', baseConfigJson: '{}', baseLastUpdated: '2026-11-26T10:00:00.000Z', savedAt: '2026-11-26T10:30:00.000Z' });

/** The config feature over a real router and fleet store, main faked; `offline` as the connection says. */
async function setup(offline: boolean) {
  const { transport, bridge } = fakeBridge();
  let drafts: ConfigDraft[] = [];
  transport
    .handleTree(({ orgId }) => ok(orgId === 'o' ? tree : { ...tree, orgId, locations: [], machines: [] }))
    .handle('config.part', () => ok(config))
    .handle('config.history', () => ok({ partId: 'p1', entries: [], nextPageToken: '', fromCache: true, syncedAt: null }))
    .handle('config.drafts', () => ok(drafts))
    .handle('config.saveDraft', (r) => {
      const kept = { ...draft(r.partId, 'bot-main'), configJson: r.configJson, baseConfigJson: r.baseConfigJson };
      drafts = [kept];
      return ok(kept);
    })
    .handle('ui.set', {});
  const shell = testShell(bridge, () => [org('o', 'Acme')], { offline });
  const feature = configFeature(shell);
  shell.workbench.add([feature]);
  const Nothing = (() => ({})) as unknown as Component<Record<string, never>>;
  shell.router.register(['/', '/orgs/:orgId/parts/:id'].map((pattern) => page({ pattern, owner: 'fleet', page: Nothing, props: () => ({}) })));
  await shell.router.start();
  const pages = () => (shell.router.match?.route.props(shell.router.match) as { pages: ConfigPages }).pages;
  return { transport, shell, feature, pages, setDrafts: (d: ConfigDraft[]) => (drafts = d) };
}

/** The part's page is shown and read: its state module is imported on entering, then it reads the config. */
async function opened(pages: () => ConfigPages): Promise<void> {
  await vi.waitFor(() => expect(pages().page?.edit.loading).toBe(false));
  await settle();
}

describe('config drafts', () => {
  it('offline, leaving an edited config asks nothing and keeps the edit as a draft, then says so', async () => {
    const { shell, feature, pages, transport } = await setup(true);
    shell.router.go('/orgs/o/parts/p1/config');
    await opened(pages);
    const open = pages().page!;
    open.document.edit('{\n  "components": [{ "name": "cam", "api": "rdk:component:camera" }]\n}');
    expect(feature.leaveGuard?.()).toBeNull();
    shell.router.go('/');
    await settle();
    expect(transport.callsTo('config.saveDraft')).toEqual([
      { partId: 'p1', configJson: open.document.text, baseConfigJson: config.configJson, baseLastUpdated: config.lastUpdated },
    ]);
    expect(shell.notices.items.map((n) => n.message)).toEqual(['Your edit of “bot-main” is kept as a draft; save it once the service is back.']);
    expect(feature.nav?.().map((n) => [n.id, n.badge])).toEqual([['config-drafts', 1]]);
  });

  it('online, an edited config asks before it is left', async () => {
    const { shell, feature, pages } = await setup(false);
    shell.router.go('/orgs/o/parts/p1/config');
    await opened(pages);
    pages().page!.document.edit('{ "services": [] }');
    expect(feature.leaveGuard?.()).toMatch(/unsaved changes/);
  });

  it('online, a config showing its kept draft is left without asking: the draft keeps it', async () => {
    const { shell, feature, pages, transport } = await setup(false);
    const kept = { ...draft('p1', 'bot-main'), configJson: '{ "services": [] }', baseConfigJson: config.configJson };
    transport.handle('config.part', () => ok({ ...config, draft: kept }));
    shell.router.go('/orgs/o/parts/p1/config');
    await opened(pages);
    expect(pages().page!.document.dirty).toBe(true);
    expect(feature.leaveGuard?.()).toBeNull();
    pages().page!.document.edit('{ "services": [], "modules": [] }');
    expect(feature.leaveGuard?.()).toMatch(/unsaved changes/);
  });

  it('drafts are offered once the service is reachable, and each opens its part by the tree that holds it', async () => {
    const { shell, feature, setDrafts } = await setup(false);
    expect(feature.nav?.()).toEqual([]);
    setDrafts([draft('p1', 'bot-main'), draft('gone', 'old-part')]);
    shell.router.go('/config/drafts');
    await settle();
    const pages = (shell.router.match?.route.props(shell.router.match) as { pages: ConfigPages }).pages;
    await pages.offerDrafts();
    expect(shell.notices.items.at(-1)?.message).toMatch(/^2 config edits kept while the service could not be reached wait to be saved: “bot-main”, “old-part”\./);
    expect(pages.draftRoute(pages.drafts[0]!)).toBe('/orgs/o/parts/p1/config');
    expect(pages.draftRoute(pages.drafts[1]!)).toBeNull();
    expect(feature.nav?.()[0]).toMatchObject({ id: 'config-drafts', badge: 2, pressed: true });
  });
});
