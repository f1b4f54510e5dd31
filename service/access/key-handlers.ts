/**
 * The API key operations (docs/PROTOCOL.md section 11, "API keys and app content"). A key's secret
 * is returned once, by the call that made it (CreateKey, RotateKey,
 * CreateKeyFromExistingKeyAuthorizations); only its keyed hash is stored (keys.ts). A caller never
 * grants more than it holds: every authorization a new key receives is one the caller holds at
 * least as strongly, on a resource of the organization.
 */
import { status } from '@grpc/grpc-js';
import type { AppServiceService } from '../../proto/gen/fleet/app/v1/app';
import type { APIKeyWithAuthorizations, Authorization } from '../../proto/gen/fleet/app/v1/access';
import { FleetError, present, Reason } from '../errors';
import { PageTokens, pageSize } from '../paging';
import type { Grant, LocationTarget, OrgTarget, Permissions, RobotTarget, Role, Target } from '../permissions/engine';
import { robotOf, targetOf } from '../permissions/resources';
import type { CallContext, UnaryHandlers } from '../rpc';
import { displayName } from '../validate';
import type { Authorizations } from './authorizations';
import type { ApiKeyStore, StoredAuthorization } from './keys';
import type { RESOURCE_TYPES } from './key-rules';

const RANK: Record<Role, number> = { operator: 1, owner: 2 };

/**
 * NOT_FOUND for a key id, without quoting it: a caller that pastes a key's secret where its id
 * belongs must not find the secret in its error reports and logs.
 */
function missing(): FleetError {
  return new FleetError(status.NOT_FOUND, Reason.API_KEY_NOT_FOUND, 'no API key of that id is visible to this API key (it is unknown, deleted, or only in organizations this key does not see)', 'id');
}

/** One authorization a new key is to receive, checked. */
interface Wanted {
  readonly role: Role;
  readonly resourceType: (typeof RESOURCE_TYPES)[number];
  readonly resourceId: string;
  readonly organizationId: string;
}

function toAuthorization(row: StoredAuthorization): Authorization {
  return {
    authorizationType: row.authorization_type,
    authorizationId: row.authorization_id,
    resourceType: row.resource_type,
    resourceId: row.resource_id,
    identityId: row.identity_id,
    organizationId: row.organization_id,
    identityType: row.identity_type,
    roleId: row.role_id,
  };
}

