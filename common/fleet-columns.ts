/**
 * The fleet tree as `locations.tree` and `locations.treeColumns` answer it, and its columnar form,
 * in a module that imports nothing at run time: main's tree reader is a thread of its own started
 * with the app, and the window draws the tree on its boot path; loading zod and the locations
 * domain's schemas for these would cost both (zod alone took 40 ms of the reader's start on a
 * launch's 2 cores). common/locations.ts re-exports all of it.
 */
import type { TreeMachine, TreePart } from './machines';
import type { IsoTime } from './schemas';

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

/** A location in the fleet tree. */
export interface TreeLocation {
  readonly id: string;
  readonly name: string;
  /** Empty at the top level (also for a location shared into this organization whose parent is not visible). */
  readonly parentLocationId: string;
  /** The organization that owns it; another one than the tree's when it is shared into it. */
  readonly ownerOrgId: string;
  /** Organizations it is shared with, besides its owner. */
  readonly sharedWithOrgIds: readonly string[];
}

/**
 * The whole fleet of one organization as cached, in one answer, so the tree is drawn from a single
 * call: locations (nested through parentLocationId), the machines in them, their parts.
 * `syncedAt` is when this organization's fleet last matched the service (null if it never did).
 */
export interface FleetTree {
  readonly orgId: string;
  readonly syncedAt: IsoTime | null;
  /** By name. */
  readonly locations: readonly TreeLocation[];
  /** By name. */
  readonly machines: readonly TreeMachine[];
}

/**
 * The same tree as {@link FleetTree} in columns (`locations.treeColumns`): one array per field
 * instead of one object per node. At 10,000 machines and 30,000 parts the object form is 7 MB of
 * JSON whose keys repeat 40,000 times, and building, cloning (worker → main), serializing and parsing
 * those objects was most of a cold start; arrays of strings move and parse several times faster.
 *
 * Rows are in the object form's order (locations by name, machines by name). Part columns hold every
 * machine's parts one machine after another, in machine order, each machine's main part first;
 * `machinePartCounts` says how many belong to each. {@link fleetTreeFromColumns} checks the shape and
 * turns it back into a FleetTree.
 */
export interface FleetColumns {
  readonly orgId: string;
  readonly syncedAt: IsoTime | null;
  readonly locationIds: readonly string[];
  readonly locationNames: readonly string[];
  /** '' at the top level (see TreeLocation.parentLocationId). */
  readonly locationParents: readonly string[];
  readonly locationOwners: readonly string[];
  /** Per location, the organizations it is shared with besides its owner. */
  readonly locationSharedWith: readonly (readonly string[])[];
  readonly machineIds: readonly string[];
  readonly machineNames: readonly string[];
  /** The locations machines are in, each once (in order of first use). */
  readonly machineLocationKeys: readonly string[];
  /**
   * Per machine, its location as an index into `machineLocationKeys`: at 10,000 machines a location
   * id per machine was 390 KB of a 956 KB head, which a cold start moves and parses before it draws.
   */
  readonly machineLocationIndexes: readonly number[];
  readonly machinePartCounts: readonly number[];
  readonly partIds: readonly string[];
  readonly partNames: readonly string[];
  readonly partLastAccess: readonly (IsoTime | null)[];
  /** Per part: {@link PART_MAIN} | {@link PART_RESTART}. */
  readonly partFlags: readonly number[];
  /**
   * A digest of the locations and machines as read (every column above but the parts'): a
   * `locations.treeParts` answer with the same stamp lays its parts out over exactly these
   * machines. Absent from answers of a main that predates it.
   */
  readonly stamp?: string;
}

/**
 * What `locations.treeParts` answers: the part columns of {@link FleetColumns} alone, with the part
 * counts per machine (in the order of the machines of the head it completes) and the stamp of the
 * locations and machines they were read with. A cold start draws its first screenful from the head
 * (`locations.treeColumns` with `parts: false`) and completes it with these, so the whole tree
 * costs one read of the locations and machines on the wire, not two.
 */
export type FleetPartColumns = Pick<FleetColumns, 'orgId' | 'syncedAt' | 'machinePartCounts' | 'partIds' | 'partNames' | 'partLastAccess' | 'partFlags'> & { readonly stamp: string };

/** The columns of a tree (the inverse of {@link fleetTreeFromColumns}; test fakes and the worker's tests use it). */
export function fleetColumns(tree: FleetTree): FleetColumns {
  const parts = tree.machines.flatMap((m) => m.parts);
  return {
    orgId: tree.orgId,
    syncedAt: tree.syncedAt,
    locationIds: tree.locations.map((l) => l.id),
    locationNames: tree.locations.map((l) => l.name),
    locationParents: tree.locations.map((l) => l.parentLocationId),
    locationOwners: tree.locations.map((l) => l.ownerOrgId),
    locationSharedWith: tree.locations.map((l) => l.sharedWithOrgIds),
    machineIds: tree.machines.map((m) => m.id),
    machineNames: tree.machines.map((m) => m.name),
    ...machineLocationColumns(tree.machines.map((m) => m.locationId)),
    machinePartCounts: tree.machines.map((m) => m.parts.length),
    partIds: parts.map((p) => p.id),
    partNames: parts.map((p) => p.name),
    partLastAccess: parts.map((p) => p.lastAccess),
    partFlags: parts.map((p) => (p.mainPart ? PART_MAIN : 0) | (p.markedForRestart ? PART_RESTART : 0)),
  };
}

