import { status } from '@grpc/grpc-js';
import type { AppServiceService } from '../../proto/gen/fleet/app/v1/app';
import { FleetError, present, Reason } from '../errors';
import { targetOf } from '../permissions/resources';
import type { CallContext, UnaryHandlers } from '../rpc';
import { displayName, freeText, metadataJson, metadataObject, notFound } from '../validate';
import type { OrgStore } from './store';

/** AppService's organization calls. Permissions are checked by the rule table before these run. */
export function createOrgHandlers(orgs: OrgStore): UnaryHandlers<AppServiceService, CallContext> {
  return {
    async createOrganization(request, { caller }) {
      return { organization: orgs.create(displayName('name', request.name), caller.identity) };
    },

    async listOrganizations(_request, { caller }) {
      return { organizations: orgs.listVisibleTo(caller.identity) };
    },

    async getOrganization(_request, ctx) {
      return { organization: orgs.get(targetOf(ctx, 'organization').id) };
    },

    async updateOrganization(request, ctx) {
      const org = present(orgs.get(targetOf(ctx, 'organization').id), 'the organization');
      const changes: { name?: string; publicNamespace?: string; region?: string; cid?: string } = {};
      if (request.name !== undefined) changes.name = displayName('name', request.name);
      if (request.region !== undefined) changes.region = freeText('region', request.region);
      if (request.cid !== undefined) changes.cid = freeText('cid', request.cid);
      // No fragment exists yet in this service, so any default fragment names nothing.
      const [fragment] = request.defaultFragments?.fragments ?? [];
      if (fragment !== undefined) throw notFound(Reason.FRAGMENT_NOT_FOUND, 'fragment', fragment.fragmentId, 'default_fragments.fragments[0].fragment_id');
      const namespace = request.publicNamespace;
      if (namespace !== undefined && namespace !== org.publicNamespace) {
        if (org.publicNamespace !== '') {
          throw new FleetError(
            status.FAILED_PRECONDITION,
            Reason.NAMESPACE_ALREADY_SET,
            `the organization's public namespace is ${JSON.stringify(org.publicNamespace)} already; it can be set only once`,
          );
        }
        const holder = orgs.namespaceHolder(namespace);
        if (holder !== undefined) throw new FleetError(status.ALREADY_EXISTS, Reason.NAMESPACE_TAKEN, `the public namespace ${JSON.stringify(namespace)} is taken; pick another`);
        changes.publicNamespace = namespace;
      }
      try {
        return { organization: orgs.update(org.id, changes) };
      } catch (e) {
        // Another call took the namespace between the check and the write.
        if (e instanceof Error && /UNIQUE constraint failed: organizations.public_namespace/.test(e.message)) {
          throw new FleetError(status.ALREADY_EXISTS, Reason.NAMESPACE_TAKEN, `the public namespace ${JSON.stringify(namespace)} is taken; pick another`);
        }
        throw e;
      }
    },

    async deleteOrganization(_request, ctx) {
      orgs.delete(targetOf(ctx, 'organization').id);
      return {};
    },

    async getOrganizationNamespaceAvailability(request) {
      return { available: orgs.namespaceHolder(request.publicNamespace) === undefined };
    },

    async getOrganizationsWithAccessToLocation(_request, ctx) {
      const location = targetOf(ctx, 'location');
      return { organizationIdentities: orgs.identities(location.accessOrgIds) };
    },

    async listOrganizationsByUser(request, ctx) {
      // Only organizations the caller sees: the others' membership is not the caller's to learn.
      const visible = new Set(ctx.grants.map((g) => g.organizationId));
      const orgsOfUser = orgs.listOfUser(request.userId).filter((o) => visible.has(o.id));
      return { orgs: orgsOfUser.map((o) => ({ orgId: o.id, orgName: o.name, orgCid: o.cid, publicNamespace: o.publicNamespace })) };
    },

    async getOrganizationMetadata(_request, ctx) {
      return { metadata: metadataObject(orgs.metadata(targetOf(ctx, 'organization').id)) };
    },

    async updateOrganizationMetadata(request, ctx) {
      orgs.setMetadata(targetOf(ctx, 'organization').id, metadataJson('metadata', request.metadata));
      return {};
    },
  };
}
