import { routePath } from '../router/router.svelte';
import type { NodeKind, NodeRef } from './fleet-index';

/**
 * The address of each kind of fleet node's page. The kernel holds them because several features
 * link to a node (its logs live under it: `<node>/logs`) and none may import another.
 */
export const NODE_ROUTES: Readonly<Record<NodeKind, string>> = {
  org: '/orgs/:orgId',
  location: '/orgs/:orgId/locations/:id',
  machine: '/orgs/:orgId/machines/:id',
  part: '/orgs/:orgId/parts/:id',
};

/** The page of a node: `/orgs/o1/parts/p1`. */
export function nodeRoute(ref: NodeRef): string {
  return ref.kind === 'org' ? routePath(NODE_ROUTES.org, { orgId: ref.id }) : routePath(NODE_ROUTES[ref.kind], { orgId: ref.orgId, id: ref.id });
}

/** The node of a node route's parameters (`kind` from the pattern it matched). */
export function nodeOf(kind: NodeKind, params: Readonly<Record<string, string>>): NodeRef | null {
  const orgId = params['orgId'];
  if (!orgId) return null;
  if (kind === 'org') return { kind, orgId, id: orgId };
  const id = params['id'];
  return id ? { kind, orgId, id } : null;
}

/** Where closing a page (the registry, training, a log search) leads: the selected node's page, else the start. */
export function closedPagePath(selected: NodeRef | null): string {
  return selected ? nodeRoute(selected) : '/';
}
