/**
 * A fleet snapshot of one location and `machines` machines of three parts each, names tagged so
 * that two snapshots of the same organization tell apart: what the cache's tree tests write.
 */
import type { FleetSnapshot } from '../../main/fleet/tree';

export function fleetSnapshot(machines: number, tag: string, lastAccess: string): FleetSnapshot {
  return {
    locations: [{ id: 'l1', name: `Site ${tag}`, parentLocationId: '', region: '', ownerOrgId: 'a', sharedWithOrgIds: [], createdOn: null, robotCount: machines }],
    machines: Array.from({ length: machines }, (_, i) => ({
      id: `m${i}`,
      name: `${tag}-${i}`,
      locationId: 'l1',
      createdOn: null,
      parts: [0, 1, 2].map((p) => ({ id: `p${i}-${p}`, name: `${tag}-${i}-${p}`, mainPart: p === 0, fqdn: 'x', lastAccess, markedForRestart: false })),
    })),
  };
}
