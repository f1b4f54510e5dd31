import { z } from 'zod';
import { displayName, id, metadataObject, type IsoTime, type MetadataView } from './schemas';
import type { FleetColumns, FleetPartColumns, FleetTree } from './fleet-columns';

/** A location, as GetLocation answers it. Locations nest to any depth. */
export interface Location {
  readonly id: string;
  readonly name: string;
  /** Empty for a top-level location. */
  readonly parentLocationId: string;
  readonly region: string;
  /** The organization that owns it (ShareLocation never changes this). */
  readonly ownerOrgId: string;
  /** Organizations it is shared with, besides its owner, in the order they got access. */
  readonly sharedWithOrgIds: readonly string[];
  readonly createdOn: IsoTime | null;
  /** Machines directly in it. */
  readonly robotCount: number;
}


// The tree's shapes and columns are apart, in a module without zod: the tree reader thread and the
// window's boot load them (zod alone took 40 ms of the reader's start): common/fleet-columns.ts.
export { fleetColumns, fleetTreeFromColumns, machineLocationColumns, PART_MAIN, PART_RESTART, partsFromColumns, treePartColumns } from './fleet-columns';
export type { FleetColumns, FleetPartColumns, FleetTree, TreeLocation } from './fleet-columns';

/** `parentLocationId` of locations.update: absent leaves the parent, '' moves to the top level. */
const parentLocation = z.string().trim().max(200, 'is too long');

export const locationsRequests = {
  /** The cached fleet tree of an organization. Answers offline too. */
  'locations.tree': z.object({ orgId: id }).strict(),
  /**
   * The same tree in columns (FleetColumns): what the renderer draws from, several times cheaper to
   * move at 10,000 machines. `parts: false` leaves the parts out (every machine then has none): the
   * locations and machines alone, a fifth of the bytes, from which a cold start draws its first
   * screenful while the whole tree is on its way.
   */
  'locations.treeColumns': z.object({ orgId: id, parts: z.boolean().optional() }).strict(),
  /**
   * The parts of the tree alone (FleetPartColumns), laid out over its machines in the head's order,
   * with the stamp of the locations and machines read beside them: what completes a head whose
   * stamp is the same. A different stamp means the head is stale; read the whole tree then.
   */
  'locations.treeParts': z.object({ orgId: id }).strict(),
  /** One location: from the service when online (and cached), else the cached copy. */
  'locations.get': z.object({ locationId: id }).strict(),
  /** Every location of an organization the key can read, from the service (ListLocations, all pages). */
  'locations.list': z.object({ orgId: id }).strict(),
  /** Create a location, at the top level or under `parentLocationId`. Needs the service. */
  'locations.create': z.object({ orgId: id, name: displayName, parentLocationId: id.optional() }).strict(),
  /**
   * Rename and/or move a location (UpdateLocation): `name` absent leaves it; `parentLocationId`
   * absent leaves the parent, '' moves it to the top level. Needs the service.
   */
  'locations.update': z
    .object({
      locationId: id,
      name: displayName.optional(),
      parentLocationId: parentLocation.optional(),
      region: z.string().trim().max(200, 'is too long').optional(),
    })
    .strict(),
  /** Delete an empty location (the service refuses one that holds machines or locations). Needs the service. */
  'locations.delete': z.object({ locationId: id }).strict(),
  /** Share a location (and its machines) with another organization. Needs the service. */
  'locations.share': z.object({ locationId: id, orgId: id }).strict(),
  /** Take a share back. Needs the service. */
  'locations.unshare': z.object({ locationId: id, orgId: id }).strict(),
  /** The location's user-defined metadata: from the service when online, else the cached copy. */
  'locations.metadata': z.object({ locationId: id }).strict(),
  /** Replace the location's metadata as a whole. Needs the service. */
  'locations.setMetadata': z.object({ locationId: id, metadata: metadataObject }).strict(),
};

export interface LocationsResponses {
  'locations.tree': FleetTree;
  'locations.treeColumns': FleetColumns;
  'locations.treeParts': FleetPartColumns;
  'locations.get': Location;
  'locations.list': readonly Location[];
  'locations.create': Location;
  'locations.update': Location;
  'locations.delete': Record<string, never>;
  'locations.share': Location;
  'locations.unshare': Location;
  'locations.metadata': MetadataView;
  'locations.setMetadata': MetadataView;
}
