import type { Component } from 'svelte';
import { describe, expect, it } from 'vitest';
import { memoryHistory } from './history';
import { LazyPage, lazyPage, type PageModule } from './lazy-page.svelte';
import { page, Router } from './router.svelte';

const Nothing = (() => ({})) as unknown as Component<{ n?: number }>;

/** A loader whose every call waits for the test to settle it: a chunk's fetch, held. */
function heldLoader() {
  const calls: { resolve: (m: PageModule<{ n?: number }>) => void; reject: (e: Error) => void }[] = [];
  const loader = () => new Promise<PageModule<{ n?: number }>>((resolve, reject) => calls.push({ resolve, reject }));
  return { loader, calls };
}

describe('a page loaded on its first visit', () => {
  it('loads once: loading, then ready with the component; later visits share that load', async () => {
    const { loader, calls } = heldLoader();
    const lazy = lazyPage(loader);
    expect(lazy.status).toBe('idle');
    const first = lazy.load();
    const second = lazy.load();
    expect(lazy.status).toBe('loading');
    expect(lazy.component).toBeNull();
    expect(calls).toHaveLength(1);
    calls[0]!.resolve({ default: Nothing });
    await Promise.all([first, second]);
    expect(lazy.status).toBe('ready');
    expect(lazy.component).toBe(Nothing);
    await lazy.load();
    await lazy.retry();
    expect(calls).toHaveLength(1);
  });

  it('keeps a failed load as an error (never thrown) until Retry fetches again', async () => {
    const { loader, calls } = heldLoader();
    const lazy = lazyPage(loader);
    const loading = lazy.load();
    calls[0]!.reject(new TypeError('Failed to fetch dynamically imported module: app://fleet-desk/assets/LogsPage.js'));
    await expect(loading).resolves.toBeUndefined();
    expect(lazy.status).toBe('failed');
    expect(lazy.error).toContain('Failed to fetch dynamically imported module');
    // Showing the route again does not hammer the backend: the failure stands until the user retries.
    await lazy.load();
    expect(calls).toHaveLength(1);
    const retried = lazy.retry();
    expect(lazy.status).toBe('loading');
    expect(lazy.error).toBeNull();
    calls[1]!.resolve({ default: Nothing });
    await retried;
    expect(lazy.status).toBe('ready');
    expect(lazy.component).toBe(Nothing);
  });

  it('starts loading when the router shows its route, and not before', async () => {
    const { loader, calls } = heldLoader();
    const logs = lazyPage(loader);
    const router = new Router(memoryHistory(''));
    router.register([page({ pattern: '/', owner: 'fleet', page: Nothing, props: () => ({}) }), page({ pattern: '/logs', owner: 'logs', page: logs, props: () => ({}) })]);
    await router.start();
    expect(calls).toHaveLength(0);
    router.go('/logs');
    expect(router.match?.route.page).toBeInstanceOf(LazyPage);
    expect(logs.status).toBe('loading');
    expect(calls).toHaveLength(1);
  });
});
