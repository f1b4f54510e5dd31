import { untrack } from 'svelte';
import { closedPagePath } from '../../lib/fleet/routes';
import { page, param } from '../../lib/router/router.svelte';
import { lazyPage } from '../../lib/router/lazy-page.svelte';
import type { Feature, Shell } from '../../lib/shell/feature';
import { browserNotifier } from './notifier';
import { TRAINING_ROUTES, trainingPath } from './routes';
import { TrainingStore } from './store.svelte';

// Each page's code loads on its first visit (a chunk of its own): not on the boot path.
const TrainingPage = lazyPage(() => import('./TrainingPage.svelte'));

/** ML training: an organization's jobs, a job, "Train a model", the running badge and ended-job notifications. */
export function trainingFeature(shell: Shell): Feature {
  const { router, fleet } = shell;
  // In browser mode the page shows the desktop notification of an ended job (Electron's main shows a native one).
  const store = new TrainingStore(shell.bridge, {
    notices: shell.notices,
    notifier: shell.browserMode && typeof window !== 'undefined' ? browserNotifier(window) : null,
    navigate: (path, options) => (options?.replace ? router.replace(path, options) : router.go(path)),
  });
  const props = () => ({ shell, store });
  const known = (id: string | undefined) => (id && fleet.orgs.some((o) => o.id === id) ? id : undefined);

  /** The sidebar's Training: the selected node's organization, else one with jobs running, else the first. */
  function openSomewhere(): void {
    const running = Object.entries(store.summary?.byOrg ?? {}).find(([, n]) => n.running > 0)?.[0];
    const target = known(fleet.selected?.orgId) ?? known(running) ?? fleet.orgs[0]?.id;
    if (!target) {
      shell.notices.push('info', 'Training jobs belong to an organization: create one first (New organization).');
      return;
    }
    router.go(trainingPath(target));
  }

  return {
    id: 'training',
    routes: [
      page({ pattern: TRAINING_ROUTES.list, owner: 'training', page: TrainingPage, props, enter: (m) => void store.show(param(m, 'orgId')) }),
      page({ pattern: TRAINING_ROUTES.job, owner: 'training', page: TrainingPage, props, enter: (m) => void store.showJob(param(m, 'orgId'), param(m, 'jobId')) }),
    ],
    leave: () => store.close(),
    follow: () => store.follow(),
    effects() {
      // The badge's source failing has no better place than a notice.
      $effect(() => {
        const error = store.summaryError;
        if (error) untrack(() => shell.notices.push('error', `Couldn't load the training jobs running: ${error.message}`));
      });
    },
    reset: () => store.reset(),
    reload: () => void store.reload(),
    orgLinks: (orgId) => {
      // Training needs a role on the organization itself: a key scoped to a location is not offered it.
      if (shell.permissions.denied('read_organization', { kind: 'org', orgId, id: orgId })) return [];
      const running = store.runningIn(orgId);
      return [
        {
          id: 'training',
          label: `Training${running > 0 ? ` (${running} running)` : ''}`,
          icon: 'flask',
          testId: 'org-training',
          title: running > 0 ? `${running} training ${running === 1 ? 'job' : 'jobs'} running` : 'ML training jobs',
          route: trainingPath(orgId),
        },
      ];
    },
    commands: () => [
      { id: 'training', name: 'Training', context: 'ML training jobs', icon: 'flask', run: openSomewhere },
      ...fleet.orgs.map((o) => ({ id: `training:${o.id}`, name: `Training of ${o.name}`, context: o.name, icon: 'flask' as const, run: () => router.go(trainingPath(o.id)) })),
    ],
    nav: () => {
      const running = store.running;
      const text = running === 1 ? '1 training job running' : `${running} training jobs running`;
      return [
        {
          id: 'training',
          label: running > 0 ? `Training: ${text}` : 'Training',
          title: running > 0 ? `ML training: ${text}` : 'ML training',
          icon: 'flask',
          testId: 'sidebar-training',
          pressed: router.match?.route.owner === 'training',
          badge: running,
          // A second press closes training, as before.
          run: () => (router.match?.route.owner === 'training' ? router.go(closedPagePath(fleet.selected)) : openSomewhere()),
        },
      ];
    },
  };
}