/** The API key handlers; `keys` and `authorizations` are the access domain's stores. */
export function createKeyHandlers(keys: ApiKeyStore, authorizations: Authorizations, permissions: Permissions, tokens: PageTokens): UnaryHandlers<typeof AppServiceService, CallContext> {
  /** Live keys `ids` with their authorizations (in `orgIds` only, when given), in the order of `ids`. */
  const withAuthorizations = (ids: readonly string[], orgIds?: readonly string[]): APIKeyWithAuthorizations[] => {
    const records = keys.records(ids);
    const byKey = new Map<string, Authorization[]>();
    for (const row of keys.authorizationsOf(ids, orgIds)) byKey.set(row.identity_id, [...(byKey.get(row.identity_id) ?? []), toAuthorization(row)]);
    return ids.flatMap((id) => {
      const r = records.get(id);
      return r === undefined ? [] : [{ apiKey: { id: r.id, key: '', name: r.name, createdOn: r.createdOn, lastUsed: r.lastUsed }, authorizations: byKey.get(id) ?? [] }];
    });
  };

  /**
   * Key `id`, if the caller may manage it: owner on every organization it holds authorizations in.
   * A key unknown, deleted, or only in organizations the caller does not see is NOT_FOUND (one
   * answer, so key ids cannot be probed). A key may delete itself whatever its roles (`self`), and
   * a key holding no authorizations of its own (a user's key: its calls act as the user) may also
   * rotate and rename itself: it manages its own credential and grants nothing.
   */
  const manageable = (ctx: CallContext, id: string, options: { self?: boolean } = {}): string[] => {
    if (!keys.isActive(id)) throw missing();
    const orgs = keys.organizationsOf(id);
    if (id === ctx.caller.keyId && (options.self === true || orgs.length === 0)) return orgs;
    const seen = new Set(ctx.grants.map((g) => g.organizationId));
    if (!orgs.some((o) => seen.has(o))) throw missing();
    const lacking = orgs.filter((o) => permissions.roleOn(ctx.grants, { kind: 'organization', id: o }) !== 'owner');
    if (lacking.length > 0) {
      const named = lacking.filter((o) => seen.has(o));
      const others = lacking.length - named.length;
      throw new FleetError(
        status.PERMISSION_DENIED,
        Reason.PERMISSION_DENIED,
        `this API key needs owner on every organization API key ${id} holds authorizations in: it is not owner on ${[...named.map((o) => `organization ${o}`), ...(others > 0 ? [`${others} other organization${others === 1 ? '' : 's'}`] : [])].join(', ')}`,
      );
    }
    return orgs;
  };

  /** The resource an authorization names, if it is organization `orgId` or one it has access to (owned, or shared with it). */
  const resourceIn = (orgId: string, type: Wanted['resourceType'], id: string): OrgTarget | LocationTarget | RobotTarget | undefined => {
    if (type === 'organization') return id === orgId ? { kind: 'organization', id } : undefined;
    const found = type === 'location' ? permissions.location(id) : permissions.robot(id);
    const location = found?.kind === 'robot' ? found.location : found;
    return location?.accessOrgIds.includes(orgId) === true ? found : undefined;
  };

  /** Refuse an authorization stronger than the caller's own on that resource. */
  const grantable = (grants: readonly Grant[], target: Target, role: Role, field: string): void => {
    const held = permissions.roleOn(grants, target);
    if (held === null || RANK[held] < RANK[role]) {
      throw new FleetError(status.PERMISSION_DENIED, Reason.PERMISSION_DENIED, `this API key cannot grant ${role} on ${target.kind === 'robot' ? 'machine' : target.kind} ${target.id}: it holds ${held ?? 'no role'} there (${field})`);
    }
  };

  /** Store a new key with `wanted`, in one transaction; its secret is returned this once. */
  const create = (name: string, wanted: readonly Wanted[]): { id: string; key: string } => {
    const now = new Date();
    const key = keys.prepare(name === '' ? now.toISOString() : name);
    keys.insertWith(key, now, () => {
      for (const w of wanted) authorizations.grant({ type: '', id: key.id }, w, now);
    });
    return { id: key.id, key: key.secret };
  };

  return {
    async createKey(request, ctx) {
      const orgId = targetOf(ctx, 'organization').id;
      const wanted = request.authorizations.map((a, i): Wanted => {
        const field = `authorizations[${i}].resource_id`;
        const resource = a.resourceType as Wanted['resourceType'];
        const target = resourceIn(orgId, resource, a.resourceId);
        if (target === undefined) {
          throw new FleetError(status.NOT_FOUND, Reason.RESOURCE_NOT_FOUND, `no ${resource === 'robot' ? 'machine' : resource} ${JSON.stringify(a.resourceId.slice(0, 60))} in organization ${orgId}`, field);
        }
        grantable(ctx.grants, target, a.role as Role, field);
        return { role: a.role as Role, resourceType: resource, resourceId: a.resourceId, organizationId: orgId };
      });
      return create(request.name.trim() === '' ? '' : displayName('name', request.name), dedupe(wanted));
    },

    async deleteKey(request, ctx) {
      manageable(ctx, request.id, { self: true });
      if (!keys.delete(request.id)) throw missing();
      return {};
    },

    async rotateKey(request, ctx) {
      manageable(ctx, request.id);
      const key = keys.rotate(request.id);
      if (key === undefined) throw missing();
      return { id: request.id, key };
    },

    async listKeys(request, ctx) {
      const orgId = targetOf(ctx, 'organization').id;
      const size = pageSize('page_size', request.pageSize);
      const fingerprint = PageTokens.fingerprint('ListKeys', { orgId });
      const cursor = tokens.read(fingerprint, request.pageToken);
      const after = cursor?.after as [string, string] | undefined;
      const rows = keys.keysIn(orgId, size + 1, after);
      const page = rows.slice(0, size);
      const last = page.at(-1);
      return {
        apiKeys: withAuthorizations(
          page.map((r) => r.id),
          [orgId],
        ),
        nextPageToken: rows.length > size && last !== undefined ? tokens.issue(fingerprint, { after: [last.created_at, last.id], returned: (cursor?.returned ?? 0) + page.length }) : '',
      };
    },

    async renameKey(request, ctx) {
      manageable(ctx, request.id);
      const name = displayName('name', request.name);
      if (!keys.rename(request.id, name)) throw missing();
      return { id: request.id, name };
    },

    async createKeyFromExistingKeyAuthorizations(request, ctx) {
      // Not on a key's own say: a copy of a user's key would be a key holding nothing.
      if (keys.organizationsOf(request.id).length === 0) throw missing();
      manageable(ctx, request.id);
      // The rights and nothing more: not the name, not the last use.
      const wanted = keys.authorizationsOf([request.id]).map((row, i): Wanted => {
        const target = present(resourceIn(row.organization_id, row.resource_type as Wanted['resourceType'], row.resource_id), `the ${row.resource_type} of an authorization of key ${request.id}`);
        grantable(ctx.grants, target, row.role_id as Role, `authorization ${i} of key ${request.id}`);
        return { role: row.role_id as Role, resourceType: row.resource_type as Wanted['resourceType'], resourceId: row.resource_id, organizationId: row.organization_id };
      });
      return create('', wanted);
    },

    async getRobotApiKeys(_request, ctx) {
      const robot = robotOf(ctx);
      return { apiKeys: withAuthorizations(keys.keysOnRobot(robot.id), robot.location.accessOrgIds) };
    },
  };
}

/** The same authorization asked for twice is granted once. */
function dedupe(wanted: readonly Wanted[]): Wanted[] {
  const seen = new Set<string>();
  return wanted.filter((w) => {
    const k = `${w.resourceType}\0${w.resourceId}\0${w.role}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
