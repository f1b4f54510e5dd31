import { page } from '../../lib/router/router.svelte';
import { lazyPage } from '../../lib/router/lazy-page.svelte';
import type { Feature, Shell } from '../../lib/shell/feature';
import { FragmentPages } from './pages.svelte';
import { FRAGMENT_ROUTES, fragmentPath, fragmentsPath } from './routes';

// Each page's code loads on its first visit (a chunk of its own): not on the boot path.
const FragmentsPage = lazyPage(() => import('./FragmentsPage.svelte'));

/** Fragments: an organization's browser, a fragment's page (editor, revisions, tags, history, users, blast radius), and drafts kept offline. */
export function fragmentsFeature(shell: Shell): Feature {
  const pages = new FragmentPages(shell);
  const props = () => ({ shell, pages });
  return {
    id: 'fragments',
    routes: [
      page({ pattern: FRAGMENT_ROUTES.list, owner: 'fragments', page: FragmentsPage, props, enter: (m) => pages.enterList(m) }),
      page({ pattern: FRAGMENT_ROUTES.fragment, owner: 'fragments', page: FragmentsPage, props, enter: (m, signal) => pages.enterFragment(m, signal) }),
    ],
    leave: () => pages.leave(),
    reset: () => pages.reset(),
    reload: () => pages.reload(),
    effects: () => pages.effects(),
    leaveGuard: () => pages.unsaved(),
    // A key without a role on the organization itself (one scoped to a location) reads no fragment: not offered.
    orgLinks: (orgId) => (shell.permissions.denied('read_fragment', { kind: 'org', orgId, id: orgId }) ? [] : [{ id: 'fragments', label: 'Fragments', icon: 'share', title: 'Reusable config blocks of this organization: browse, edit, tag', route: fragmentsPath(orgId), testId: 'org-fragments' }]),
    commands: () => [
      ...shell.fleet.orgs.map((o) => ({ id: `fragments:${o.id}`, name: `Fragments of ${o.name}`, context: o.name, icon: 'share' as const, run: () => shell.router.go(fragmentsPath(o.id)) })),
      ...pages.drafts.map((d) => ({ id: `fragment-draft:${d.fragmentId}`, name: `Unsaved edit of ${d.name}`, context: 'Fragment draft', icon: 'share' as const, run: () => shell.router.go(fragmentPath(d.orgId, d.fragmentId)) })),
    ],
  };
}
