import { status } from '@grpc/grpc-js';
import type { ConfigIssue, JsonObject } from '../../fleetconfig';
import type { EditorInfo } from '../../proto/gen/fleet/app/v1/access';
import type { AppServiceService } from '../../proto/gen/fleet/app/v1/app';
import { FleetError, present, Reason } from '../errors';
import { PageTokens, pageSize } from '../paging';
import type { Grant, LocationTarget, Permissions } from '../permissions/engine';
import { partOf, robotOf, targetOf } from '../permissions/resources';
import type { CallContext, Caller, UnaryHandlers } from '../rpc';
import { configInvalid, displayName, metadataJson, metadataObject, notFound } from '../validate';
import type { MachineStore } from './store';
import { givenConfig } from './validate';

/**
 * What storing a part config needs of the fragments, which the fragments domain keeps (handed in by
 * server.ts, since a domain imports no other domain).
 */
export interface PartConfigs {
  /**
   * The blocking issues of `config` as the config of a part of organization `orgId`
   * (docs/PROTOCOL.md, "How a config resolves"); empty when it may be stored. `grants` are the
   * caller's: a fragment the caller sees but the organization may not use is called unreadable,
   * any other missing one unknown (existence never leaks).
   */
  blockingIssues(config: JsonObject, orgId: string, grants: readonly Grant[]): ConfigIssue[];
}

/**
 * What listing machines by fragment needs of the fragments domain: the fragment graph, walked there
 * (versions resolve through revisions and tags it keeps).
 */
export interface FragmentGraph {
  /** What names any of `ids`, directly or through other fragments: those ids at any version, and each (fragment, version) that resolves to a revision nesting one of them. */
  usesOf(ids: readonly string[]): { readonly ids: readonly string[]; readonly pairs: readonly { readonly fragmentId: string; readonly version: string }[] };
  /** The ids of the fragments that fragment `id` at `version` ('' for the latest) nests, at any depth; none when unknown. */
  nestedIds(id: string, version: string): string[];
}

/** What the machine handlers need of other domains, handed in by server.ts. */
export interface MachineDeps {
  readonly configs: PartConfigs;
  readonly fragments: FragmentGraph;
  /** The caller as a history entry names it (the access domain knows key names). */
  readonly editorOf: (caller: Caller) => EditorInfo;
  /** The config a new machine's main part starts with: its organization's default fragments (the organizations domain keeps them). */
  readonly newMachineConfig: (orgId: string) => string;
}

/** Part history pages: the protocol's default and largest page (section 7). */
const HISTORY_PAGE = { size: 100, max: 1000 };

const nameTaken = (what: string, name: string, where: string) =>
  new FleetError(status.ALREADY_EXISTS, Reason.NAME_TAKEN, `${where} has a ${what} named ${JSON.stringify(name)} already; names are unique within a location`);

/** SQLite's unique constraints back the name checks up against a concurrent call; answer them the same way. */
function asNameTaken<T>(what: string, name: string, where: string, run: () => T): T {
  try {
    return run();
  } catch (e) {
    if (e instanceof Error && /UNIQUE constraint failed: (robots|robot_parts)\.location_id, \1\.name/.test(e.message)) throw nameTaken(what, name, where);
    throw e;
  }
}

