/**
 * Where the router keeps its entries. In the app it is the window's own history with the route in the
 * URL's hash (`#/orgs/o1/training`): a reload keeps the page, the browser's and Electron's Back and
 * Forward walk it, and a link to the address is a link to the page. Tests use the memory one.
 */
export interface HistoryHost {
  /** The route of the entry shown now ('' when the address holds none, e.g. a fresh start). */
  current(): string;
  /** This entry's position among the app's own entries (0 = the first one the app made), or null when the entry is not the app's (a fresh start). */
  index(): number | null;
  /** A new entry after the current one (dropping those forward of it). */
  push(route: string, index: number): void;
  /** The current entry shows another route. */
  replace(route: string, index: number): void;
  /** Move `delta` entries; the move is reported through `onPop`. */
  go(delta: number): void;
  /** Told after a move through the entries (Back/Forward of any origin). */
  onPop(listener: () => void): () => void;
}

interface EntryState {
  readonly fleetDeskIndex: number;
}

function indexOf(state: unknown): number | null {
  if (typeof state !== 'object' || state === null) return null;
  const value = (state as Partial<EntryState>).fleetDeskIndex;
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null;
}

/** The window's history, the route in the hash. */
export function browserHistory(win: Window): HistoryHost {
  const hashRoute = (): string => {
    const hash = win.location.hash;
    if (!hash.startsWith('#/')) return '';
    return hash.slice(1);
  };
  // pushState and replaceState change the hash without a hashchange or popstate event: no echo.
  const url = (route: string) => `${win.location.pathname}${win.location.search}#${route}`;
  return {
    current: hashRoute,
    index: () => indexOf(win.history.state),
    push: (route, index) => win.history.pushState({ fleetDeskIndex: index } satisfies EntryState, '', url(route)),
    replace: (route, index) => win.history.replaceState({ fleetDeskIndex: index } satisfies EntryState, '', url(route)),
    go: (delta) => win.history.go(delta),
    onPop(listener) {
      // A hand-edited hash arrives as hashchange (and popstate): the router reads the address once per move.
      let scheduled = false;
      const fire = () => {
        if (scheduled) return;
        scheduled = true;
        queueMicrotask(() => {
          scheduled = false;
          listener();
        });
      };
      win.addEventListener('popstate', fire);
      win.addEventListener('hashchange', fire);
      return () => {
        win.removeEventListener('popstate', fire);
        win.removeEventListener('hashchange', fire);
      };
    },
  };
}

/** Entries in memory, moves reported at once (tests, and nothing else). */
export function memoryHistory(initial = ''): HistoryHost & { readonly entries: readonly string[]; readonly at: number } {
  const entries: { route: string; index: number | null }[] = [{ route: initial, index: null }];
  let at = 0;
  const listeners = new Set<() => void>();
  return {
    get entries() {
      return entries.map((e) => e.route);
    },
    get at() {
      return at;
    },
    current: () => entries[at]?.route ?? '',
    index: () => entries[at]?.index ?? null,
    push(route, index) {
      entries.splice(at + 1, entries.length, { route, index });
      at += 1;
    },
    replace(route, index) {
      entries[at] = { route, index };
    },
    go(delta) {
      const next = at + delta;
      if (next < 0 || next >= entries.length || delta === 0) return;
      at = next;
      for (const listener of [...listeners]) listener();
    },
    onPop(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
