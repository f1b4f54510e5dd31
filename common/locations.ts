import { z } from 'zod';
import { displayName, id, metadataObject, type IsoTime, type MetadataView } from './schemas';
import type { TreeMachine } from './machines';

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

/** `parentLocationId` of locations.update: absent leaves the parent, '' moves to the top level. */
const parentLocation = z.string().trim().max(200, 'is too long');

export const locationsRequests = {
  /** The cached fleet tree of an organization. Answers offline too. */
  'locations.tree': z.object({ orgId: id }).strict(),
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
