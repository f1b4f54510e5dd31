/**
 * The fleet tables of a profile's cache: each organization's locations, machines and parts as the
 * last sync (or a later write) saw them. Plain functions over a connection, so the same code runs in
 * the cache worker (big replacements and reads) and on the main thread (single-row writes after a
 * call, which take microseconds).
 *
 * Kernel, not a domain: the tree spans organizations, locations and machines at once (a sync fills
 * it whole, a share moves a subtree between organizations), and each of those domains reads it.
 */
import { createHash } from 'node:crypto';
import { PART_MAIN, PART_RESTART, machineLocationColumns } from '../../common/fleet-columns';
import type { FleetColumns, FleetPartColumns, FleetTree, Location, TreeLocation } from '../../common/locations';
import type { Machine, Part, TreeMachine, TreePart } from '../../common/machines';
import type { IsoTime } from '../../common/schemas';
import type { CacheDb } from '../cache/cache';

/** A part as a sync or a read of one machine brings it: the tree's fields, and its address, which the cache keeps for the part's page. */
export interface CachedTreePart extends TreePart {
  readonly fqdn: string;
}

/** A machine with its parts, as a sync or a read of one machine brings it. */
export interface CachedMachine {
  readonly id: string;
  readonly name: string;
  readonly locationId: string;
  readonly createdOn: IsoTime | null;
  /** Main part first. */
  readonly parts: readonly CachedTreePart[];
}

/** One organization's fleet, as a sync fetched it. */
export interface FleetSnapshot {
  readonly locations: readonly Location[];
  readonly machines: readonly CachedMachine[];
}

interface LocationRow {
  org_id: string;
  id: string;
  name: string;
  parent_location_id: string;
  owner_org_id: string;
  shared_with: string;
  region: string;
  created_on: string | null;
  robot_count: number;
}

export interface PartRow {
  org_id: string;
  id: string;
  machine_id: string;
  name: string;
  main_part: number;
  fqdn: string;
  last_access: string | null;
  marked_for_restart: number;
  local_fqdn: string | null;
  created_on: string | null;
  last_updated: string | null;
  secret_count: number | null;
  location_id?: string;
}

