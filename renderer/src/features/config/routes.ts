import type { NodeRef } from '../../lib/fleet/fleet-index';
import { nodeRoute } from '../../lib/fleet/routes';

/** A part's config page lives under the part's own address. */
export const CONFIG_ROUTES = {
  part: '/orgs/:orgId/parts/:id/config',
} as const;

export function partConfigPath(ref: NodeRef & { readonly kind: 'part' }): string {
  return `${nodeRoute(ref)}/config`;
}
