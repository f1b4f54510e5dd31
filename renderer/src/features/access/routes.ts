import type { NodeRef } from '../../lib/fleet/fleet-index';
import { nodeRoute } from '../../lib/fleet/routes';

/** Access pages live under the node they are about: an organization's people and keys, a node's roles, a machine's keys, a location's or part's secrets. */
export const ACCESS_ROUTES = {
  people: '/orgs/:orgId/people',
  keys: '/orgs/:orgId/keys',
  machineKeys: '/orgs/:orgId/machines/:id/keys',
  orgRoles: '/orgs/:orgId/roles',
  locationRoles: '/orgs/:orgId/locations/:id/roles',
  machineRoles: '/orgs/:orgId/machines/:id/roles',
  locationSecrets: '/orgs/:orgId/locations/:id/secrets',
  partSecrets: '/orgs/:orgId/parts/:id/secrets',
} as const;

/** A page under a node's own address: `<node>/roles`, `<node>/keys`, `<node>/secrets`, `/orgs/o1/people`. */
export function accessPath(ref: NodeRef, page: 'people' | 'keys' | 'roles' | 'secrets'): string {
  return `${nodeRoute(ref)}/${page}`;
}
