import { page } from '../../lib/router/router.svelte';
import type { Feature, Shell } from '../../lib/shell/feature';
import ConfigPage from './ConfigPage.svelte';
import { ConfigPages } from './pages.svelte';
import { CONFIG_ROUTES, partConfigPath } from './routes';

/** Configuration: a part's config, edited safely (conflict-checked saves, a three-way merge), and its history. */
export function configFeature(shell: Shell): Feature {
  const pages = new ConfigPages(shell);
  return {
    id: 'config',
    routes: [page({ pattern: CONFIG_ROUTES.part, owner: 'config', page: ConfigPage, props: () => ({ shell, pages }), enter: (m) => pages.enterPart(m) })],
    leave: () => pages.leave(),
    reset: () => pages.leave(),
    leaveGuard: () => pages.unsaved(),
    nodeLinks: (ref) => (ref.kind === 'part' ? [{ id: 'config', label: 'Config', icon: 'cpu', title: "This part's config: edit, merge, history", route: partConfigPath({ ...ref, kind: 'part' }), testId: 'part-config' }] : []),
  };
}
