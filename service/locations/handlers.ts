import { status } from '@grpc/grpc-js';
import type { AppServiceService } from '../../proto/gen/fleet/app/v1/app';
import type { Permissions } from '../permissions/engine';
import { targetOf } from '../permissions/resources';
import { FleetError, Reason } from '../errors';
import { PageTokens, pageSize } from '../paging';
import type { CallContext, UnaryHandlers } from '../rpc';
import { displayName, freeText, metadataJson, metadataObject, notFound } from '../validate';
import type { LocationStore } from './store';

function listing(names: readonly string[], count: number, what: string): string {
  const shown = names.map((n) => JSON.stringify(n)).join(', ');
  return `${count} ${what}${count === 1 ? '' : 's'} (${shown}${count > names.length ? ', …' : ''})`;
}

/** AppService's location calls. Permissions are checked by the rule table (rules.ts) before these run; a move asks the engine about the new parent. */
export function createLocationHandlers(locations: LocationStore, permissions: Permissions, tokens: PageTokens): UnaryHandlers<AppServiceService, CallContext> {
  return {
    async createLocation(request, ctx) {
      const name = displayName('name', request.name);
      if (request.parentLocationId === '') return { location: locations.create(request.orgId, name, null) };
      const parent = targetOf(ctx, 'location');
      // A parent of another organization is as good as none, whoever can see it.
      if (parent.orgId !== request.orgId) throw notFound(Reason.LOCATION_NOT_FOUND, 'location', request.parentLocationId, 'parent_location_id');
      return { location: locations.create(request.orgId, name, parent.id) };
    },

    async getLocation(_request, ctx) {
      return { location: locations.get(targetOf(ctx, 'location').id) };
    },

    async updateLocation(request, ctx) {
      const location = targetOf(ctx, 'location');
      const changes: { name?: string; parentId?: string | null; region?: string } = {};
      if (request.name !== undefined && request.name.trim() !== '') changes.name = displayName('name', request.name);
      if (request.region !== undefined) changes.region = freeText('region', request.region);
      const newParent = request.parentLocationId;
      if (newParent !== undefined && newParent !== location.parentId) {
        // Moving needs owner in the owning organization on the location, and on the new parent (or the organization).
        permissions.require(ctx.caller.identity, { kind: 'location', id: location.id, field: 'location_id' }, 'owner', { grants: ctx.grants, owningOrganizationOnly: true });
        if (newParent === '') {
          permissions.require(ctx.caller.identity, { kind: 'organization', id: location.orgId, field: 'location_id' }, 'owner', { grants: ctx.grants });
          changes.parentId = null;
        } else {
          const parent = permissions.resolve({ kind: 'location', id: newParent, field: 'parent_location_id' });
          if (parent === undefined || parent.kind !== 'location' || !permissions.sees(ctx.grants, parent)) {
            throw notFound(Reason.LOCATION_NOT_FOUND, 'location', newParent, 'parent_location_id');
          }
          if (parent.orgId !== location.orgId) {
            throw new FleetError(status.FAILED_PRECONDITION, Reason.CROSS_ORGANIZATION_MOVE, `location ${newParent} belongs to another organization; a location moves only within its own`, 'parent_location_id');
          }
          if (parent.ancestors.includes(location.id)) {
            throw new FleetError(
              status.FAILED_PRECONDITION,
              Reason.LOCATION_CYCLE,
              parent.id === location.id ? 'a location cannot be its own parent' : `location ${newParent} is inside ${JSON.stringify(location.name)}; a location cannot move under itself`,
              'parent_location_id',
            );
          }
          permissions.require(ctx.caller.identity, { kind: 'location', id: parent.id, field: 'parent_location_id' }, 'owner', { grants: ctx.grants, owningOrganizationOnly: true });
          changes.parentId = parent.id;
        }
      }
      return { location: locations.update(location.id, changes) };
    },

    async deleteLocation(_request, ctx) {
      const location = targetOf(ctx, 'location');
      const inside = locations.contents(location.id);
      if (inside.machines > 0 || inside.locations > 0) {
        const parts = [
          inside.machines > 0 ? listing(inside.machineNames, inside.machines, 'machine') : null,
          inside.locations > 0 ? listing(inside.locationNames, inside.locations, 'location') : null,
        ].filter((p) => p !== null);
        throw new FleetError(
          status.FAILED_PRECONDITION,
          Reason.LOCATION_NOT_EMPTY,
          `location ${JSON.stringify(location.name)} still holds ${parts.join(' and ')}; move or delete them first`,
        );
      }
      locations.delete(location.id);
      return {};
    },

    async listLocations(request, ctx) {
      const org = targetOf(ctx, 'organization');
      const size = pageSize('page_size', request.pageSize);
      const fingerprint = PageTokens.fingerprint('ListLocations', { orgId: org.id });
      const cursor = tokens.read(fingerprint, request.pageToken);
      const nodes = permissions.reach(org.id);
      const readable = permissions.readable(nodes, ctx.grants, org.id);
      const sorted = nodes.filter((n) => readable.has(n.id)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      const [afterName, afterId] = (cursor?.after ?? []) as [string?, string?];
      const rest = afterName === undefined ? sorted : sorted.filter((n) => n.name > afterName || (n.name === afterName && n.id > (afterId ?? '')));
      const page = rest.slice(0, size);
      const last = page.at(-1);
      const more = rest.length > page.length && last !== undefined;
      const order = new Map(page.map((n, i) => [n.id, i]));
      return {
        locations: locations.many(page.map((n) => n.id)).sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0)),
        nextPageToken: more ? tokens.issue(fingerprint, { after: [last.name, last.id], returned: (cursor?.returned ?? 0) + page.length }) : '',
      };
    },

    async shareLocation(request, ctx) {
      const location = targetOf(ctx, 'location');
      if (permissions.resolve({ kind: 'organization', id: request.organizationId, field: 'organization_id' }) === undefined) {
        throw notFound(Reason.ORGANIZATION_NOT_FOUND, 'organization', request.organizationId, 'organization_id');
      }
      if (location.accessOrgIds.includes(request.organizationId)) {
        throw new FleetError(
          status.ALREADY_EXISTS,
          Reason.LOCATION_ALREADY_SHARED,
          request.organizationId === location.orgId
            ? 'the organization owns this location already'
            : `organization ${request.organizationId} has access to this location already (shared with it${location.ancestors.length > 1 ? ', or an enclosing location is' : ''})`,
        );
      }
      locations.share(location.id, request.organizationId);
      return {};
    },

    async unshareLocation(request, ctx) {
      const location = targetOf(ctx, 'location');
      if (request.organizationId === location.orgId) {
        throw new FleetError(status.FAILED_PRECONDITION, Reason.PRIMARY_ORGANIZATION, 'the owning organization cannot lose its own location; delete the location instead');
      }
      if (!locations.unshare(location.id, request.organizationId)) {
        throw new FleetError(status.NOT_FOUND, Reason.LOCATION_NOT_SHARED, `location ${location.id} is not shared with organization ${request.organizationId}`, 'organization_id');
      }
      return {};
    },

    async getLocationMetadata(_request, ctx) {
      return { metadata: metadataObject(locations.metadata(targetOf(ctx, 'location').id)) };
    },

    async updateLocationMetadata(request, ctx) {
      const json = metadataJson('metadata', request.metadata);
      locations.setMetadata(targetOf(ctx, 'location').id, json);
      return {};
    },
  };
}
