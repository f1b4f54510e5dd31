/**
 * The registry's upload drafts load their checks (zod) on first use: what a page shows when they
 * cannot be loaded. A process of its own (vitest.config.ts): it replaces a module.
 */
import { describe, expect, it, vi } from 'vitest';
import { ok } from '../../../../common/result';
import { fakeBridge } from '../../lib/testing/fake-transport';
import { registryModule, uploadCandidate } from '../../lib/testing/fixtures';
import { RegistryStore } from './store.svelte';

const file = (name: string) => new File([new Uint8Array(10)], name, { type: 'application/gzip' });

function setup() {
  const { transport, bridge } = fakeBridge();
  transport.handle('registry.uploads', []);
  const store = new RegistryStore(bridge, { stage: async (f) => ok({ stagedId: `staged-${f.name}-0123456789`, fileName: f.name }) });
  store.follow();
  return { transport, store };
}

describe('upload drafts', () => {
  it('loads the draft checks with the first files; when they cannot be loaded, no draft can go and each says why, until the next files load them', async () => {
    const { transport, store } = setup();
    transport.handle('registry.module', registryModule('stepper'));
    transport.handle('registry.inspect', (r) => ok(r.sources.map((s) => uploadCandidate(s, 'a.tar.gz'))));
    vi.doMock('./draft-checks', () => {
      throw new Error('Failed to fetch dynamically imported module');
    });
    try {
      const view = store.showModule('acme:stepper');
      await view.addFiles([file('a.tar.gz')], (f) => `/home/me/${f.name}`);
      expect(view.drafts[0]?.state).toBe('ready');
      expect(view.errorsOf(view.drafts[0]!).version).toMatch(/^Can't be checked: the checks could not be loaded \(.+\)\. Check that the app is still running/);
      expect(view.uploadable).toEqual([]);
      vi.doUnmock('./draft-checks');
      await view.addFiles([file('b.tar.gz')], (f) => `/home/me/${f.name}`);
      const twin = { version: null, platform: 'Another file is set to 1.2.0 for linux/arm64 too.' };
      expect(view.drafts.map((d) => view.errorsOf(d))).toEqual([twin, twin]);
    } finally {
      vi.doUnmock('./draft-checks');
    }
  });
});
