import { status } from '@grpc/grpc-js';
import type { AppServiceService } from '../../proto/gen/fleet/app/v1/app';
import { FleetError, invalidArgument, Reason } from '../errors';
import type { CallContext, UnaryHandlers } from '../rpc';
import type { OrgStore } from './store';

/** Longest organization name, in characters. */
export const MAX_ORG_NAME_LENGTH = 200;
/** Longest id the protocol accepts; a longer one is INVALID_ARGUMENT rather than NOT_FOUND. */
export const MAX_ID_LENGTH = 200;

/** The name to store: trimmed, non-empty, at most {@link MAX_ORG_NAME_LENGTH} characters, no control characters. */
export function validOrgName(raw: string): string {
  const name = raw.trim();
  if (name === '') throw invalidArgument('name', Reason.REQUIRED_FIELD_MISSING, 'name is required and must not be blank');
  if ([...name].length > MAX_ORG_NAME_LENGTH) {
    throw invalidArgument('name', Reason.FIELD_TOO_LONG, `name must be at most ${MAX_ORG_NAME_LENGTH} characters`);
  }
  if (/\p{Cc}/u.test(name)) throw invalidArgument('name', Reason.FIELD_INVALID, 'name must not contain control characters');
  return name;
}

/** AppService's organization calls. */
export function createOrgHandlers(orgs: OrgStore): UnaryHandlers<AppServiceService, CallContext> {
  return {
    async createOrganization(request, { caller }) {
      return { organization: orgs.create(validOrgName(request.name), caller.identity) };
    },

    async listOrganizations(_request, { caller }) {
      return { organizations: orgs.listVisibleTo(caller.identity) };
    },

    async getOrganization(request, { caller }) {
      if (request.orgId === '') throw invalidArgument('org_id', Reason.REQUIRED_FIELD_MISSING, 'org_id is required');
      if ([...request.orgId].length > MAX_ID_LENGTH) throw invalidArgument('org_id', Reason.FIELD_TOO_LONG, `org_id must be at most ${MAX_ID_LENGTH} characters`);
      const organization = orgs.getVisibleTo(caller.identity, request.orgId);
      // The same answer for a missing organization and someone else's: existence must not leak.
      if (organization === undefined) {
        throw new FleetError(status.NOT_FOUND, Reason.ORGANIZATION_NOT_FOUND, `no organization ${JSON.stringify(request.orgId)} is visible to this API key`);
      }
      return { organization };
    },
  };
}
