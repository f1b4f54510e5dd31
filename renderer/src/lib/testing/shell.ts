import type { FleetBridge } from '../../../../common/bridge';
import { Clock } from '../state/clock.svelte';
import { FleetActions } from '../fleet/fleet-actions';
import { FleetStore } from '../fleet/fleet.svelte';
import { memoryHistory } from '../router/history';
import { Router } from '../router/router.svelte';
import { Notices } from '../state/notices.svelte';
import { KeyPermissionsStore } from '../permissions/permissions.svelte';
import type { Organization } from '../../../../common/orgs';
import type { Shell } from '../shell/feature';
import { Workbench } from '../shell/workbench';

/**
 * A shell over a fake bridge for a feature's tests: the real router (over memory entries), fleet
 * store, notices and workbench, as the composition root builds them, without the chrome's stores.
 */
export function testShell(bridge: FleetBridge, orgs: () => readonly Organization[], options: { offline?: boolean; address?: string } = {}): Shell & { readonly workbench: Workbench; readonly history: ReturnType<typeof memoryHistory> } {
  const history = memoryHistory(options.address ?? '');
  const notices = new Notices();
  const fleet = new FleetStore(bridge, orgs);
  let workbench: Workbench | null = null;
  const router = new Router(history, { leave: (owner) => workbench?.leave(owner) });
  workbench = new Workbench(router);
  const blocked = options.offline ? 'The service cannot be reached; changes need it.' : null;
  return {
    bridge,
    router,
    notices,
    clock: new Clock(),
    fleet,
    fleetActions: new FleetActions(bridge, fleet, notices),
    browserMode: true,
    offline: options.offline ?? false,
    profileId: 'local',
    blocked,
    permissions: new KeyPermissionsStore(bridge, fleet, () => blocked),
    contributions: workbench,
    workbench,
    history,
  };
}
