import { routePath } from '../../lib/router/router.svelte';

/** Fragments' pages: an organization's fragment browser, and one fragment (`?version=` shows a revision or tag read-only). */
export const FRAGMENT_ROUTES = {
  list: '/orgs/:orgId/fragments',
  fragment: '/orgs/:orgId/fragments/:id',
} as const;

/** The fragment browser of an organization. */
export function fragmentsPath(orgId: string): string {
  return routePath(FRAGMENT_ROUTES.list, { orgId });
}

/** A fragment's page; with `version`, that revision or tag shown read-only beside the latest. */
export function fragmentPath(orgId: string, id: string, version?: string): string {
  return routePath(FRAGMENT_ROUTES.fragment, { orgId, id }, version === undefined ? undefined : { version });
}
