/**
 * The permission table: for every AppService operation, the shape checks of its request, the
 * resource its role is checked on, and the least role it needs (docs/PROTOCOL.md sections 10–11).
 * service/rpc.ts applies a method's row before its handler runs, in the protocol's order —
 * authentication, request shape (INVALID_ARGUMENT), existence and visibility (NOT_FOUND), role
 * (PERMISSION_DENIED) — so a handler starts with a valid request on a resource the caller may use,
 * and only checks the state. A handler without a row cannot be registered (rpc.ts), so a new
 * operation adds a row here, not checks of its own.
 */
import type { AppServiceService } from '../../proto/gen/fleet/app/v1/app';
import { logRequest } from '../logs/handlers';
import { displayName, freeText, idList, metadataJson, optionalId, publicNamespace, requiredId } from '../validate';
import type { Need, ResourceRef } from './access';

type RequestOf<M> = M extends { requestDeserialize: (bytes: Buffer) => infer Req } ? Req : never;

export interface Rule<Req> {
  /** Shape checks, in the order of the request's fields; throw INVALID_ARGUMENT. */
  readonly validate?: (request: Req) => void;
  /** The resource the role is checked on; null for calls on nothing in particular. */
  readonly resource: (request: Req) => ResourceRef | null;
  readonly need: Need;
  /** Only roles held in the resource's owning organization count (deleting, moving, sharing a location). */
  readonly owningOrganizationOnly?: boolean;
}

export type Rules<D> = { readonly [K in keyof D]?: Rule<RequestOf<D[K]>> };

const org = (id: string, field = 'org_id'): ResourceRef => ({ kind: 'organization', id: requiredId(field, id), field });
const location = (id: string, field = 'location_id'): ResourceRef => ({ kind: 'location', id: requiredId(field, id), field });
const robot = (id: string, field = 'robot_id'): ResourceRef => ({ kind: 'robot', id: requiredId(field, id), field });
const part = (id: string, field = 'robot_part_id'): ResourceRef => ({ kind: 'part', id: requiredId(field, id), field });
const none = () => null;

