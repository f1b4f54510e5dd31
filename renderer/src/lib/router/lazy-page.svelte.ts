import type { Component } from 'svelte';

/** What a page's `import('./XPage.svelte')` resolves to. */
export interface PageModule<P extends object> {
  readonly default: Component<P>;
}

/**
 * A page whose code loads on its first visit (a chunk of its own: `lazyPage(() => import('./XPage.svelte'))`),
 * so the boot path carries the shell and not every domain's editors, charts and tables. The router
 * starts the load when the route is shown, beside the page's `enter`; RoutePage.svelte shows
 * PaneLoading until it is in, and what failed with a way to try again when the chunk could not be
 * fetched (an app updated under an open window, a backend gone away in browser mode).
 */
export class LazyPage<P extends object> {
  readonly #loader: () => Promise<PageModule<P>>;
  #loading: Promise<void> | null = null;
  /** `idle` before the first visit; `ready` once `component` is set, for good. */
  status = $state<'idle' | 'loading' | 'ready' | 'failed'>('idle');
  component = $state.raw<Component<P> | null>(null);
  /** Why the last load failed, for people; null unless `failed`. */
  error = $state.raw<string | null>(null);

  constructor(loader: () => Promise<PageModule<P>>) {
    this.#loader = loader;
  }

  /** Load the page's code once; calls while it loads or after it loaded share that load. A failure is kept (see `retry`), never thrown. */
  load(): Promise<void> {
    this.#loading ??= this.#load();
    return this.#loading;
  }

  /** Load again after a failure (Retry); nothing to do otherwise. */
  retry(): Promise<void> {
    if (this.status === 'failed') this.#loading = null;
    return this.load();
  }

  async #load(): Promise<void> {
    this.status = 'loading';
    this.error = null;
    try {
      const module = await this.#loader();
      this.component = module.default;
      this.status = 'ready';
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
      this.status = 'failed';
    }
  }
}

/** A page loaded on its first visit: `page({ …, page: lazyPage(() => import('./XPage.svelte')) })`. */
export function lazyPage<P extends object>(loader: () => Promise<PageModule<P>>): LazyPage<P> {
  return new LazyPage(loader);
}

/** What the owner says when the code of what it opened (`title`: a dialog, a form) could not be loaded; the next open tries again. */
export function couldNotLoad(title: string, reason: string): string {
  return `Couldn't open “${title}”: its code could not be loaded (${reason}). Check that the app is still running, then try again.`;
}
