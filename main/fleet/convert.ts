/** The wire's locations and machine summaries as the fleet tree keeps them (tree.ts). */
import type { Location as WireLocation } from '../../proto/gen/fleet/app/v1/locations';
import type { MachineSummary as WireSummary, PartSummary } from '../../proto/gen/fleet/app/v1/machines';
import type { Location } from '../../common/locations';
import type { TreePart } from '../../common/machines';
import type { CachedMachine, CachedTreePart } from './tree';

export const iso = (d: Date | undefined) => (d ? d.toISOString() : null);

/** The bridge's view of a wire location: its owner and the organizations it is shared with, apart. */
export function locationFromWire(l: WireLocation): Location {
  return {
    id: l.id,
    name: l.name,
    parentLocationId: l.parentLocationId,
    region: l.region,
    ownerOrgId: l.organizations.find((o) => o.primary)?.organizationId ?? '',
    sharedWithOrgIds: l.organizations.filter((o) => !o.primary).map((o) => o.organizationId),
    createdOn: l.createdOn ? l.createdOn.toISOString() : null,
    robotCount: l.robotCount,
  };
}

/** A summary's part as the tree and the bridge carry it (no address: see TreePart). */
export function treePartFromSummary(p: PartSummary): TreePart {
  return { id: p.partId, name: p.partName, mainPart: p.mainPart, lastAccess: iso(p.lastAccess), markedForRestart: p.markedForRestart };
}

/** A summary's part as the cache keeps it: with its address. */
export function cachedPartFromSummary(p: PartSummary): CachedTreePart {
  return { ...treePartFromSummary(p), fqdn: p.fqdn };
}

/** A summary as the cache keeps a machine (summaries carry no creation time). */
export function cachedFromSummary(s: WireSummary): CachedMachine {
  return { id: s.machineId, name: s.machineName, locationId: s.locationId, createdOn: null, parts: s.partSummaries.map(cachedPartFromSummary) };
}
