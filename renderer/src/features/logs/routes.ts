import type { NodeRef } from '../../lib/fleet/fleet-index';
import { nodeRoute } from '../../lib/fleet/routes';
import { routePath } from '../../lib/router/router.svelte';

/**
 * The logs' pages: a node's logs under the node's own address (`/orgs/o1/parts/p1/logs`, `?line=`
 * a line to show, by key), a hand-picked set of parts (`/orgs/o1/logs?parts=p1,p2`), and the search
 * of every cached line.
 */
export const LOGS_ROUTES = {
  part: '/orgs/:orgId/parts/:id/logs',
  machine: '/orgs/:orgId/machines/:id/logs',
  location: '/orgs/:orgId/locations/:id/logs',
  parts: '/orgs/:orgId/logs',
  search: '/logs/search',
} as const;

/** A location's, machine's or part's logs (an organization has none). */
export function nodeLogsPath(ref: NodeRef & { readonly kind: 'location' | 'machine' | 'part' }, line?: number): string {
  const path = `${nodeRoute(ref)}/logs`;
  return line === undefined ? path : `${path}?line=${line}`;
}

/** Several parts' logs merged. */
export function partsLogsPath(orgId: string, partIds: readonly string[]): string {
  return routePath(LOGS_ROUTES.parts, { orgId }, { parts: partIds.join(',') });
}