/** AppService's machine and part calls. Permissions are checked by the rule table (rules.ts) before these run; a move and a part found by name ask the engine about the second resource. */
export function createMachineHandlers(machines: MachineStore, permissions: Permissions, tokens: PageTokens, deps: MachineDeps): UnaryHandlers<AppServiceService, CallContext> {
  const where = (location: LocationTarget) => `location ${JSON.stringify(location.name)}`;
  return {
    async newRobot(request, ctx) {
      const location = targetOf(ctx, 'location');
      const name = displayName('name', request.name);
      if (machines.robotNameTaken(location.id, name)) throw nameTaken('machine', name, where(location));
      const [mainTaken] = machines.partNamesTaken(location.id, [`${name}-main`]);
      if (mainTaken !== undefined) throw nameTaken('part', mainTaken, where(location));
      return { id: asNameTaken('machine', name, where(location), () => machines.newRobot(location.id, name, { configJson: deps.newMachineConfig(location.orgId) })) };
    },

    async getRobot(_request, ctx) {
      return { robot: machines.robot(robotOf(ctx).id) };
    },

    async listRobots(request, ctx) {
      const location = targetOf(ctx, 'location');
      const size = pageSize('page_size', request.pageSize);
      const fingerprint = PageTokens.fingerprint('ListRobots', { locationId: location.id });
      const cursor = tokens.read(fingerprint, request.pageToken);
      // One more than asked: whether another page follows.
      const robots = machines.listRobots(location.id, cursor?.after, size + 1);
      const page = robots.slice(0, size);
      const last = page.at(-1);
      return {
        robots: page,
        nextPageToken: robots.length > size && last ? tokens.issue(fingerprint, { after: [last.name, last.id], returned: (cursor?.returned ?? 0) + page.length }) : '',
      };
    },

    async updateRobot(request, ctx) {
      const robot = robotOf(ctx);
      const name = displayName('name', request.name);
      let destination = robot.location;
      if (request.locationId !== robot.location.id) {
        const found = permissions.resolve({ kind: 'location', id: request.locationId, field: 'location_id' });
        if (found === undefined || found.kind !== 'location' || !permissions.sees(ctx.grants, found)) throw notFound(Reason.LOCATION_NOT_FOUND, 'location', request.locationId, 'location_id');
        destination = found;
        if (destination.orgId !== robot.location.orgId) {
          throw new FleetError(status.FAILED_PRECONDITION, Reason.CROSS_ORGANIZATION_MOVE, `location ${request.locationId} belongs to another organization; a machine moves only within its own`, 'location_id');
        }
        // Organization owner, or owner on both the current and the destination location.
        const orgOwner = permissions.roleOn(ctx.grants, { kind: 'organization', id: robot.location.orgId }) === 'owner';
        const both =
          permissions.roleOn(ctx.grants, robot.location, { owningOrganizationOnly: true }) === 'owner' &&
          permissions.roleOn(ctx.grants, destination, { owningOrganizationOnly: true }) === 'owner';
        if (!orgOwner && !both) {
          throw new FleetError(
            status.PERMISSION_DENIED,
            Reason.PERMISSION_DENIED,
            `moving a machine needs owner on its organization, or owner on both location ${robot.location.id} and location ${destination.id}`,
          );
        }
      }
      if (machines.robotNameTaken(destination.id, name, robot.id)) throw nameTaken('machine', name, where(destination));
      if (destination.id !== robot.location.id) {
        const clashes = machines.partNamesTaken(destination.id, machines.parts(robot.id).map((p) => p.name), robot.id);
        if (clashes.length > 0) {
          throw new FleetError(
            status.ALREADY_EXISTS,
            Reason.NAME_TAKEN,
            `${where(destination)} has parts named ${clashes.map((c) => JSON.stringify(c)).join(', ')} already; rename this machine's parts first (part names are unique within a location)`,
          );
        }
      }
      return { robot: asNameTaken('machine', name, where(destination), () => machines.updateRobot(robot.id, name, destination.id)) };
    },

    async deleteRobot(_request, ctx) {
      machines.deleteRobot(robotOf(ctx).id);
      return {};
    },

    async getRobotParts(_request, ctx) {
      return { parts: machines.parts(robotOf(ctx).id) };
    },

    async getRobotPart(_request, ctx) {
      const found = present(machines.part(partOf(ctx).id), 'the part');
      return { part: found.part, configJson: found.configJson };
    },

    async getRobotPartByNameAndLocation(request, ctx) {
      const location = targetOf(ctx, 'location');
      const name = displayName('name', request.name);
      const id = machines.partIdByName(location.id, name);
      if (id === undefined) {
        throw new FleetError(status.NOT_FOUND, Reason.ROBOT_PART_NOT_FOUND, `${where(location)} has no part named ${JSON.stringify(name)} visible to this API key`, 'name');
      }
      permissions.require(ctx.caller.identity, { kind: 'part', id, field: 'name' }, 'operator', { grants: ctx.grants });
      return { part: present(machines.part(id), 'the part').part };
    },

    async newRobotPart(request, ctx) {
      const robot = robotOf(ctx);
      const name = displayName('part_name', request.partName);
      if (machines.partNamesTaken(robot.location.id, [name]).length > 0) throw nameTaken('part', name, where(robot.location));
      return { partId: asNameTaken('part', name, where(robot.location), () => machines.newPart(robot.id, robot.location.id, name)) };
    },

    async deleteRobotPart(_request, ctx) {
      const part = partOf(ctx);
      if (part.mainPart) {
        throw new FleetError(
          status.FAILED_PRECONDITION,
          Reason.MAIN_PART,
          `part ${JSON.stringify(part.name)} is the main part of machine ${JSON.stringify(part.robot.name)}; mark another part as main first, or delete the machine`,
        );
      }
      machines.deletePart(part.id);
      return {};
    },

    async markPartAsMain(_request, ctx) {
      const part = partOf(ctx);
      machines.markMain(part.robot.id, part.id, deps.editorOf(ctx.caller));
      return {};
    },

    async markPartForRestart(_request, ctx) {
      machines.markForRestart(partOf(ctx).id, deps.editorOf(ctx.caller));
      return {};
    },

    async updateRobotPart(request, ctx) {
      const part = partOf(ctx);
      const name = displayName('name', request.name);
      const given = givenConfig(request);
      const location = part.robot.location;
      if (name !== part.name && machines.partNamesTaken(location.id, [name]).length > 0) throw nameTaken('part', name, where(location));
      const outcome = asNameTaken('part', name, where(location), () =>
        machines.updatePart(part.id, given === undefined ? { name } : { name, configJson: given.text }, {
          expected: request.lastKnownUpdate,
          editor: deps.editorOf(ctx.caller),
          verify: () => {
            if (given === undefined) return;
            const issues = deps.configs.blockingIssues(given.config, location.orgId, ctx.grants);
            if (issues.length > 0) throw configInvalid(given.field, issues);
          },
        }),
      );
      if (!outcome.ok) {
        throw new FleetError(
          status.ABORTED,
          Reason.STALE_UPDATE,
          `part ${JSON.stringify(part.name)} was changed at ${outcome.storedLastUpdated.toISOString()}, after the last_known_update given (${request.lastKnownUpdate?.toISOString() ?? ''}); read it again, merge your change into it, and save with its last_updated`,
        );
      }
      return { part: outcome.part };
    },

    async getRobotPartHistory(request, ctx) {
      const part = partOf(ctx);
      const size = pageSize('page_size', request.pageSize, HISTORY_PAGE);
      const fingerprint = PageTokens.fingerprint('GetRobotPartHistory', { partId: part.id });
      const cursor = tokens.read(fingerprint, request.pageToken);
      // One more than asked: whether another page follows.
      const rows = machines.history(part.id, cursor?.after, size + 1);
      const page = rows.slice(0, size);
      const last = page.at(-1);
      return {
        history: page.map((r) => r.entry),
        nextPageToken: rows.length > size && last !== undefined ? tokens.issue(fingerprint, { after: last.key, returned: (cursor?.returned ?? 0) + page.length }) : '',
      };
    },

    async getRobotMetadata(_request, ctx) {
      return { metadata: metadataObject(machines.robotMetadata(robotOf(ctx).id)) };
    },

    async updateRobotMetadata(request, ctx) {
      machines.setRobotMetadata(robotOf(ctx).id, metadataJson('metadata', request.metadata));
      return {};
    },

    async getRobotPartMetadata(_request, ctx) {
      return { metadata: metadataObject(machines.partMetadata(partOf(ctx).id)) };
    },

    async updateRobotPartMetadata(request, ctx) {
      machines.setPartMetadata(partOf(ctx).id, metadataJson('metadata', request.metadata));
      return {};
    },

    async listMachineSummaries(request, ctx) {
      const org = targetOf(ctx, 'organization');
      if (request.limit < 0) throw new FleetError(status.INVALID_ARGUMENT, Reason.PAGE_SIZE_INVALID, 'limit must not be negative (0 means no limit)', 'limit');
      const size = pageSize('page_size', request.pageSize);
      const fingerprint = PageTokens.fingerprint('ListMachineSummaries', {
        organizationId: org.id,
        fragmentIds: request.fragmentIds,
        locationIds: request.locationIds,
        limit: request.limit,
      });
      const cursor = tokens.read(fingerprint, request.pageToken);
      const returned = cursor?.returned ?? 0;
      const remaining = request.limit > 0 ? request.limit - returned : Number.POSITIVE_INFINITY;
      if (remaining <= 0) return { machineSummaries: [], nextPageToken: '' };

      // What the caller may read through this organization: readable locations, and machines it holds a role on.
      const nodes = permissions.reach(org.id);
      const readable = permissions.readable(nodes, ctx.grants, org.id);
      const reach = new Set(nodes.map((n) => n.id));
      const robotGrants = machines.robotsIn(
        ctx.grants.filter((g) => g.resourceType === 'robot').map((g) => g.resourceId),
        reach,
      );
      const wanted = request.locationIds.length > 0 ? new Set(request.locationIds) : null;
      const locationIds = [...readable].filter((id) => wanted === null || wanted.has(id));
      const robotIds = wanted === null ? robotGrants : machines.robotsIn(robotGrants, wanted);

      const take = Math.min(size, remaining);
      // One walk of the fragment graph per page, and each fragment's nesting looked up once.
      const uses = request.fragmentIds.length === 0 ? null : deps.fragments.usesOf(request.fragmentIds);
      const nestedOnce = new Map<string, readonly string[]>();
      const nested = (id: string, version: string) => {
        const key = `${id}\u0000${version}`;
        let found = nestedOnce.get(key);
        if (found === undefined) nestedOnce.set(key, (found = deps.fragments.nestedIds(id, version)));
        return found;
      };
      const rows = machines.summaries({ locationIds, robotIds, uses, nested, after: cursor?.after, size: take + 1 });
      const page = rows.slice(0, take);
      const last = page.at(-1);
      const total = returned + page.length;
      const more = rows.length > take && last !== undefined && total < (request.limit > 0 ? request.limit : Number.POSITIVE_INFINITY);
      return {
        machineSummaries: page,
        nextPageToken: more ? tokens.issue(fingerprint, { after: [last.locationName, last.machineName, last.machineId], returned: total }) : '',
      };
    },
  };
}
