import { page, param } from '../../lib/router/router.svelte';
import { lazyPage } from '../../lib/router/lazy-page.svelte';
import type { Feature, Shell } from '../../lib/shell/feature';
import { REGISTRY_ROUTES, registryPath } from './routes';
import { noStaging, stageWithFetch } from './staging';
import { RegistryStore } from './store.svelte';

// Each page's code loads on its first visit (a chunk of its own): not on the boot path.
const RegistryPage = lazyPage(() => import('./RegistryPage.svelte'));

/** The registry: modules, ML models, training scripts and archives, their versions and uploads. */
export function registryFeature(shell: Shell): Feature {
  const { router } = shell;
  // Browser mode hands dropped files to its loopback server; Electron gives main their paths instead.
  const store = new RegistryStore(shell.bridge, {
    stage: shell.browserMode ? stageWithFetch : noStaging,
    navigate: (path, options) => (options?.replace ? router.replace(path, options) : router.go(path)),
  });
  const props = () => ({ shell, store });
  return {
    id: 'registry',
    routes: [
      page({ pattern: REGISTRY_ROUTES.list, owner: 'registry', page: RegistryPage, props, enter: (m) => store.show(m.query.get('org') ?? undefined) }),
      page({ pattern: REGISTRY_ROUTES.item, owner: 'registry', page: RegistryPage, props, enter: (m) => void store.showItem(param(m, 'itemId')) }),
      page({ pattern: REGISTRY_ROUTES.module, owner: 'registry', page: RegistryPage, props, enter: (m) => void store.showModule(param(m, 'moduleId')) }),
    ],
    leave: () => store.close(),
    follow: () => store.follow(),
    reset: () => store.reset(),
    // Upload events may have been missed while the link was down: the queue is read again.
    reload: () => void store.uploads.load(),
    orgLinks: (orgId) => [{ id: 'registry', label: 'Modules & registry', icon: 'layers', route: registryPath({ orgId }) }],
    commands: () => [
      { id: 'registry', name: 'Registry', context: 'Modules, ML models, training scripts and archives', icon: 'layers', run: () => router.go(registryPath({})) },
      ...shell.fleet.orgs.map((o) => ({ id: `registry:${o.id}`, name: `Modules & registry of ${o.name}`, context: o.name, icon: 'layers' as const, run: () => router.go(registryPath({ orgId: o.id })) })),
    ],
    nav: () => [
      {
        id: 'registry',
        label: 'Registry',
        title: 'Registry: modules, ML models, training scripts and archives',
        icon: 'layers',
        pressed: router.match?.route.owner === 'registry',
        run: () => router.go(registryPath({})),
      },
    ],
  };
}
