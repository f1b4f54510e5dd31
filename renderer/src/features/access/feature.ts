import { page } from '../../lib/router/router.svelte';
import { lazyPage } from '../../lib/router/lazy-page.svelte';
import type { Feature, PageLink, Shell } from '../../lib/shell/feature';
import { nodeRoute } from '../../lib/fleet/routes';
import { AccessPages } from './pages.svelte';
import { ACCESS_ROUTES, accessPath } from './routes';

// Each page's code loads on its first visit (a chunk of its own): not on the boot path.
const KeysPage = lazyPage(() => import('./KeysPage.svelte'));
const PeoplePage = lazyPage(() => import('./PeoplePage.svelte'));
const RolesPage = lazyPage(() => import('./RolesPage.svelte'));
const SecretsPage = lazyPage(() => import('./SecretsPage.svelte'));

/** Access: an organization's people and API keys, who holds what on each node, location and part secrets. */
export function accessFeature(shell: Shell): Feature {
  const pages = new AccessPages(shell);
  const props = () => ({ shell, pages });
  const roles = (route: string): PageLink => ({ id: 'roles', label: 'Roles', icon: 'unlock', title: 'Who has access here (members and API keys): add, change, remove', route, testId: 'node-roles' });
  return {
    id: 'access',
    routes: [
      page({ pattern: ACCESS_ROUTES.people, owner: 'access', page: PeoplePage, props, enter: (m) => pages.enterPeople(m) }),
      page({ pattern: ACCESS_ROUTES.keys, owner: 'access', page: KeysPage, props, enter: (m) => pages.enterKeys(m, false) }),
      page({ pattern: ACCESS_ROUTES.machineKeys, owner: 'access', page: KeysPage, props, enter: (m) => pages.enterKeys(m, true) }),
      page({ pattern: ACCESS_ROUTES.orgRoles, owner: 'access', page: RolesPage, props, enter: (m) => pages.enterRoles(m, 'organization') }),
      page({ pattern: ACCESS_ROUTES.locationRoles, owner: 'access', page: RolesPage, props, enter: (m) => pages.enterRoles(m, 'location') }),
      page({ pattern: ACCESS_ROUTES.machineRoles, owner: 'access', page: RolesPage, props, enter: (m) => pages.enterRoles(m, 'machine') }),
      page({ pattern: ACCESS_ROUTES.locationSecrets, owner: 'access', page: SecretsPage, props, enter: (m) => pages.enterSecrets(m, 'location') }),
      page({ pattern: ACCESS_ROUTES.partSecrets, owner: 'access', page: SecretsPage, props, enter: (m) => pages.enterSecrets(m, 'part') }),
    ],
    leave: () => pages.leave(),
    reset: () => pages.leave(),
    reload: () => void (pages.people ?? pages.keys ?? pages.holders ?? pages.secrets)?.load(),
    // A page the key may not read is not offered (a key scoped to a location sees no People, keys or roles of
    // the organization): who holds what and the keys are the organization owner's to read, secrets their owner's.
    orgLinks: (orgId) => {
      const org = { kind: 'org' as const, orgId, id: orgId };
      const may = (permission: 'read_organization' | 'write_organization') => shell.permissions.denied(permission, org) === null;
      return [
        ...(may('read_organization') ? [{ id: 'people', label: 'People', icon: 'building' as const, title: 'Members, their roles and pending invites', route: accessPath(org, 'people'), testId: 'org-people' }] : []),
        ...(may('write_organization') ? [{ id: 'keys', label: 'API keys', icon: 'key' as const, title: 'API keys with a role here: create, rotate, rename, delete', route: accessPath(org, 'keys'), testId: 'org-keys' }, roles(`${nodeRoute(org)}/roles`)] : []),
      ];
    },
    nodeLinks: (ref) => {
      const ownerOfOrg = shell.permissions.denied('write_organization', { kind: 'org', orgId: ref.orgId, id: ref.orgId }) === null;
      const secrets: PageLink[] =
        shell.permissions.denied(ref.kind === 'location' ? 'read_location_secret' : 'read_robot_secret', ref) === null
          ? [{ id: 'secrets', label: 'Secrets', icon: 'lock', title: ref.kind === 'location' ? 'The secrets machines join this location with' : 'The secrets this part connects with', route: accessPath(ref, 'secrets'), testId: 'node-secrets' }]
          : [];
      const rolesHere = ownerOfOrg ? [roles(accessPath(ref, 'roles'))] : [];
      if (ref.kind === 'location') return [...rolesHere, ...secrets];
      if (ref.kind === 'machine')
        return [
          ...rolesHere,
          ...(shell.permissions.denied('write_robot', ref) === null ? [{ id: 'machine-keys', label: 'API keys', icon: 'key' as const, title: 'The API keys holding a role on this machine', route: accessPath(ref, 'keys'), testId: 'machine-keys' }] : []),
        ];
      if (ref.kind === 'part') return secrets;
      return [];
    },
  };
}
