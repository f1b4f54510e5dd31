import { page } from '../../lib/router/router.svelte';
import type { Feature, Shell } from '../../lib/shell/feature';
import ConfigPage from './ConfigPage.svelte';
import DraftsPage from './DraftsPage.svelte';
import { ConfigPages } from './pages.svelte';
import { CONFIG_ROUTES, partConfigPath } from './routes';

/** Configuration: a part's config, edited safely (conflict-checked saves, a three-way merge, drafts kept offline), and its history. */
export function configFeature(shell: Shell): Feature {
  const pages = new ConfigPages(shell);
  const props = () => ({ shell, pages });
  return {
    id: 'config',
    routes: [
      page({ pattern: CONFIG_ROUTES.part, owner: 'config', page: ConfigPage, props, enter: (m) => pages.enterPart(m) }),
      page({ pattern: CONFIG_ROUTES.drafts, owner: 'config', page: DraftsPage, props, enter: () => pages.enterDrafts() }),
    ],
    leave: () => pages.leave(),
    reset: () => pages.reset(),
    leaveGuard: () => pages.unsaved(),
    effects: () => pages.effects(),
    nodeLinks: (ref) => (ref.kind === 'part' ? [{ id: 'config', label: 'Config', icon: 'cpu', title: "This part's config: edit, merge, history", route: partConfigPath({ ...ref, kind: 'part' }), testId: 'part-config' }] : []),
    // Shown only while edits wait to be saved: a button that is always there and mostly empty is noise.
    nav: () =>
      pages.drafts.length === 0
        ? []
        : [
            {
              id: 'config-drafts',
              label: 'Config drafts',
              title: `${pages.drafts.length === 1 ? 'A config edit' : `${pages.drafts.length} config edits`} kept as drafts, waiting to be saved`,
              icon: 'cpu',
              badge: pages.drafts.length,
              pressed: shell.router.match?.route.pattern === CONFIG_ROUTES.drafts,
              testId: 'config-drafts',
              run: () => shell.router.go(CONFIG_ROUTES.drafts),
            },
          ],
    commands: () =>
      pages.drafts.length === 0 ? [] : [{ id: 'config-drafts', name: 'Config drafts', context: 'Edits kept while offline, waiting to be saved', icon: 'cpu', run: () => shell.router.go(CONFIG_ROUTES.drafts) }],
  };
}
