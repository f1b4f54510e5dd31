import type { Component } from 'svelte';
import type { HistoryHost } from './history';
import { LazyPage } from './lazy-page.svelte';

/** A route's `:name` segments, decoded. */
export type RouteParams = Readonly<Record<string, string>>;

/** Where the app is: a route that matched, with its parameters and query. */
export interface RouteMatch {
  /** The route's path as written in the address (`/orgs/o1/training?x=1`). */
  readonly path: string;
  readonly route: PageRoute;
  readonly params: RouteParams;
  readonly query: URLSearchParams;
}

/**
 * A page a feature shows, registered under a pattern of literal and `:name` segments
 * (`/orgs/:orgId/training/jobs/:jobId`). The router shows one page at a time: when the owner of the
 * page changes it tells the previous owner to `leave` (close what it shows), then calls `enter`.
 */
export interface PageRoute {
  readonly pattern: string;
  /** The feature the page belongs to (its `leave` is called when another feature's page comes). */
  readonly owner: string;
  /**
   * The component shown, with `props()`, read once when the page is shown (not tracked): hand it
   * stores and functions, which stay the same object while their state changes. `page()` types the
   * pair. A feature's pages are `lazyPage(() => import(…))`: their code loads on the first visit.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each route's component has its own props; page() checks the pair
  readonly page: Component<any> | LazyPage<any>;
  readonly props: (match: RouteMatch) => Record<string, unknown>;
  /**
   * Open what the page shows. `signal` aborts when another route is entered before this one is done
   * (an enter that waits, e.g. for a tree to load, must check it before changing anything).
   */
  readonly enter?: (match: RouteMatch, signal: AbortSignal) => void | Promise<void>;
}

/** A route whose component and props are checked against each other. */
export function page<P extends object>(route: {
  readonly pattern: string;
  readonly owner: string;
  readonly page: Component<P> | LazyPage<P>;
  readonly props: (match: RouteMatch) => NoInfer<P>;
  readonly enter?: PageRoute['enter'];
}): PageRoute {
  return route as PageRoute;
}

/** What the router needs from the rest of the app. */
export interface RouterOptions {
  /** Told of every route shown, to remember it for the next start (per profile). */
  readonly save?: (path: string) => void;
  /** An address no route matches (a stale bookmark, a hand-edited hash): the router shows `/` instead. */
  readonly notFound?: (path: string) => void;
  /** Told when a feature's pages are no longer shown (another feature's page came). */
  readonly leave?: (owner: string) => void;
  /**
   * Whether the page shown may be left now: asked before every move (a page with unsaved changes
   * answers no after asking the user). Absent: always.
   */
  readonly mayLeave?: () => boolean;
  /** A page's `enter` threw or rejected (a bug: stores keep their failures to show). */
  readonly failed?: (path: string, error: unknown) => void;
}

interface Compiled {
  readonly route: PageRoute;
  readonly segments: readonly string[];
}

const HOME = '/';

/** Split `/a/b?c=d` into its path segments and query. */
function parse(path: string): { segments: string[]; query: URLSearchParams } {
  const q = path.indexOf('?');
  const pathname = q < 0 ? path : path.slice(0, q);
  return { segments: pathname.split('/').filter((s) => s !== ''), query: new URLSearchParams(q < 0 ? '' : path.slice(q + 1)) };
}

/** A parameter of the matched pattern (present whenever the pattern names it: the router matched it). */
export function param(match: RouteMatch, name: string): string {
  const value = match.params[name];
  if (value === undefined) throw new Error(`Route ${match.route.pattern} has no :${name}`);
  return value;
}

/** Encode route parameters into a path: `routePath('/orgs/:orgId', { orgId: 'a b' })` is `/orgs/a%20b`. */
export function routePath(pattern: string, params: RouteParams = {}, query?: Record<string, string | undefined>): string {
  const path = pattern.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`routePath: no value for :${name} in ${pattern}`);
    return encodeURIComponent(value);
  });
  const entries = Object.entries(query ?? {}).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== '');
  // eslint-disable-next-line svelte/prefer-svelte-reactivity -- only formats the query, never state
  return entries.length === 0 ? path : `${path}?${new URLSearchParams(entries).toString()}`;
}