export const appRules: Rules<typeof AppServiceService> = {
  // Organizations
  createOrganization: { validate: (r) => displayName('name', r.name), resource: none, need: 'authenticated' },
  listOrganizations: { resource: none, need: 'authenticated' },
  getOrganization: { resource: (r) => org(r.orgId), need: 'sees' },
  updateOrganization: {
    validate: (r) => {
      requiredId('org_id', r.orgId);
      if (r.name !== undefined) displayName('name', r.name);
      if (r.publicNamespace !== undefined) publicNamespace('public_namespace', r.publicNamespace);
      if (r.region !== undefined) freeText('region', r.region);
      if (r.cid !== undefined) freeText('cid', r.cid);
      r.defaultFragments?.fragments.forEach((f, i) => requiredId(`default_fragments.fragments[${i}].fragment_id`, f.fragmentId));
    },
    resource: (r) => org(r.orgId),
    need: 'owner',
  },
  deleteOrganization: { resource: (r) => org(r.orgId), need: 'owner' },
  getOrganizationNamespaceAvailability: { validate: (r) => publicNamespace('public_namespace', r.publicNamespace), resource: none, need: 'authenticated' },
  getOrganizationsWithAccessToLocation: { resource: (r) => location(r.locationId), need: 'owner' },
  listOrganizationsByUser: { validate: (r) => requiredId('user_id', r.userId), resource: none, need: 'authenticated' },
  getOrganizationMetadata: { resource: (r) => org(r.orgId), need: 'operator' },
  updateOrganizationMetadata: { validate: (r) => (requiredId('org_id', r.orgId), metadataJson('metadata', r.metadata)), resource: (r) => org(r.orgId), need: 'owner' },

  // Locations
  createLocation: {
    validate: (r) => {
      requiredId('org_id', r.orgId);
      displayName('name', r.name);
      optionalId('parent_location_id', r.parentLocationId);
    },
    // Owner on the organization, or on the parent (which covers it through its ancestors).
    resource: (r) => (r.parentLocationId === '' ? org(r.orgId) : location(r.parentLocationId, 'parent_location_id')),
    need: 'owner',
  },
  getLocation: { resource: (r) => location(r.locationId), need: 'operator' },
  updateLocation: {
    validate: (r) => {
      requiredId('location_id', r.locationId);
      // Empty means "leave the name as it is" (spec).
      if (r.name !== undefined && r.name.trim() !== '') displayName('name', r.name);
      if (r.parentLocationId !== undefined) optionalId('parent_location_id', r.parentLocationId);
      if (r.region !== undefined) freeText('region', r.region);
    },
    resource: (r) => location(r.locationId),
    need: 'owner',
  },
  deleteLocation: { resource: (r) => location(r.locationId), need: 'owner', owningOrganizationOnly: true },
  listLocations: { resource: (r) => org(r.orgId), need: 'sees' },
  shareLocation: {
    validate: (r) => {
      requiredId('organization_id', r.organizationId);
      requiredId('location_id', r.locationId);
    },
    resource: (r) => location(r.locationId),
    need: 'owner',
    owningOrganizationOnly: true,
  },
  unshareLocation: {
    validate: (r) => {
      requiredId('organization_id', r.organizationId);
      requiredId('location_id', r.locationId);
    },
    resource: (r) => location(r.locationId),
    need: 'owner',
    owningOrganizationOnly: true,
  },
  getLocationMetadata: { resource: (r) => location(r.locationId), need: 'operator' },
  updateLocationMetadata: { validate: (r) => (requiredId('location_id', r.locationId), metadataJson('metadata', r.metadata)), resource: (r) => location(r.locationId), need: 'owner' },

  // Machines and parts
  getRobot: { resource: (r) => robot(r.robotId), need: 'operator' },
  getRobotParts: { resource: (r) => robot(r.robotId), need: 'operator' },
  getRobotPart: { resource: (r) => part(r.robotPartId), need: 'operator' },
  getRobotPartByNameAndLocation: {
    validate: (r) => {
      displayName('name', r.name);
      requiredId('location_id', r.locationId);
    },
    // The part is found by name in the handler; the location must be seen first (NOT_FOUND), and the
    // handler then requires operator on the part's machine.
    resource: (r) => location(r.locationId),
    need: 'sees',
  },
  newRobotPart: {
    validate: (r) => {
      requiredId('robot_id', r.robotId);
      displayName('part_name', r.partName);
    },
    resource: (r) => robot(r.robotId),
    need: 'owner',
  },
  deleteRobotPart: { resource: (r) => part(r.robotPartId), need: 'owner' },
  markPartAsMain: { resource: (r) => part(r.robotPartId), need: 'owner' },
  markPartForRestart: { resource: (r) => part(r.robotPartId), need: 'operator' },
  listRobots: { resource: (r) => location(r.locationId), need: 'operator' },
  newRobot: {
    validate: (r) => {
      displayName('name', r.name);
      requiredId('location_id', r.locationId);
    },
    resource: (r) => location(r.locationId),
    need: 'owner',
  },
  updateRobot: {
    validate: (r) => {
      requiredId('robot_id', r.robotId);
      displayName('name', r.name);
      requiredId('location_id', r.locationId);
    },
    // Renaming needs owner on the machine; a move needs more, checked by the handler against the
    // destination (organization owner, or owner on both locations).
    resource: (r) => robot(r.robotId),
    need: 'owner',
  },
  deleteRobot: { resource: (r) => robot(r.robotId), need: 'owner' },
  getRobotMetadata: { resource: (r) => robot(r.robotId), need: 'operator' },
  getRobotPartMetadata: { resource: (r) => part(r.robotPartId), need: 'operator' },
  getRobotPartLogs: { validate: (r) => void logRequest(r), resource: (r) => part(r.robotPartId), need: 'operator' },
  tailRobotPartLogs: { resource: (r) => part(r.robotPartId), need: 'operator' },
  updateRobotMetadata: { validate: (r) => (requiredId('robot_id', r.robotId), metadataJson('metadata', r.metadata)), resource: (r) => robot(r.robotId), need: 'owner' },
  updateRobotPartMetadata: { validate: (r) => (requiredId('robot_part_id', r.robotPartId), metadataJson('metadata', r.metadata)), resource: (r) => part(r.robotPartId), need: 'owner' },
  listMachineSummaries: {
    validate: (r) => {
      requiredId('organization_id', r.organizationId);
      idList('fragment_ids', r.fragmentIds);
      idList('location_ids', r.locationIds);
    },
    // Lists the machines the caller can read in the organization (see the handler).
    resource: (r) => org(r.organizationId, 'organization_id'),
    need: 'sees',
  },
};
