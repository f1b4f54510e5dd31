/**
 * What of the columnar fleet tree (`FleetColumns`, common/locations.ts) main's tree reader needs at
 * run time, in a module that imports nothing: the reader is a thread of its own started with the
 * app, and loading zod there cost 40 ms of a launch's 2 cores while the window boots.
 */
/** `FleetColumns.partFlags` bit: the machine's main part. */
export const PART_MAIN = 1;
/** `FleetColumns.partFlags` bit: marked for restart. */
export const PART_RESTART = 2;

/** Each machine's location id (in machine order) as FleetColumns' dictionary and indexes. */
export function machineLocationColumns(locationIds: readonly string[]): { readonly machineLocationKeys: readonly string[]; readonly machineLocationIndexes: readonly number[] } {
  const at = new Map<string, number>();
  const keys: string[] = [];
  const indexes = locationIds.map((id) => {
    let i = at.get(id);
    if (i === undefined) at.set(id, (i = keys.push(id) - 1));
    return i;
  });
  return { machineLocationKeys: keys, machineLocationIndexes: indexes };
}
