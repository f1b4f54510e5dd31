import { status } from '@grpc/grpc-js';
import type { ConfigIssue, JsonObject } from '../../fleetconfig';
import type { AppServiceService } from '../../proto/gen/fleet/app/v1/app';
import type { FragmentImport } from '../../proto/gen/fleet/app/v1/fragments';
import { FleetError, present, Reason } from '../errors';
import type { Grant } from '../permissions/engine';
import { targetOf } from '../permissions/resources';
import type { CallContext, UnaryHandlers } from '../rpc';
import { configInvalid, displayName, freeText, metadataJson, metadataObject, notFound } from '../validate';
import type { OrgChanges, OrgStore } from './store';

/**
 * What checking default fragments needs of the fragments domain (handed in by server.ts): the list is
 * checked as the `fragments` of a part config of the organization would be.
 */
export interface DefaultFragmentChecks {
  /** The blocking issues of `config` as a part config of organization `orgId`, told to a caller holding `grants`. */
  blockingIssues(config: JsonObject, orgId: string, grants: readonly Grant[]): ConfigIssue[];
}

/** A list of FragmentImport as the `fragments` of a config: an id for the latest revision, else {id, version}. */
export function importsAsConfig(imports: readonly FragmentImport[]): JsonObject {
  return { fragments: imports.map((f) => (f.version === undefined || f.version === '' ? f.fragmentId : { id: f.fragmentId, version: f.version })) };
}

/**
 * The error for default fragments that do not resolve: an entry naming a fragment the organization
 * cannot use, or an unknown version of one, is NOT_FOUND on that entry's field (as PROTOCOL.md's
 * UpdateOrganization row says); anything else (nesting, a malformed list) is CONFIG_INVALID.
 */
function defaultsRefused(issues: readonly ConfigIssue[], imports: readonly FragmentImport[]): FleetError {
  const [first] = issues;
  const top = first === undefined ? null : /^fragments\[(\d+)\](?:\.id)?$/.exec(first.path);
  const index = top?.[1];
  const entry = index === undefined ? undefined : imports[Number(index)];
  if (first !== undefined && entry !== undefined) {
    const at = `default_fragments.fragments[${index}]`;
    if (first.kind === 'unknown-fragment' || first.kind === 'unreadable-fragment') return notFound(Reason.FRAGMENT_NOT_FOUND, 'fragment', entry.fragmentId, `${at}.fragment_id`);
    if (first.kind === 'unknown-version') {
      return new FleetError(status.NOT_FOUND, Reason.FRAGMENT_VERSION_NOT_FOUND, `fragment ${entry.fragmentId} has no revision or tag ${JSON.stringify(entry.version ?? '')}`, `${at}.version`);
    }
  }
  return configInvalid('default_fragments', issues);
}

/** AppService's organization calls. Permissions are checked by the rule table before these run. */
export function createOrgHandlers(orgs: OrgStore, fragments: DefaultFragmentChecks): UnaryHandlers<AppServiceService, CallContext> {
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
      const changes: { -readonly [K in keyof OrgChanges]: OrgChanges[K] } = {};
      if (request.name !== undefined) changes.name = displayName('name', request.name);
      if (request.region !== undefined) changes.region = freeText('region', request.region);
      if (request.cid !== undefined) changes.cid = freeText('cid', request.cid);
      const imports = request.defaultFragments?.fragments;
      if (imports !== undefined) changes.defaultFragments = imports.map((f) => (f.version === undefined || f.version === '' ? { fragmentId: f.fragmentId } : f));
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
      const verify = () => {
        if (imports === undefined) return;
        const issues = fragments.blockingIssues(importsAsConfig(imports), org.id, ctx.grants);
        if (issues.length > 0) throw defaultsRefused(issues, imports);
      };
      try {
        return { organization: orgs.update(org.id, changes, verify) };
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