const isStrings = (v: unknown, n: number): boolean => Array.isArray(v) && v.length === n && v.every((x) => typeof x === 'string');

/** The columns that hold parts, in FleetColumns and FleetPartColumns alike. */
type PartColumns = Pick<FleetColumns, 'machinePartCounts' | 'partIds' | 'partNames' | 'partLastAccess' | 'partFlags'>;

/**
 * Each of `machines` machines' parts (in machine order), or an error message when the part columns
 * are not well formed (see {@link fleetTreeFromColumns}).
 */
export function partsFromColumns(c: PartColumns, machines: number): TreePart[][] | string {
  if (typeof c !== 'object' || c === null) return 'the parts are missing';
  if (!Array.isArray(c.machinePartCounts) || c.machinePartCounts.length !== machines || !c.machinePartCounts.every((n) => Number.isInteger(n) && n >= 0)) return 'the part counts are malformed';
  const np = Array.isArray(c.partIds) ? c.partIds.length : -1;
  if (![c.partIds, c.partNames].every((col) => isStrings(col, np))) return 'the part columns are malformed';
  if (!Array.isArray(c.partLastAccess) || c.partLastAccess.length !== np || !c.partLastAccess.every((t) => t === null || typeof t === 'string')) return 'the part access times are malformed';
  if (!Array.isArray(c.partFlags) || c.partFlags.length !== np || !c.partFlags.every((f) => Number.isInteger(f))) return 'the part flags are malformed';
  if (c.machinePartCounts.reduce((a, b) => a + b, 0) !== np) return 'the part counts do not add up';
  // Lengths and types are checked above: the defaults below never apply.
  const out: TreePart[][] = new Array<TreePart[]>(machines);
  for (let i = 0, p = 0; i < machines; i++) {
    const parts: TreePart[] = new Array<TreePart>(c.machinePartCounts[i] ?? 0);
    for (let j = 0; j < parts.length; j++, p++) {
      const flags = c.partFlags[p] ?? 0;
      parts[j] = { id: c.partIds[p] ?? '', name: c.partNames[p] ?? '', mainPart: (flags & PART_MAIN) !== 0, lastAccess: c.partLastAccess[p] ?? null, markedForRestart: (flags & PART_RESTART) !== 0 };
    }
    out[i] = parts;
  }
  return out;
}

/** The part columns of a tree with the stamp given (the inverse of {@link partsFromColumns}; test fakes use it). */
export function treePartColumns(tree: FleetTree, stamp: string): FleetPartColumns {
  const { orgId, syncedAt, machinePartCounts, partIds, partNames, partLastAccess, partFlags } = fleetColumns(tree);
  return { orgId, syncedAt, machinePartCounts, partIds, partNames, partLastAccess, partFlags, stamp };
}

/**
 * The FleetTree the columns stand for, or an error message when they are not well formed (columns
 * of different lengths, a value of the wrong type, part counts that do not add up): the renderer
 * gets this shape over a bridge that cannot check it, so it checks before it draws.
 */
export function fleetTreeFromColumns(c: FleetColumns): FleetTree | string {
  if (typeof c !== 'object' || c === null || typeof c.orgId !== 'string' || !(c.syncedAt === null || typeof c.syncedAt === 'string')) return 'the tree has no organization';
  const nl = Array.isArray(c.locationIds) ? c.locationIds.length : -1;
  if (![c.locationIds, c.locationNames, c.locationParents, c.locationOwners].every((col) => isStrings(col, nl))) return 'the location columns are malformed';
  if (!Array.isArray(c.locationSharedWith) || c.locationSharedWith.length !== nl || !c.locationSharedWith.every((s) => isStrings(s, Array.isArray(s) ? s.length : -1))) return 'the location shares are malformed';
  const nm = Array.isArray(c.machineIds) ? c.machineIds.length : -1;
  if (![c.machineIds, c.machineNames].every((col) => isStrings(col, nm))) return 'the machine columns are malformed';
  const keys = c.machineLocationKeys;
  if (!isStrings(keys, Array.isArray(keys) ? keys.length : -1) || !Array.isArray(c.machineLocationIndexes) || c.machineLocationIndexes.length !== nm || !c.machineLocationIndexes.every((i) => Number.isInteger(i) && i >= 0 && i < keys.length)) return 'the machine locations are malformed';
  const parts = partsFromColumns(c, nm);
  if (typeof parts === 'string') return parts;
  // Lengths and types are checked above: the defaults below never apply.
  const locations: TreeLocation[] = new Array<TreeLocation>(nl);
  for (let i = 0; i < nl; i++) {
    locations[i] = { id: c.locationIds[i] ?? '', name: c.locationNames[i] ?? '', parentLocationId: c.locationParents[i] ?? '', ownerOrgId: c.locationOwners[i] ?? '', sharedWithOrgIds: c.locationSharedWith[i] ?? [] };
  }
  const machines: TreeMachine[] = new Array<TreeMachine>(nm);
  for (let i = 0; i < nm; i++) machines[i] = { id: c.machineIds[i] ?? '', name: c.machineNames[i] ?? '', locationId: keys[c.machineLocationIndexes[i] ?? -1] ?? '', parts: parts[i] ?? [] };
  return { orgId: c.orgId, syncedAt: c.syncedAt, locations, machines };
}
