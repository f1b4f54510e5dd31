import type { NodeRef } from '../../lib/fleet/fleet-index';
import { nodeRoute } from '../../lib/fleet/routes';
import { routePath } from '../../lib/router/router.svelte';

/** A part's config page lives under the part's own address, a machine's fragments under the machine's; the drafts waiting to be saved have their own. */
export const CONFIG_ROUTES = {
  part: '/orgs/:orgId/parts/:id/config',
  drafts: '/config/drafts',
  effective: '/orgs/:orgId/parts/:id/config/effective',
  machineFragments: '/orgs/:orgId/machines/:id/fragments',
  compare: '/orgs/:orgId/compare',
} as const;

export function partConfigPath(ref: NodeRef & { readonly kind: 'part' }): string {
  return `${nodeRoute(ref)}/config`;
}

/** The part's effective config (its fragments brought in), beside its own config. */
export function effectiveConfigPath(ref: NodeRef & { readonly kind: 'part' }): string {
  return `${nodeRoute(ref)}/config/effective`;
}

/** A machine's fragments, as a tree. */
export function machineFragmentsPath(ref: NodeRef & { readonly kind: 'machine' }): string {
  return `${nodeRoute(ref)}/fragments`;
}

/** Two parts' configs side by side: own or effective. `a`/`b` may be empty (not chosen yet). */
export function comparePath(orgId: string, a: string, b: string, view: 'own' | 'effective' = 'own'): string {
  return routePath(CONFIG_ROUTES.compare, { orgId }, { a, b, view });
}

/** A fragment's page (the fragments feature's): built here as a string, since a feature imports no other. */
export function fragmentPagePath(orgId: string, fragmentId: string): string {
  return routePath('/orgs/:orgId/fragments/:id', { orgId, id: fragmentId });
}
