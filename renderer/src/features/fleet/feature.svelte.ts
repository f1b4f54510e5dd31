import { untrack } from 'svelte';
import { NODE_ROUTES, nodeOf } from '../../lib/fleet/routes';
import { page, param, type RouteMatch } from '../../lib/router/router.svelte';
import { lazyPage } from '../../lib/router/lazy-page.svelte';
import type { Feature, Shell } from '../../lib/shell/feature';
import { LivenessWatch } from './liveness-watch';
import { FleetFrameKeeper } from './frame';

// Each page's code loads on its first visit (a chunk of its own): not on the boot path.
const FleetPage = lazyPage(() => import('./FleetPage.svelte'));

/**
 * The panes' name dialog (new location, machine or part; rename), loaded when first opened: it
 * checks with common/'s schemas (zod), and the panes are on the start page. Declared here, beside the
 * page, so the page's chunk holds no loader of its own (the bundler would split one out of the boot).
 */
export const nameDialog = lazyPage(() => import('./NameDialog.svelte'));

/**
 * The fleet: the start page, the pages of locations, machines and parts (the tree selects what the
 * address names), and the liveness of the machines on screen. `loaded` says whether organizations
 * are known yet (the start page says nothing before).
 */
export function fleetFeature(shell: Shell, loaded: () => boolean): Feature & { readonly watch: LivenessWatch } {
  const { fleet } = shell;
  const watch = new LivenessWatch(shell.bridge, fleet);
  const frame = new FleetFrameKeeper(shell.bridge, fleet, () => ({ profileId: shell.profileId, loaded: loaded() }));
  const node = (kind: 'location' | 'machine' | 'part') =>
    page({
      pattern: NODE_ROUTES[kind],
      owner: 'fleet',
      page: FleetPage,
      props: (m: RouteMatch) => ({ shell, node: { kind, orgId: param(m, 'orgId'), id: param(m, 'id') }, loaded }),
      enter: (m) => {
        const ref = nodeOf(kind, m.params);
        if (ref) fleet.show(ref);
      },
    });
  return {
    id: 'fleet',
    watch,
    routes: [
      page({ pattern: '/', owner: 'fleet', page: FleetPage, props: () => ({ shell, node: null, loaded }), enter: () => fleet.select(null) }),
      node('location'),
      node('machine'),
      node('part'),
    ],
    follow() {
      const stop = fleet.follow();
      return () => {
        watch.stop();
        frame.stop();
        stop();
      };
    },
    effects() {
      // Trees follow the organizations list.
      $effect(() => {
        void fleet.orgs;
        untrack(() => fleet.ensureTrees());
      });
      // The selected node's machines are watched too.
      $effect(() => {
        void fleet.selectedKey;
        untrack(() => watch.changed());
      });
      // What the next launch's window draws before the app has loaded.
      $effect(() => {
        void fleet.rows;
        void fleet.selectedKey;
        untrack(() => frame.changed());
      });
    },
  };
}