const byName = (a: { name: string; id: string }, b: { name: string; id: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

function locationFromRow(row: LocationRow): Location {
  return {
    id: row.id,
    name: row.name,
    parentLocationId: row.parent_location_id,
    region: row.region,
    ownerOrgId: row.owner_org_id,
    sharedWithOrgIds: JSON.parse(row.shared_with) as string[],
    createdOn: row.created_on,
    robotCount: row.robot_count,
  };
}

function treePart(row: PartRow): TreePart {
  return { id: row.id, name: row.name, mainPart: row.main_part === 1, lastAccess: row.last_access, markedForRestart: row.marked_for_restart === 1 };
}

function partFromRow(row: PartRow & { location_id: string }): Part {
  return {
    id: row.id,
    name: row.name,
    machineId: row.machine_id,
    locationId: row.location_id,
    mainPart: row.main_part === 1,
    fqdn: row.fqdn,
    localFqdn: row.local_fqdn ?? '',
    lastAccess: row.last_access,
    createdOn: row.created_on,
    lastUpdated: row.last_updated,
    markedForRestart: row.marked_for_restart === 1,
    secretCount: row.secret_count ?? 0,
  };
}

const INSERT_LOCATION = `INSERT INTO locations (org_id, id, name, parent_location_id, owner_org_id, shared_with, region, created_on, robot_count, fetched_at)
  VALUES (@orgId, @id, @name, @parentLocationId, @ownerOrgId, @sharedWith, @region, @createdOn, @robotCount, @at)
  ON CONFLICT (org_id, id) DO UPDATE SET name = excluded.name, parent_location_id = excluded.parent_location_id, owner_org_id = excluded.owner_org_id,
    shared_with = excluded.shared_with, region = excluded.region, created_on = excluded.created_on, robot_count = excluded.robot_count, fetched_at = excluded.fetched_at`;
const INSERT_MACHINE = `INSERT INTO machines (org_id, id, name, location_id, created_on, fetched_at) VALUES (@orgId, @id, @name, @locationId, @createdOn, @at)
  ON CONFLICT (org_id, id) DO UPDATE SET name = excluded.name, location_id = excluded.location_id, created_on = coalesce(excluded.created_on, machines.created_on), fetched_at = excluded.fetched_at`;
const INSERT_PART = `INSERT INTO parts (org_id, id, machine_id, name, main_part, position, fqdn, last_access, marked_for_restart, local_fqdn, created_on, last_updated, secret_count, fetched_at)
  VALUES (@orgId, @id, @machineId, @name, @mainPart, @position, @fqdn, @lastAccess, @markedForRestart, @localFqdn, @createdOn, @lastUpdated, @secretCount, @at)`;

function locationParams(orgId: string, l: Location, at: string) {
  return { orgId, ...l, sharedWith: JSON.stringify(l.sharedWithOrgIds), at };
}

/**
 * Make the cache hold exactly `snapshot` as organization `orgId`'s fleet, in one transaction: a
 * failure (or a process killed halfway) leaves the previous snapshot whole. Part details read
 * earlier through GetRobotPart (addresses, secrets count) survive when the part still exists.
 */
export function replaceFleet(db: CacheDb, orgId: string, snapshot: FleetSnapshot, at: IsoTime): void {
  db.transaction(() => {
    const stream = startFleet(db, orgId);
    addFleetPage(db, stream, { locations: snapshot.locations, machines: snapshot.machines }, at);
    endFleet(db, orgId, at);
  })();
}

/** A replacement of one organization's fleet under way: what it keeps of the rows it replaces. */
export interface FleetStream {
  readonly orgId: string;
  /** Part details read through GetRobotPart, kept for parts that are still there. */
  readonly details: ReadonlyMap<string, PartRow>;
  /** The replaced tree's {@link fleetDigest}, to tell whether the new one draws differently. */
  readonly before: string;
}

/**
 * A digest of everything an organization's tree draws except liveness (last access changes every
 * few seconds on a live fleet and reaches the screen through machines.liveness): a sync whose
 * digest did not change need not make the renderer reload and redraw thousands of machines. Part
 * addresses are in it though the tree no longer carries them: a changed one reloads the tree, and
 * an open part's page reads its part again when the tree's part changes (PartPane).
 */
export function fleetDigest(db: CacheDb, orgId: string): string {
  const hash = createHash('sha256');
  for (const sql of [
    'SELECT id, name, parent_location_id, owner_org_id, shared_with FROM locations WHERE org_id = ? ORDER BY id',
    'SELECT id, name, location_id FROM machines WHERE org_id = ? ORDER BY id',
    'SELECT id, machine_id, name, main_part, position, fqdn, marked_for_restart FROM parts WHERE org_id = ? ORDER BY id',
  ]) {
    for (const row of db.prepare(sql).raw().iterate(orgId)) hash.update(JSON.stringify(row)).update('\n');
    hash.update('\f');
  }
  return hash.digest('base64url');
}

/**
 * The first step of replacing an organization's fleet page by page (the caller owns the transaction:
 * begin it before, commit or roll back after {@link endFleet}): its current rows go.
 */
export function startFleet(db: CacheDb, orgId: string): FleetStream {
  const details = new Map(
    (db.prepare('SELECT id, local_fqdn, created_on, last_updated, secret_count FROM parts WHERE org_id = ? AND secret_count IS NOT NULL').all(orgId) as PartRow[]).map((r) => [r.id, r]),
  );
  const before = fleetDigest(db, orgId);
  db.prepare('DELETE FROM parts WHERE org_id = ?').run(orgId);
  db.prepare('DELETE FROM machines WHERE org_id = ?').run(orgId);
  db.prepare('DELETE FROM locations WHERE org_id = ?').run(orgId);
  return { orgId, details, before };
}

/** One page of the new fleet: its locations and machines with their parts. */
export function addFleetPage(db: CacheDb, stream: FleetStream, page: Partial<FleetSnapshot>, at: IsoTime): void {
  const { orgId, details } = stream;
  if (page.locations && page.locations.length > 0) {
    const insertLocation = db.prepare(INSERT_LOCATION);
    for (const l of page.locations) insertLocation.run(locationParams(orgId, l, at));
  }
  if (!page.machines || page.machines.length === 0) return;
  // Positional parameters and rows in key order: about a third faster for thousands of rows.
  const insertMachine = db.prepare('INSERT INTO machines (org_id, id, name, location_id, created_on, fetched_at) VALUES (?, ?, ?, ?, ?, ?)');
  const insertPart = db.prepare(
    `INSERT INTO parts (org_id, id, machine_id, name, main_part, position, fqdn, last_access, marked_for_restart, local_fqdn, created_on, last_updated, secret_count, fetched_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const machines = [...page.machines].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const parts: (string | number | null)[][] = [];
  for (const m of machines) {
    insertMachine.run(orgId, m.id, m.name, m.locationId, m.createdOn, at);
    m.parts.forEach((p, position) => {
      const kept = details.get(p.id);
      parts.push([
        orgId,
        p.id,
        m.id,
        p.name,
        p.mainPart ? 1 : 0,
        position,
        p.fqdn,
        p.lastAccess,
        p.markedForRestart ? 1 : 0,
        kept?.local_fqdn ?? null,
        kept?.created_on ?? null,
        kept?.last_updated ?? null,
        kept?.secret_count ?? null,
        at,
      ]);
    });
  }
  parts.sort((a, b) => ((a[1] as string) < (b[1] as string) ? -1 : (a[1] as string) > (b[1] as string) ? 1 : 0));
  for (const row of parts) insertPart.run(...row);
}

/** The last step of a replacement: record when the organization's fleet matched the service. */
export function endFleet(db: CacheDb, orgId: string, at: IsoTime): void {
  db.prepare('INSERT INTO fleet_sync (org_id, synced_at) VALUES (?, ?) ON CONFLICT (org_id) DO UPDATE SET synced_at = excluded.synced_at').run(orgId, at);
}

/** Forget the fleets of organizations the profile no longer sees. */
export function dropFleetsExcept(db: CacheDb, orgIds: readonly string[]): void {
  const keep = JSON.stringify(orgIds);
  db.transaction(() => {
    for (const table of ['parts', 'machines', 'locations', 'fleet_sync']) {
      db.prepare(`DELETE FROM ${table} WHERE org_id NOT IN (SELECT value FROM json_each(?))`).run(keep);
    }
  })();
}

export function fleetSyncedAt(db: CacheDb, orgId: string): IsoTime | null {
  return (db.prepare('SELECT synced_at FROM fleet_sync WHERE org_id = ?').pluck().get(orgId) as string | undefined) ?? null;
}

/** An organization's whole cached fleet, as the tree draws it: locations and machines by name, parts main first. */
export function readTree(db: CacheDb, orgId: string): FleetTree {
  const locations = (db.prepare('SELECT * FROM locations WHERE org_id = ?').all(orgId) as LocationRow[])
    .map(
      (r): TreeLocation => ({
        id: r.id,
        name: r.name,
        parentLocationId: r.parent_location_id,
        ownerOrgId: r.owner_org_id,
        sharedWithOrgIds: JSON.parse(r.shared_with) as string[],
      }),
    )
    .sort(byName);
  const partsByMachine = new Map<string, TreePart[]>();
  for (const row of db.prepare('SELECT * FROM parts WHERE org_id = ? ORDER BY machine_id, position').all(orgId) as PartRow[]) {
    let list = partsByMachine.get(row.machine_id);
    if (list === undefined) partsByMachine.set(row.machine_id, (list = []));
    list.push(treePart(row));
  }
  const machines = (db.prepare('SELECT id, name, location_id FROM machines WHERE org_id = ?').all(orgId) as { id: string; name: string; location_id: string }[])
    .map((m): TreeMachine => ({ id: m.id, name: m.name, locationId: m.location_id, parts: partsByMachine.get(m.id) ?? [] }))
    .sort(byName);
  return { orgId, syncedAt: fleetSyncedAt(db, orgId), locations, machines };
}

/**
 * {@link readTree} in columns (FleetColumns), read as raw rows: no object per node on the way from
 * SQLite to the bridge. Same rows, same order (by name, then id). Without `parts`, no part is read
 * (every machine has none): the head a cold start draws its first screenful from.
 */
export function readTreeColumns(db: CacheDb, orgId: string, parts = true): FleetColumns {
  const locations = db.prepare('SELECT id, name, parent_location_id, owner_org_id, shared_with FROM locations WHERE org_id = ? ORDER BY name, id').raw().all(orgId) as [string, string, string, string, string][];
  const machines = db.prepare('SELECT id, name, location_id FROM machines WHERE org_id = ? ORDER BY name, id').raw().all(orgId) as [string, string, string][];
  // What a parts-only answer read later must have been laid out over to complete this one (see readTreeParts).
  const stamp = createHash('sha256').update(JSON.stringify(locations)).update('\f').update(JSON.stringify(machines)).digest('base64url');
  // Parts in the order of the table's index (by machine, then position), then laid out in machine order: sorting them in SQL by their machine's name costs more.
  const rows = parts ? (db.prepare('SELECT machine_id, id, name, last_access, main_part, marked_for_restart FROM parts WHERE org_id = ? ORDER BY machine_id, position').raw().all(orgId) as [string, string, string, string | null, number, number][]) : [];
  const runs = new Map<string, [number, number]>();
  rows.forEach((row, i) => {
    const run = runs.get(row[0]);
    if (run) run[1] += 1;
    else runs.set(row[0], [i, 1]);
  });
  const laidOut: (typeof rows)[number][] = [];
  for (const m of machines) {
    const [from, count] = runs.get(m[0]) ?? [0, 0];
    for (let i = from; i < from + count; i++) laidOut.push(rows[i] as (typeof rows)[number]);
  }
  return {
    orgId,
    syncedAt: fleetSyncedAt(db, orgId),
    locationIds: locations.map((r) => r[0]),
    locationNames: locations.map((r) => r[1]),
    locationParents: locations.map((r) => r[2]),
    locationOwners: locations.map((r) => r[3]),
    locationSharedWith: locations.map((r) => JSON.parse(r[4]) as string[]),
    machineIds: machines.map((r) => r[0]),
    machineNames: machines.map((r) => r[1]),
    ...machineLocationColumns(machines.map((r) => r[2])),
    machinePartCounts: machines.map((r) => runs.get(r[0])?.[1] ?? 0),
    partIds: laidOut.map((r) => r[1]),
    partNames: laidOut.map((r) => r[2]),
    partLastAccess: laidOut.map((r) => r[3]),
    partFlags: laidOut.map((r) => (r[4] === 1 ? PART_MAIN : 0) | (r[5] === 1 ? PART_RESTART : 0)),
    stamp,
  };
}

/**
 * The parts of {@link readTreeColumns} alone, laid out over the machines read beside them (in the
 * same statements, the same order), with the stamp of those locations and machines: equal to the
 * stamp of a head read earlier, the two make exactly the whole tree as read now.
 */
export function readTreeParts(db: CacheDb, orgId: string): FleetPartColumns {
  const { syncedAt, machinePartCounts, partIds, partNames, partLastAccess, partFlags, stamp } = readTreeColumns(db, orgId, true);
  return { orgId, syncedAt, machinePartCounts, partIds, partNames, partLastAccess, partFlags, stamp: stamp ?? '' };
}

/** The cached location (from whichever organization's tree has it), or null. */
export function cachedLocation(db: CacheDb, id: string): Location | null {
  const row = db.prepare('SELECT * FROM locations WHERE id = ? LIMIT 1').get(id) as LocationRow | undefined;
  return row ? locationFromRow(row) : null;
}

/** The organizations whose cached trees show `locationId`. */
export function treesWithLocation(db: CacheDb, locationId: string): string[] {
  return db.prepare('SELECT org_id FROM locations WHERE id = ?').pluck().all(locationId) as string[];
}

/** The organizations whose cached trees show machine `id`. */
export function treesWithMachine(db: CacheDb, id: string): string[] {
  return db.prepare('SELECT org_id FROM machines WHERE id = ?').pluck().all(id) as string[];
}

/**
 * Store a location read or written just now: in `orgId`'s tree (a new one), and wherever else it is
 * already shown (an update reaches every tree that has it).
 */
export function putLocation(db: CacheDb, orgId: string | null, location: Location, at: IsoTime): string[] {
  const insert = db.prepare(INSERT_LOCATION);
  return db.transaction(() => {
    const trees = new Set(treesWithLocation(db, location.id));
    if (orgId !== null) trees.add(orgId);
    for (const tree of trees) insert.run(locationParams(tree, location, at));
    return [...trees];
  })();
}

/** Remove a location from every tree. Returns the trees it was in. */
export function removeLocation(db: CacheDb, id: string): string[] {
  return db.transaction(() => {
    const trees = treesWithLocation(db, id);
    db.prepare('DELETE FROM locations WHERE id = ?').run(id);
    return trees;
  })();
}

/** The cached machine with its last access (its most recent part's), or null. */
export function cachedMachine(db: CacheDb, id: string): Machine | null {
  const row = db.prepare('SELECT id, name, location_id, created_on FROM machines WHERE id = ? LIMIT 1').get(id) as
    | { id: string; name: string; location_id: string; created_on: string | null }
    | undefined;
  if (!row) return null;
  const last = db.prepare('SELECT max(last_access) FROM parts WHERE machine_id = ?').pluck().get(id) as string | null;
  return { id: row.id, name: row.name, locationId: row.location_id, createdOn: row.created_on, lastAccess: last };
}

/**
 * Store a machine with its parts, read or written just now, in every tree that shows its location
 * (or that showed the machine before a move), replacing what those trees had of it.
 */
export function putMachine(db: CacheDb, machine: CachedMachine, at: IsoTime): string[] {
  const insertMachine = db.prepare(INSERT_MACHINE);
  const insertPart = db.prepare(INSERT_PART);
  return db.transaction(() => {
    const before = treesWithMachine(db, machine.id);
    const trees = treesWithLocation(db, machine.locationId);
    const details = new Map((db.prepare('SELECT id, local_fqdn, created_on, last_updated, secret_count FROM parts WHERE machine_id = ?').all(machine.id) as PartRow[]).map((r) => [r.id, r]));
    db.prepare('DELETE FROM parts WHERE machine_id = ?').run(machine.id);
    db.prepare('DELETE FROM machines WHERE id = ?').run(machine.id);
    for (const orgId of trees) {
      insertMachine.run({ orgId, id: machine.id, name: machine.name, locationId: machine.locationId, createdOn: machine.createdOn, at });
      machine.parts.forEach((p, position) => {
        const kept = details.get(p.id);
        insertPart.run({
          orgId,
          id: p.id,
          machineId: machine.id,
          name: p.name,
          mainPart: p.mainPart ? 1 : 0,
          position,
          fqdn: p.fqdn,
          lastAccess: p.lastAccess,
          markedForRestart: p.markedForRestart ? 1 : 0,
          localFqdn: kept?.local_fqdn ?? null,
          createdOn: kept?.created_on ?? null,
          lastUpdated: kept?.last_updated ?? null,
          secretCount: kept?.secret_count ?? null,
          at,
        });
      });
    }
    return [...new Set([...before, ...trees])];
  })();
}

/** Remove a machine (and its parts) from every tree. Returns the trees it was in. */
export function removeMachine(db: CacheDb, id: string): string[] {
  return db.transaction(() => {
    const trees = treesWithMachine(db, id);
    db.prepare('DELETE FROM parts WHERE machine_id = ?').run(id);
    db.prepare('DELETE FROM machines WHERE id = ?').run(id);
    return trees;
  })();
}

const PART_WITH_LOCATION = 'SELECT p.*, m.location_id FROM parts p JOIN machines m ON m.org_id = p.org_id AND m.id = p.machine_id';

/** The cached parts of a machine, main first. */
export function cachedParts(db: CacheDb, machineId: string): Part[] {
  const orgId = db.prepare('SELECT org_id FROM machines WHERE id = ? LIMIT 1').pluck().get(machineId) as string | undefined;
  if (orgId === undefined) return [];
  return (db.prepare(`${PART_WITH_LOCATION} WHERE p.org_id = ? AND p.machine_id = ? ORDER BY p.position`).all(orgId, machineId) as (PartRow & { location_id: string })[]).map(partFromRow);
}

export function cachedPart(db: CacheDb, id: string): Part | null {
  const row = db.prepare(`${PART_WITH_LOCATION} WHERE p.id = ? LIMIT 1`).get(id) as (PartRow & { location_id: string }) | undefined;
  return row ? partFromRow(row) : null;
}

/** Keep what GetRobotPart said of a part, in every tree that shows it. */
export function putPartDetails(db: CacheDb, part: Part, at: IsoTime): void {
  db.prepare(
    `UPDATE parts SET name = @name, main_part = @mainPart, fqdn = @fqdn, last_access = @lastAccess, marked_for_restart = @markedForRestart,
       local_fqdn = @localFqdn, created_on = @createdOn, last_updated = @lastUpdated, secret_count = @secretCount, fetched_at = @at WHERE id = @id`,
  ).run({ ...part, mainPart: part.mainPart ? 1 : 0, markedForRestart: part.markedForRestart ? 1 : 0, at });
}

/** The cached locations of an organization's tree, by name. */
export function cachedLocationsOf(db: CacheDb, orgId: string): Location[] {
  return (db.prepare('SELECT * FROM locations WHERE org_id = ?').all(orgId) as LocationRow[]).map(locationFromRow).sort(byName);
}

/** The cached machines directly in a location, by name. */
export function cachedMachinesIn(db: CacheDb, locationId: string): Machine[] {
  const ids = db.prepare('SELECT DISTINCT id FROM machines WHERE location_id = ?').pluck().all(locationId) as string[];
  return ids.flatMap((id) => cachedMachine(db, id) ?? []).sort(byName);
}

/** Forget an organization: its row and its fleet. */
export function removeOrgFleet(db: CacheDb, orgId: string): void {
  db.transaction(() => {
    for (const table of ['parts', 'machines', 'locations', 'fleet_sync']) db.prepare(`DELETE FROM ${table} WHERE org_id = ?`).run(orgId);
    db.prepare('DELETE FROM organizations WHERE id = ?').run(orgId);
  })();
}

/** The organizations the profile caches (the fleet's roots), as the last organizations sync left them. */
export function cachedOrgIds(db: CacheDb): string[] {
  return db.prepare('SELECT id FROM organizations ORDER BY name COLLATE NOCASE, id').pluck().all() as string[];
}

/** An organization's cached name, or null (the organizations table is the fleet's roots: every domain names them). */
export function cachedOrgName(db: CacheDb, orgId: string): string | null {
  return (db.prepare('SELECT name FROM organizations WHERE id = ?').pluck().get(orgId) as string | undefined) ?? null;
}

/** The ids of an organization's cached locations and machines: what a check over its whole tree names, without reading the rows. */
export function treeIds(db: CacheDb, orgId: string): { locations: string[]; machines: string[] } {
  return {
    locations: db.prepare('SELECT id FROM locations WHERE org_id = ? ORDER BY id').pluck().all(orgId) as string[],
    machines: db.prepare('SELECT id FROM machines WHERE org_id = ? ORDER BY id').pluck().all(orgId) as string[],
  };
}

/**
 * A resource and what covers it, nearest first, ending with the organization: a machine, its
 * location and that location's parents; a location and its parents. As the tree of `orgId` has
 * them (a shared location's parent is in its owning organization's tree, so the chain then ends at
 * the location); the organization is always last.
 */
export function cachedChain(db: CacheDb, orgId: string, type: 'organization' | 'location' | 'machine', id: string): { type: 'organization' | 'location' | 'machine'; id: string; name: string | null }[] {
  const org = { type: 'organization' as const, id: orgId, name: cachedOrgName(db, orgId) };
  if (type === 'organization') return [org];
  const chain: { type: 'organization' | 'location' | 'machine'; id: string; name: string | null }[] = [];
  let locationId: string | null = id;
  if (type === 'machine') {
    const m = db.prepare('SELECT name, location_id FROM machines WHERE id = ? ORDER BY org_id = ? DESC LIMIT 1').get(id, orgId) as { name: string; location_id: string } | undefined;
    chain.push({ type: 'machine', id, name: m?.name ?? null });
    locationId = m?.location_id ?? null;
  }
  const seen = new Set<string>();
  while (locationId && !seen.has(locationId)) {
    seen.add(locationId);
    const l = db.prepare('SELECT name, parent_location_id FROM locations WHERE id = ? ORDER BY org_id = ? DESC LIMIT 1').get(locationId, orgId) as { name: string; parent_location_id: string } | undefined;
    chain.push({ type: 'location', id: locationId, name: l?.name ?? null });
    locationId = l?.parent_location_id || null;
  }
  chain.push(org);
  return chain;
}
