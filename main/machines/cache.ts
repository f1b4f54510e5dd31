/**
 * Liveness in the fleet tables: the parts' last access and restart mark, which change every few
 * seconds on a live fleet and reach the screen through machines.liveness, never through a tree reload.
 */
import type { IsoTime } from '../../common/schemas';
import type { CacheDb } from '../cache/cache';

export interface LivenessRow {
  readonly lastAccess: IsoTime | null;
  readonly markedForRestart: boolean;
}

/** The cached liveness of the parts of `machineIds`, by part id. */
export function cachedLiveness(db: CacheDb, machineIds: readonly string[]): Record<string, LivenessRow> {
  const rows = db
    .prepare('SELECT DISTINCT id, last_access, marked_for_restart FROM parts WHERE machine_id IN (SELECT value FROM json_each(?))')
    .all(JSON.stringify(machineIds)) as { id: string; last_access: string | null; marked_for_restart: number }[];
  return Object.fromEntries(rows.map((r) => [r.id, { lastAccess: r.last_access, markedForRestart: r.marked_for_restart === 1 }]));
}

/** Write fresh liveness of parts (in every tree); returns the ones whose value changed. */
export function updateLiveness(db: CacheDb, fresh: Readonly<Record<string, LivenessRow>>): Record<string, LivenessRow> {
  const ids = Object.keys(fresh);
  if (ids.length === 0) return {};
  return db.transaction(() => {
    const before = cachedLivenessOf(db, ids);
    const update = db.prepare('UPDATE parts SET last_access = ?, marked_for_restart = ? WHERE id = ?');
    const changed: Record<string, LivenessRow> = {};
    for (const [id, row] of Object.entries(fresh)) {
      const old = before[id];
      if (old === undefined) continue; // not cached (yet): the next sync brings it
      if (old.lastAccess === row.lastAccess && old.markedForRestart === row.markedForRestart) continue;
      update.run(row.lastAccess, row.markedForRestart ? 1 : 0, id);
      changed[id] = row;
    }
    return changed;
  })();
}

function cachedLivenessOf(db: CacheDb, partIds: readonly string[]): Record<string, LivenessRow> {
  const rows = db
    .prepare('SELECT DISTINCT id, last_access, marked_for_restart FROM parts WHERE id IN (SELECT value FROM json_each(?))')
    .all(JSON.stringify(partIds)) as { id: string; last_access: string | null; marked_for_restart: number }[];
  return Object.fromEntries(rows.map((r) => [r.id, { lastAccess: r.last_access, markedForRestart: r.marked_for_restart === 1 }]));
}

/** The distinct locations of `machineIds`, as cached. */
export function locationsOfMachines(db: CacheDb, machineIds: readonly string[]): { orgId: string; locationId: string }[] {
  return db
    .prepare('SELECT DISTINCT org_id AS orgId, location_id AS locationId FROM machines WHERE id IN (SELECT value FROM json_each(?)) GROUP BY location_id')
    .all(JSON.stringify(machineIds)) as { orgId: string; locationId: string }[];
}
