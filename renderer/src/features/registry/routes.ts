import { routePath } from '../../lib/router/router.svelte';

/** The registry's pages: the browser (`?org=` filters it to an organization), an item, a module. */
export const REGISTRY_ROUTES = {
  list: '/registry',
  item: '/registry/items/:itemId',
  module: '/registry/modules/:moduleId',
} as const;

/** The address of a registry page: a module's or an item's, else the browser (filtered to `orgId`). */
export function registryPath(to: { readonly orgId?: string | undefined; readonly itemId?: string; readonly moduleId?: string }): string {
  if (to.moduleId !== undefined) return routePath(REGISTRY_ROUTES.module, { moduleId: to.moduleId });
  if (to.itemId !== undefined) return routePath(REGISTRY_ROUTES.item, { itemId: to.itemId });
  return routePath(REGISTRY_ROUTES.list, {}, { org: to.orgId });
}
