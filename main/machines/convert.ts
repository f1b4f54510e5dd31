import type { MachineSummary as WireSummary, Robot, RobotPart } from '../../proto/gen/fleet/app/v1/machines';
import type { Machine, MachineSummary, Part, PartDetails } from '../../common/machines';
import type { JsonObject } from '../../common/schemas';
import { iso, treePartFromSummary } from '../fleet/convert';
import type { CachedTreePart } from '../fleet/tree';

export function machineFromWire(r: Robot): Machine {
  return { id: r.id, name: r.name, locationId: r.locationId, createdOn: iso(r.createdOn), lastAccess: iso(r.lastAccess) };
}

/** A part without its secrets: only how many there are crosses into the app. */
export function partFromWire(p: RobotPart): Part {
  return {
    id: p.id,
    name: p.name,
    machineId: p.robotId,
    locationId: p.locationId,
    mainPart: p.mainPart,
    fqdn: p.fqdn,
    localFqdn: p.localFqdn,
    lastAccess: iso(p.lastAccess),
    createdOn: iso(p.createdOn),
    lastUpdated: iso(p.lastUpdated),
    markedForRestart: p.markedForRestart,
    secretCount: p.secrets.length,
  };
}

export function partDetailsFromWire(p: RobotPart, configJson: string): PartDetails {
  return { ...partFromWire(p), config: (p.robotConfig ?? {}) as JsonObject, configJson, fromCache: false };
}

/** A part as the cache keeps it in its machine's tree (a write's answer, put in the cache). */
export function cachedPartFromPart(p: Part): CachedTreePart {
  return { id: p.id, name: p.name, mainPart: p.mainPart, fqdn: p.fqdn, lastAccess: p.lastAccess, markedForRestart: p.markedForRestart };
}

export function summaryFromWire(s: WireSummary): MachineSummary {
  return {
    machineId: s.machineId,
    machineName: s.machineName,
    locationId: s.locationId,
    locationName: s.locationName,
    fragmentIds: s.fragmentIds,
    parts: s.partSummaries.map(treePartFromSummary),
    lastAccess: iso(s.lastAccess),
  };
}
