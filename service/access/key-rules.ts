/**
 * The permission rows of the API key operations (docs/PROTOCOL.md sections 10 and 11, "API keys and
 * app content"; the machinery: permissions/rules.ts). DeleteKey, RotateKey, RenameKey and
 * CreateKeyFromExistingKeyAuthorizations act on a key, not a resource: their rows check the request's
 * shape, and the handler requires owner on every organization the key holds authorizations in
 * (key-handlers.ts), through the permission engine.
 */
import type { AppServiceService } from '../../proto/gen/fleet/app/v1/app';
import { invalidArgument, Reason } from '../errors';
import { none, org, robot, type Rules } from '../permissions/rules';
import { displayName, requiredId } from '../validate';

/** The roles and resource types an authorization may name (section 10). */
export const ROLES = ['owner', 'operator'] as const;
export const RESOURCE_TYPES = ['organization', 'location', 'robot'] as const;

/** The shape of each authorization CreateKey asks for, as `authorizations[i].…`. */
function authorizationList(list: readonly { role: string; resourceType: string; resourceId: string }[]): void {
  if (list.length === 0) throw invalidArgument('authorizations', Reason.AUTHORIZATIONS_EMPTY, 'authorizations must not be empty: a key holds at least one role');
  list.forEach((a, i) => {
    if (!(ROLES as readonly string[]).includes(a.role)) {
      throw invalidArgument(`authorizations[${i}].role`, Reason.ROLE_INVALID, `authorizations[${i}].role must be "owner" or "operator", not ${JSON.stringify(a.role.slice(0, 40))}`);
    }
    if (!(RESOURCE_TYPES as readonly string[]).includes(a.resourceType)) {
      throw invalidArgument(
        `authorizations[${i}].resource_type`,
        Reason.RESOURCE_TYPE_INVALID,
        `authorizations[${i}].resource_type must be "organization", "location" or "robot", not ${JSON.stringify(a.resourceType.slice(0, 40))}`,
      );
    }
    requiredId(`authorizations[${i}].resource_id`, a.resourceId);
  });
}

export const keyRules: Rules<typeof AppServiceService> = {
  createKey: {
    validate: (r) => {
      requiredId('org_id', r.orgId);
      authorizationList(r.authorizations);
      // Empty means the creation time (spec).
      if (r.name.trim() !== '') displayName('name', r.name);
    },
    resource: (r) => org(r.orgId),
    need: 'owner',
  },
  listKeys: { resource: (r) => org(r.orgId), need: 'owner' },
  deleteKey: { validate: (r) => requiredId('id', r.id), resource: none, need: 'authenticated' },
  rotateKey: { validate: (r) => requiredId('id', r.id), resource: none, need: 'authenticated' },
  renameKey: {
    validate: (r) => {
      requiredId('id', r.id);
      displayName('name', r.name);
    },
    resource: none,
    need: 'authenticated',
  },
  createKeyFromExistingKeyAuthorizations: { validate: (r) => requiredId('id', r.id), resource: none, need: 'authenticated' },
  getRobotApiKeys: { resource: (r) => robot(r.robotId), need: 'owner' },
};
