import { NODE_ROUTES } from '../../lib/fleet/routes';
import { page, param } from '../../lib/router/router.svelte';
import { lazyPage } from '../../lib/router/lazy-page.svelte';
import type { Feature, Shell } from '../../lib/shell/feature';
import type { OrgsStore } from './orgs.svelte';

// Each page's code loads on its first visit (a chunk of its own): not on the boot path.
const OrgPage = lazyPage(() => import('./OrgPage.svelte'));

/** Organizations: an organization's page (its details come from `orgs.get`). The list itself is the app's (the tree needs it). */
export function orgsFeature(shell: Shell, orgs: OrgsStore): Feature {
  return {
    id: 'orgs',
    routes: [
      page({
        pattern: NODE_ROUTES.org,
        owner: 'orgs',
        page: OrgPage,
        props: (m) => ({ shell, orgs, orgId: param(m, 'orgId') }),
        enter: (m) => {
          const orgId = param(m, 'orgId');
          shell.fleet.show({ kind: 'org', orgId, id: orgId });
          if (orgs.selectedId !== orgId) void orgs.select(orgId);
        },
      }),
    ],
  };
}
