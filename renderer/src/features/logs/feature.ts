import type { NodeKind } from '../../lib/fleet/fleet-index';
import { page } from '../../lib/router/router.svelte';
import { lazyPage } from '../../lib/router/lazy-page.svelte';
import type { Feature, Shell } from '../../lib/shell/feature';
import { LogsPages } from './pages.svelte';
import { LOGS_ROUTES, nodeLogsPath } from './routes';

// Each page's code loads on its first visit (a chunk of its own): not on the boot path.
const LogsPage = lazyPage(() => import('./LogsPage.svelte'));

const NODE_LINK_TITLES = {
  location: 'The logs of every machine here, merged and live',
  machine: "Every part of this machine's logs, merged and live",
  part: "This part's logs, live",
} as const;

/** Logs: a node's live logs, sets of parts, the search of every cached line (Ctrl/Cmd+Shift+F). */
export function logsFeature(shell: Shell): Feature {
  // An empty list is not known yet (the first read): a page for an organization waits for it.
  const pages = new LogsPages(shell, () => shell.fleet.orgs.length > 0);
  const props = () => ({ shell, pages });
  const node = (kind: Exclude<NodeKind, 'org'>) =>
    page({ pattern: LOGS_ROUTES[kind], owner: 'logs', page: LogsPage, props, enter: (match, signal) => pages.enterNode(kind, match, signal) });
  const openSearch = () => shell.router.go(LOGS_ROUTES.search);
  return {
    id: 'logs',
    routes: [
      node('part'),
      node('machine'),
      node('location'),
      page({ pattern: LOGS_ROUTES.parts, owner: 'logs', page: LogsPage, props, enter: (match, signal) => pages.enterParts(match, signal) }),
      page({ pattern: LOGS_ROUTES.search, owner: 'logs', page: LogsPage, props, enter: () => pages.enterSearch() }),
    ],
    leave: () => pages.leave(),
    follow: () => pages.store.follow(),
    reset: () => pages.reset(),
    keys: () => ({
      '$mod+Shift+KeyF': (event) => {
        event.preventDefault();
        openSearch();
      },
    }),
    nodeLinks: (ref) =>
      ref.kind === 'org' ? [] : [{ id: 'logs', label: 'Logs', icon: 'layers', primary: true, title: NODE_LINK_TITLES[ref.kind], route: nodeLogsPath({ ...ref, kind: ref.kind }) }],
    nav: () => [
      {
        id: 'logs-search',
        label: 'Search logs (Ctrl+Shift+F)',
        title: 'Search every cached log line (Ctrl+Shift+F)',
        icon: 'search',
        pressed: shell.router.match?.route.pattern === LOGS_ROUTES.search,
        run: openSearch,
      },
    ],
  };
}
