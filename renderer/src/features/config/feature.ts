import { page } from '../../lib/router/router.svelte';
import { lazyPage } from '../../lib/router/lazy-page.svelte';
import type { Feature, Shell } from '../../lib/shell/feature';
import { FleetConfigPages } from './fleet-pages.svelte';
import { ConfigPages } from './pages.svelte';
import { CONFIG_ROUTES, comparePath, machineFragmentsPath, partConfigPath } from './routes';

// Each page's code loads on its first visit (a chunk of its own): not on the boot path.
const ComparePage = lazyPage(() => import('./ComparePage.svelte'));
const ConfigPage = lazyPage(() => import('./ConfigPage.svelte'));
const DraftsPage = lazyPage(() => import('./DraftsPage.svelte'));
const EffectivePage = lazyPage(() => import('./EffectivePage.svelte'));
const MachineFragmentsPage = lazyPage(() => import('./MachineFragmentsPage.svelte'));

/** Configuration: a part's config, edited safely (conflict-checked saves, a three-way merge, drafts kept offline), and its history. */
export function configFeature(shell: Shell): Feature {
  const pages = new ConfigPages(shell);
  const fleetPages = new FleetConfigPages(shell);
  const props = () => ({ shell, pages });
  return {
    id: 'config',
    routes: [
      page({ pattern: CONFIG_ROUTES.part, owner: 'config', page: ConfigPage, props, enter: (m, signal) => pages.enterPart(m, signal) }),
      page({ pattern: CONFIG_ROUTES.effective, owner: 'config', page: EffectivePage, props, enter: (m, signal) => pages.enterEffective(m, signal) }),
      page({ pattern: CONFIG_ROUTES.drafts, owner: 'config', page: DraftsPage, props, enter: () => pages.enterDrafts() }),
      // A part's page left for these is closed (its guard already asked about an unsaved edit).
      page({ pattern: CONFIG_ROUTES.machineFragments, owner: 'config', page: MachineFragmentsPage, props: () => ({ shell, pages: fleetPages }), enter: (m, signal) => (pages.leave(), fleetPages.enterMachine(m, signal)) }),
      page({ pattern: CONFIG_ROUTES.compare, owner: 'config', page: ComparePage, props: () => ({ pages: fleetPages }), enter: (m, signal) => (pages.leave(), fleetPages.enterCompare(m, signal)) }),
    ],
    leave: () => (pages.leave(), fleetPages.leave()),
    reset: () => (pages.reset(), fleetPages.leave()),
    leaveGuard: () => pages.unsaved(),
    effects: () => pages.effects(),
    nodeLinks: (ref) => {
      if (ref.kind === 'machine') return [{ id: 'machine-fragments', label: 'Fragments', icon: 'layers', title: "This machine's fragments as a tree: add, remove, pin, override", route: machineFragmentsPath({ ...ref, kind: 'machine' }), testId: 'machine-fragments' }];
      if (ref.kind !== 'part') return [];
      const part = { ...ref, kind: 'part' as const };
      return [
        { id: 'config', label: 'Config', icon: 'cpu', title: "This part's config: edit, merge, history", route: partConfigPath(part), testId: 'part-config' },
        { id: 'compare', label: 'Compare with…', icon: 'layers', title: "This part's config beside another part's", route: comparePath(ref.orgId, ref.id, ''), testId: 'part-compare' },
      ];
    },
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
    commands: () => {
      const orgId = shell.fleet.selected?.orgId ?? shell.fleet.orgs[0]?.id;
      return [
        ...(orgId ? [{ id: 'config-compare', name: 'Compare part configs…', context: 'Two parts’ configs side by side, own or effective', icon: 'layers' as const, run: () => shell.router.go(comparePath(orgId, '', '')) }] : []),
        ...(pages.drafts.length === 0 ? [] : [{ id: 'config-drafts', name: 'Config drafts', context: 'Edits kept while offline, waiting to be saved', icon: 'cpu' as const, run: () => shell.router.go(CONFIG_ROUTES.drafts) }]),
      ];
    },
  };
}
