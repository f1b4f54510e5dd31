import type { NodeRef } from '../../lib/fleet/fleet-index';
import { nodeRoute } from '../../lib/fleet/routes';

/** A part's config page lives under the part's own address; the drafts waiting to be saved have their own. */
export const CONFIG_ROUTES = {
  part: '/orgs/:orgId/parts/:id/config',
  drafts: '/config/drafts',
} as const;

export function partConfigPath(ref: NodeRef & { readonly kind: 'part' }): string {
  return `${nodeRoute(ref)}/config`;
}
