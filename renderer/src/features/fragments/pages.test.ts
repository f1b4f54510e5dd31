import { describe, expect, it } from 'vitest';
import type { FragmentDraft, FragmentView } from '../../../../common/fragments';
import { ok } from '../../../../common/result';
import type { PageRoute, RouteMatch } from '../../lib/router/router.svelte';
import { fakeBridge, settle } from '../../lib/testing/fake-transport';
import { testShell } from '../../lib/testing/shell';
import { FragmentPages } from './pages.svelte';

const draft: FragmentDraft = { fragmentId: 'f1', orgId: 'o1', name: 'amr-base', configJson: '{"a": 2}', baseConfigJson: '{}', baseLastUpdated: '2026-11-26T10:00:00.000Z', savedAt: '2026-11-26T10:01:00.000Z' };
const view: FragmentView = {
  fragment: { id: 'f1', name: 'amr-base', orgId: 'o1', orgName: 'Acme', visibility: 'private', createdOn: null, lastUpdated: '2026-11-26T10:00:00.000Z', latestRevision: '1', revisions: [], tags: [], partCount: 0 },
  revision: '1',
  configJson: '{}',
  fromCache: false,
  syncedAt: '2026-11-26T10:00:00.000Z',
  draft: null,
};
const match = (params: Record<string, string>, query = ''): RouteMatch => ({ path: '', route: {} as PageRoute, params, query: new URLSearchParams(query) });

function setup(offline = false) {
  const { transport, bridge } = fakeBridge();
  transport
    .handle('fragments.drafts', () => ok([draft]))
    .handle('fragments.get', () => ok(view))
    .handle('fragments.list', () => ok({ orgId: 'o1', fragments: [view.fragment], fromCache: false, syncedAt: null }))
    .handle('fragments.history', () => ok({ fragmentId: 'f1', entries: [], nextPageToken: '', fromCache: false, syncedAt: null }))
    .handle('fragments.usage', () => ok({ fragmentId: 'f1', orgId: 'o1', partCount: 0, machineCount: 0, machines: [] }))
    .handle('fragments.saveDraft', (r) => ok({ ...draft, configJson: r.configJson }));
  const shell = testShell(bridge, () => [], { offline });
  return { transport, shell, pages: new FragmentPages(shell) };
}

describe('the fragment pages', () => {
  it('when the link comes back the drafts kept are read again; offered by name when the service can be reached', async () => {
    const { shell, pages } = setup();
    pages.reload();
    await settle();
    expect(pages.drafts).toEqual([draft]);
    expect(shell.notices.items).toEqual([]);
    await pages.loadDrafts(true);
    expect(shell.notices.items.at(-1)?.message).toMatch(/unsaved edit of the fragment “amr-base” is kept/);
  });

  it('an unsaved edit guards leaving online; offline it is kept as a draft on leaving instead', async () => {
    const online = setup();
    await online.pages.enterFragment(match({ orgId: 'o1', id: 'f1' }));
    await settle();
    online.pages.page?.document.edit('{"a": 1}');
    expect(online.pages.unsaved()).toMatch(/“amr-base” has unsaved changes/);

    const offline = setup(true);
    await offline.pages.enterFragment(match({ orgId: 'o1', id: 'f1' }));
    await settle();
    offline.pages.page?.document.edit('{"a": 1}');
    expect(offline.pages.unsaved()).toBeNull();
    offline.pages.leave();
    await settle();
    expect(offline.transport.callsTo('fragments.saveDraft')).toEqual([{ fragmentId: 'f1', configJson: '{"a": 1}', baseConfigJson: '{}', baseLastUpdated: '2026-11-26T10:00:00.000Z' }]);
  });

  it('a fragment showing its kept draft is left without asking; typing on makes it ask again', async () => {
    const { pages, transport } = setup();
    transport.handle('fragments.get', () => ok({ ...view, draft }));
    await pages.enterFragment(match({ orgId: 'o1', id: 'f1' }));
    await settle();
    expect(pages.page?.document.text).toBe(draft.configJson);
    expect(pages.unsaved()).toBeNull();
    pages.page?.document.edit('{"a": 3}');
    expect(pages.unsaved()).toMatch(/unsaved changes/);
  });

  it('the same fragment at another version keeps its page and the edit in it', async () => {
    const { pages } = setup();
    await pages.enterFragment(match({ orgId: 'o1', id: 'f1' }));
    await settle();
    const page = pages.page;
    page?.document.edit('{"a": 1}');
    void pages.enterFragment(match({ orgId: 'o1', id: 'f1' }, 'version=1'));
    expect(pages.page).toBe(page);
    expect(page?.version).toBe('1');
    expect(page?.document.text).toBe('{"a": 1}');
  });
});