/**
 * The app's pages by address, with Back and Forward. Features register their routes; the router
 * owns which one is shown, keeps the address in the window's history (so Back/Forward of the
 * keyboard, the mouse, the browser and Electron all walk it) and tells the app what to remember.
 */
export class Router {
  readonly #host: HistoryHost;
  readonly #options: RouterOptions;
  readonly #routes: Compiled[] = [];
  /** The page shown; null before `start`. */
  match = $state.raw<RouteMatch | null>(null);
  #index = $state(0);
  /** The highest entry index known to exist (the forward end). */
  #last = $state(0);
  #entering: AbortController | null = null;
  #stop: (() => void) | null = null;
  /**
   * The first entry Back may reach: a profile switch starts a new stretch of history (the last
   * profile's pages are not this one's), so Back stops at the switch.
   */
  #floor = 0;
  /** Restores begun; only the latest may apply (two quick profile switches). */
  #restores = 0;
  /** A move through the entries this router asked for (already allowed), or undoing a refused one. */
  #expectedPop = false;

  constructor(host: HistoryHost, options: RouterOptions = {}) {
    this.#host = host;
    this.#options = options;
  }

  /** Add pages. A pattern registered twice is a programming error, not a preference. */
  register(routes: readonly PageRoute[]): void {
    for (const route of routes) {
      if (this.#routes.some((r) => r.route.pattern === route.pattern)) throw new Error(`Router: ${route.pattern} is registered twice`);
      this.#routes.push({ route, segments: parse(route.pattern).segments });
    }
    // The most literal pattern first: `/registry/items/:id` before `/registry/:x`.
    this.#routes.sort((a, b) => b.segments.filter((s) => !s.startsWith(':')).length - a.segments.filter((s) => !s.startsWith(':')).length);
  }

  get canGoBack(): boolean {
    return this.#index > this.#floor;
  }
  get canGoForward(): boolean {
    return this.#index < this.#last;
  }
  /** The path shown ('/' before start). */
  get path(): string {
    return this.match?.path ?? HOME;
  }

  /**
   * Show the page of the address (a reload, a link), else the one `fallback` answers (the page of
   * the last run), and follow Back/Forward. Returns the function that stops following.
   */
  start(fallback: () => Promise<string | null> | string | null = () => null): Promise<void> {
    this.#stop?.();
    this.#stop = this.#host.onPop(() => this.#popped());
    const there = this.#host.current();
    const index = this.#host.index();
    this.#index = index ?? 0;
    this.#last = this.#index;
    this.#floor = 0;
    if (there !== '') {
      this.#host.replace(there, this.#index);
      this.#show(there);
      return Promise.resolve();
    }
    // Marked as the app's first entry at once: a page gone to before the restore answers (a deep
    // link, a click) becomes this entry (see go), and Back must know where the app begins.
    this.#host.replace(HOME, this.#index);
    return this.restore(fallback);
  }

  /**
   * Show `fallback`'s page in place of the current entry (a start, another profile's last page).
   * `newStretch`: history before this entry belongs to another profile, and Back stops here.
   */
  async restore(fallback: () => Promise<string | null> | string | null, options: { readonly newStretch?: boolean } = {}): Promise<void> {
    const entering = this.match;
    const restore = ++this.#restores;
    if (options.newStretch) this.#floor = this.#index;
    const path = await (async () => fallback())().catch(() => null);
    // The user went somewhere while the remembered page was being read (that wins), or a later restore began.
    if (this.match !== entering || restore !== this.#restores) return;
    this.#replace(path && this.#find(path) ? path : HOME);
  }

  stop(): void {
    this.#stop?.();
    this.#stop = null;
    this.#entering?.abort();
  }

  /**
   * Go to `path` as a new entry (the same path again does nothing). Before the first page is shown
   * (a deep link while the start reads the last page) it becomes the first entry instead; an
   * address no page has is said and changes nothing.
   */
  go(path: string): void {
    if (path === this.match?.path) return;
    if (this.match !== null && !this.mayLeave()) return;
    if (!this.#find(path)) {
      this.#options.notFound?.(path);
      if (this.match === null) this.#replace(HOME);
      return;
    }
    if (this.match === null) {
      this.#replace(path);
      return;
    }
    const index = this.#index + 1;
    this.#host.push(path, index);
    this.#index = index;
    this.#last = index;
    this.#show(path);
  }

  /**
   * Show `path` in place of the current entry (a page that moved: a deleted job back to its list).
   * With `ifShowing`, only while that page is still the one shown: an action that answers after the
   * user went elsewhere must not take the page they are on.
   */
  replace(path: string, options: { readonly ifShowing?: readonly string[] } = {}): void {
    if (options.ifShowing && !options.ifShowing.includes(this.path)) return;
    if (path === this.match?.path) return;
    if (!this.mayLeave()) return;
    this.#replace(path);
  }

  back(): void {
    if (!this.canGoBack || !this.mayLeave()) return;
    this.#expectedPop = true;
    this.#host.go(-1);
  }

  forward(): void {
    if (!this.mayLeave()) return;
    // The forward end is not known after a reload; the history knows it and ignores a move past it.
    this.#expectedPop = true;
    this.#host.go(1);
  }

  /** Whether the page shown may be left (asks the user when it has unsaved changes). */
  mayLeave(): boolean {
    return this.#options.mayLeave?.() ?? true;
  }

  #replace(path: string): void {
    this.#host.replace(path, this.#index);
    this.#show(path);
  }

  #popped(): void {
    const path = this.#host.current() || HOME;
    const index = this.#host.index();
    const asked = this.#expectedPop;
    this.#expectedPop = false;
    if (!asked && path !== this.match?.path && !this.mayLeave()) {
      // The browser's own Back (or a typed address) away from unsaved changes the user keeps: undo the move.
      const shown = this.match?.path ?? HOME;
      if (index === null) this.#host.replace(shown, this.#index);
      else {
        this.#expectedPop = true;
        this.#host.go(this.#index - index);
      }
      return;
    }
    if (index !== null && index < this.#floor) {
      // The browser's own Back, past a profile switch: the last profile's pages are not this one's.
      this.#host.go(this.#floor - index);
      return;
    }
    if (index === null) {
      // An address typed by hand is a new entry of the app's.
      this.#index += 1;
      this.#last = this.#index;
      this.#host.replace(path, this.#index);
    } else {
      this.#index = index;
      if (index > this.#last) this.#last = index;
    }
    if (path !== this.match?.path) this.#show(path);
  }

  #find(path: string): RouteMatch | null {
    const { segments, query } = parse(path);
    for (const { route, segments: pattern } of this.#routes) {
      if (pattern.length !== segments.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (const [i, want] of pattern.entries()) {
        let got: string;
        try {
          got = decodeURIComponent(segments[i] ?? '');
        } catch {
          ok = false;
          break;
        }
        if (want.startsWith(':')) {
          if (got === '') ok = false;
          else params[want.slice(1)] = got;
        } else if (want !== got) ok = false;
      }
      if (ok) return { path, route, params, query };
    }
    return null;
  }

  #show(path: string): void {
    let match = this.#find(path);
    if (!match) {
      this.#options.notFound?.(path);
      match = this.#find(HOME);
      this.#host.replace(HOME, this.#index);
      if (!match) {
        this.match = null;
        return;
      }
    }
    const previous = this.match;
    this.#entering?.abort();
    const entering = new AbortController();
    this.#entering = entering;
    if (previous && previous.route.owner !== match.route.owner) this.#options.leave?.(previous.route.owner);
    this.match = match;
    this.#options.save?.(match.path);
    // A page's code loads on its first visit, beside its enter (which reads what it shows).
    if (match.route.page instanceof LazyPage) void match.route.page.load();
    // A page that fails to open says so (a blank page would say nothing); thrown or rejected alike.
    void (async () => match.route.enter?.(match, entering.signal))().catch((e: unknown) => {
      if (!entering.signal.aborted) this.#options.failed?.(match.path, e);
    });
  }
}
