import { z } from 'zod';
import { displayName, id, metadataObject, type IsoTime, type JsonObject, type MetadataView } from './schemas';

// Apart, without zod: the fleet tree draws liveness on the window's boot path (common/liveness.ts).
export { isLive, LIVE_WITHIN_MS } from './liveness';

/** A machine (the wire's robot). */
export interface Machine {
  readonly id: string;
  readonly name: string;
  readonly locationId: string;
  readonly createdOn: IsoTime | null;
  /** The most recent last access of its parts; null if none ever contacted the service. */
  readonly lastAccess: IsoTime | null;
}

/** A part of a machine, as GetRobotPart(s) answer it (without secrets: they never cross the bridge). */
export interface Part {
  readonly id: string;
  readonly name: string;
  readonly machineId: string;
  readonly locationId: string;
  readonly mainPart: boolean;
  /** Its address on the fleet network. */
  readonly fqdn: string;
  readonly localFqdn: string;
  readonly lastAccess: IsoTime | null;
  readonly createdOn: IsoTime | null;
  readonly lastUpdated: IsoTime | null;
  /** MarkPartForRestart was called and the part has not restarted since. */
  readonly markedForRestart: boolean;
  /** How many secrets the part holds (their values stay in main). */
  readonly secretCount: number;
}

/** One part with its config, as GetRobotPart answers it. */
export interface PartDetails extends Part {
  /** The config; null when the service could not be reached (the cache keeps no configs). */
  readonly config: JsonObject | null;
  /** The config as stored (key order kept); null as `config`. */
  readonly configJson: string | null;
  /** True when the service could not be reached and this is the cached part. */
  readonly fromCache: boolean;
}

/**
 * A part in the fleet tree: what drawing, searching and liveness need. Its address is not here:
 * at 30,000 parts the addresses were a third of the tree's bytes on a cold start, and only a part's
 * page shows one (`machines.part`).
 */
export interface TreePart {
  readonly id: string;
  readonly name: string;
  readonly mainPart: boolean;
  readonly lastAccess: IsoTime | null;
  readonly markedForRestart: boolean;
}

/** A machine in the fleet tree, with its parts (main part first). */
export interface TreeMachine {
  readonly id: string;
  readonly name: string;
  readonly locationId: string;
  readonly parts: readonly TreePart[];
}

/** A machine as ListMachineSummaries answers it. */
export interface MachineSummary {
  readonly machineId: string;
  readonly machineName: string;
  readonly locationId: string;
  readonly locationName: string;
  readonly fragmentIds: readonly string[];
  readonly parts: readonly TreePart[];
  readonly lastAccess: IsoTime | null;
}

/**
 * Fresh last-access times of the watched parts (see machines.watch), with the instant main read
 * them. Only parts whose value changed since the last report are listed.
 */
export interface LivenessUpdate {
  readonly at: IsoTime;
  readonly parts: Readonly<Record<string, { readonly lastAccess: IsoTime | null; readonly markedForRestart: boolean }>>;
}

export const machinesRequests = {
  /** Create a machine in a location; it starts with one main part named `<name>-main`. Needs the service. */
  'machines.create': z.object({ locationId: id, name: displayName }).strict(),
  /** One machine: from the service when online (and cached), else the cached copy. */
  'machines.get': z.object({ machineId: id }).strict(),
  /** The machines directly in a location, from the service (ListRobots, all pages). */
  'machines.list': z.object({ locationId: id }).strict(),
  /**
   * Rename and/or move a machine (UpdateRobot): `locationId` is where it should be (its current one
   * keeps it there). Moving needs owner rights on both locations or the organization. Needs the service.
   */
  'machines.update': z.object({ machineId: id, name: displayName, locationId: id }).strict(),
  /** Delete a machine with its parts. Needs the service. */
  'machines.delete': z.object({ machineId: id }).strict(),
  /** The parts of a machine, main part first: from the service when online, else the cache. */
  'machines.parts': z.object({ machineId: id }).strict(),
  /** One part with its config (GetRobotPart). Needs the service for the config; offline answers the cached part without it. */
  'machines.part': z.object({ partId: id }).strict(),
  /** Find a part by name within a location (GetRobotPartByNameAndLocation). Needs the service. */
  'machines.partByName': z.object({ name: displayName, locationId: id }).strict(),
  /** Add a part to a machine. Needs the service. */
  'machines.createPart': z.object({ machineId: id, name: displayName }).strict(),
  /** Delete a part (never the main part). Needs the service. */
  'machines.deletePart': z.object({ partId: id }).strict(),
  /** Make a part its machine's main part. Needs the service. */
  'machines.markMain': z.object({ partId: id }).strict(),
  /** Ask a part to restart (it shows the flag until it does). Needs the service. */
  'machines.markRestart': z.object({ partId: id }).strict(),
  /** ListMachineSummaries with its filters, from the service. */
  'machines.summaries': z
    .object({
      orgId: id,
      locationIds: z.array(id).max(1000).optional(),
      fragmentIds: z.array(id).max(1000).optional(),
      limit: z.number().int().min(0).max(1_000_000).optional(),
    })
    .strict(),
  /**
   * The machines whose liveness the user can see now (the rows on screen). Main refreshes their parts'
   * last access every few seconds while online and reports changes as `machines.liveness`; the set
   * replaces the previous one. Answers the current liveness of those parts from the cache.
   */
  'machines.watch': z.object({ machineIds: z.array(id).max(500) }).strict(),
  /** A machine's user-defined metadata: from the service when online, else the cached copy. */
  'machines.metadata': z.object({ machineId: id }).strict(),
  /** Replace a machine's metadata as a whole. Needs the service. */
  'machines.setMetadata': z.object({ machineId: id, metadata: metadataObject }).strict(),
  /** A part's user-defined metadata: from the service when online, else the cached copy. */
  'machines.partMetadata': z.object({ partId: id }).strict(),
  /** Replace a part's metadata as a whole. Needs the service. */
  'machines.setPartMetadata': z.object({ partId: id, metadata: metadataObject }).strict(),
};

export interface MachinesResponses {
  'machines.create': Machine;
  'machines.get': Machine;
  'machines.list': readonly Machine[];
  'machines.update': Machine;
  'machines.delete': Record<string, never>;
  'machines.parts': readonly Part[];
  'machines.part': PartDetails;
  'machines.partByName': Part;
  'machines.createPart': Part;
  'machines.deletePart': Record<string, never>;
  'machines.markMain': readonly Part[];
  'machines.markRestart': Part;
  'machines.summaries': readonly MachineSummary[];
  'machines.watch': LivenessUpdate;
  'machines.metadata': MetadataView;
  'machines.setMetadata': MetadataView;
  'machines.partMetadata': MetadataView;
  'machines.setPartMetadata': MetadataView;
}
