import { describe, expect, it } from 'vitest';
import type { Fragment, FragmentView } from '../../../../common/fragments';
import { err, ok } from '../../../../common/result';
import { fakeBridge } from '../../lib/testing/fake-transport';
import { FragmentBrowser } from './browser.svelte';

const fragment: Fragment = {
  id: 'f1',
  name: 'amr-base',
  orgId: 'o1',
  orgName: 'Acme',
  visibility: 'private',
  createdOn: null,
  lastUpdated: '2026-11-26T10:00:00.000Z',
  latestRevision: '1',
  revisions: [{ revision: '1', createdOn: null }],
  tags: [],
  partCount: 0,
};

describe('a fragment browser', () => {
  it('lists with the filter and search in place, and says when the list is the cache', async () => {
    const { transport, bridge } = fakeBridge();
    transport.handle('fragments.list', () => ok({ orgId: 'o1', fragments: [fragment], fromCache: true, syncedAt: '2026-11-26T09:00:00.000Z' }));
    const browser = new FragmentBrowser(bridge, 'o1');
    await browser.load();
    await browser.filter('public');
    await browser.find('  amr ');
    expect(transport.callsTo('fragments.list')).toEqual([{ orgId: 'o1' }, { orgId: 'o1', visibilities: ['public'] }, { orgId: 'o1', visibilities: ['public'], search: 'amr' }]);
    expect(browser.fragments).toEqual([fragment]);
    expect(browser.fromCache).toBe(true);
  });

  it('creates a fragment (no config: none sent) and reads the list again; a refusal is answered, not thrown', async () => {
    const { transport, bridge } = fakeBridge();
    const view: FragmentView = { fragment, revision: '1', configJson: '{}', fromCache: false, syncedAt: fragment.lastUpdated, draft: null };
    transport.handle('fragments.list', () => ok({ orgId: 'o1', fragments: [], fromCache: false, syncedAt: null })).handle('fragments.create', (r) => (r.name === 'taken' ? err('conflict', 'A fragment named “taken” exists.') : ok(view)));
    const browser = new FragmentBrowser(bridge, 'o1');
    expect((await browser.create({ name: 'amr-base', visibility: 'public', configJson: '  ' })).ok).toBe(true);
    expect(transport.callsTo('fragments.create')).toEqual([{ orgId: 'o1', name: 'amr-base', visibility: 'public' }]);
    expect(transport.callsTo('fragments.list')).toHaveLength(1);
    const refused = await browser.create({ name: 'taken', visibility: 'private', configJson: '{"components": []}' });
    expect(refused.ok).toBe(false);
    expect(transport.callsTo('fragments.create').at(-1)).toEqual({ orgId: 'o1', name: 'taken', visibility: 'private', configJson: '{"components": []}' });
  });
});
