/**
 * Reads what completion offers for a part of `orgId`: the organization's modules, public modules,
 * its fragments and other organizations' public ones. What cannot be read (offline: the registry
 * needs the service) is left out; null when nothing could be read.
 */
import type { FleetBridge } from '../../../../common/bridge';
import type { Fragment } from '../../../../common/fragments';
import type { Organization } from '../../../../common/orgs';
import type { ConfigChoices } from '../../lib/config/completion';
import { configChoices } from './choices';

/** At most this many modules are offered from each list (one page). */
const PAGE = 1000;

export async function loadChoices(bridge: FleetBridge, orgId: string, orgs: readonly Organization[]): Promise<ConfigChoices | null> {
  const [modules, publicModules, own, ...others] = await Promise.all([
    bridge.invoke('registry.modules', { orgId, pageToken: '', pageSize: PAGE }),
    bridge.invoke('registry.list', { orgId: '', types: ['module'], visibilities: ['public'], platforms: [], statuses: [], search: '', pageToken: '', pageSize: PAGE }),
    bridge.invoke('fragments.list', { orgId }),
    ...orgs.filter((o) => o.id !== orgId).map((o) => bridge.invoke('fragments.list', { orgId: o.id, visibilities: ['public'] })),
  ]);
  const fragments: Fragment[] = [own, ...others].flatMap((r) => (r.ok ? r.value.fragments : []));
  if (!modules.ok && !publicModules.ok && fragments.length === 0) return null;
  return configChoices(modules.ok ? modules.value.items : [], publicModules.ok ? publicModules.value.items : [], fragments);
}
