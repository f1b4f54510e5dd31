/**
 * The access bridge channels. Members and invites, keys and who holds what are read through the
 * cache (online: from the service, and cached; offline: the cached copy, saying so); every change
 * needs the service, and what it answers is cached at once. Secrets are never cached: a new key's
 * secret or a new secret's value is answered once (common/access.ts says where else one may go),
 * and lists of secrets answer ids and times only.
 *
 * Refusals are put in words that say what to do: the last owner, a role already held or gone, a
 * key this profile's key may not manage ("needs owner on …", the service's own naming of the role).
 */
import type { ApiKey, ApiKeyList, Grant, Holder, Holders, IssuedKey, IssuedSecret, People, ResourceRef, SecretList } from '../../common/access';
import type { ChannelName } from '../../common/channels';
import type { Authorization } from '../../proto/gen/fleet/app/v1/access';
import type { SharedSecret } from '../../proto/gen/fleet/app/v1/locations';
import { online, readThrough, write } from '../backend/calls';
import type { BackendContext } from '../backend/context';
import { AppError } from '../backend/errors';
import type { DomainHandlers } from '../backend/router';
import type { CacheDb } from '../cache/cache';
import type { CacheRunner } from '../connection/connection';
import { cachedChain } from '../fleet/tree';
import type { FleetClient } from '../grpc/client';
import { addProfile } from '../profiles/handlers';
import { cachedKeys, cachedPeople, cachedPermissions, cachedRoles, identityNames, namesFrom, type RoleRow } from './cache';
import { authorizationToWire, named, type NameOf, grantFromWire, identityTypeFromWire, inviteFromWire, keyAuthorizationToWire, keyFromWire, memberFromWire, resourceTypeToWire, sameGrant, secretSummary } from './convert';
import type { IssuedKeys } from './issued';

type AccessChannel = Extract<ChannelName, `access.${string}`>;

/** ListAuthorizations and ListKeys pages as large as the protocol allows. */
const PAGE = 1000;
/** Pages read at most for one list (100,000 rows): past it the list is answered as far as read. */
const MAX_PAGES = 100;

/** What the service's refusals mean here, in words that say what to do. Other failures pass as they are. */
function explained(e: unknown, what: string, nameOf: NameOf | null): unknown {
  if (!(e instanceof AppError)) return e;
  const say = (kind: AppError['kind'], text: string) => new AppError(kind, `Couldn't ${what}: ${text}`, e.reason);
  switch (e.reason) {
    case 'LAST_OWNER':
      return say('conflict', 'the organization would be left without an owner. Make someone else (a user or a key) owner of the organization first, then try again.');
    case 'ALREADY_MEMBER':
      return say('conflict', 'that address belongs to a member already. Give them roles from their row in the members list instead.');
    case 'INVITE_EXISTS':
      return say('conflict', 'an invite for that address is pending already. Change its roles or resend it instead.');
    case 'LAST_INVITE_AUTHORIZATION':
    case 'AUTHORIZATIONS_EMPTY':
      return say('invalid', 'an invite must keep at least one role. Delete the invite instead if it should grant nothing.');
    case 'AUTHORIZATION_EXISTS':
      return say('conflict', 'that role is held already. Refresh to see who holds what.');
    case 'AUTHORIZATION_NOT_FOUND':
      return say('not-found', 'that role is no longer held (someone changed it meanwhile). Refresh to see who holds what.');
    case 'INVITE_NOT_FOUND':
      return say('not-found', 'there is no pending invite for that address any more (accepted or withdrawn meanwhile). Refresh the list.');
    case 'MEMBER_NOT_FOUND':
      return say('not-found', 'they are no longer a member (removed meanwhile). Refresh the list.');
    case 'API_KEY_NOT_FOUND':
      return say('not-found', 'that key no longer exists, or this profile’s key may not see it. Refresh the list.');
    case 'IDENTITY_NOT_FOUND':
      return say('not-found', 'that user or key no longer exists. Refresh the list.');
    case 'RESOURCE_NOT_FOUND':
      return say('not-found', 'one of the chosen resources is not in this organization any more (deleted or moved). Pick again from the tree.');
    case 'SECRET_NOT_FOUND':
      return say('not-found', 'that secret no longer exists (deleted meanwhile). Refresh the list.');
    case 'LAST_SECRET':
      return say('invalid', 'this service keeps at least one secret: create a new secret first, then delete this one.');
    case 'EMAIL_INVALID':
      return say('invalid', 'that is not an email address the service accepts. Check it for typos.');
  }
  if (e.kind === 'permission-denied') {
    const why = /\(([^()]*)\)\.?$/.exec(e.message)?.[1];
    return say('permission-denied', `this profile’s API key is not allowed to${why ? ` (${named(why, nameOf)})` : ''}. Use a profile whose key holds that role, or ask an owner to grant it.`);
  }
  return e;
}


/** Every page of a paged listing. */
async function allPages<T>(page: (token: string) => Promise<{ items: readonly T[]; next: string }>): Promise<T[]> {
  const all: T[] = [];
  let token = '';
  for (let i = 0; i < MAX_PAGES; i++) {
    const { items, next } = await page(token);
    all.push(...items);
    if (!next) break;
    token = next;
  }
  return all;
}

async function fetchPeople(client: FleetClient, cache: CacheDb, run: CacheRunner, orgId: string): Promise<void> {
  const r = await client.call('list the members', client.app.listOrganizationMembers, { orgId });
  const nameOf = namesFrom(cache);
  await run('accessPeoplePut', orgId, r.members.map((m) => memberFromWire(m, orgId, nameOf)), r.invites.map((i) => inviteFromWire(i, nameOf)), new Date().toISOString());
}

async function fetchKeys(client: FleetClient, cache: CacheDb, run: CacheRunner, orgId: string, thisKeyId: string): Promise<ApiKey[]> {
  const wire = await allPages(async (pageToken) => {
    const r = await client.call('list the API keys', client.app.listKeys, { orgId, pageSize: PAGE, pageToken });
    return { items: r.apiKeys, next: r.nextPageToken };
  });
  const nameOf = namesFrom(cache);
  const keys = wire.map((k) => keyFromWire(k, orgId, nameOf, thisKeyId));
  await run('accessKeysPut', orgId, keys, new Date().toISOString());
  return keys;
}

function roleRows(list: readonly Authorization[]): RoleRow[] {
  return list.flatMap((a) => {
    const g = grantFromWire(a);
    return g ? [{ resourceType: g.resourceType, resourceId: g.resourceId, role: g.role, identityType: identityTypeFromWire(a.identityType), identityId: a.identityId }] : [];
  });
}

async function fetchRoles(client: FleetClient, run: CacheRunner, orgId: string, resourceIds: readonly string[]): Promise<void> {
  const list = await allPages(async (pageToken) => {
    const r = await client.call('list who holds what', client.app.listAuthorizations, { orgId, resourceIds: [...resourceIds], pageSize: PAGE, pageToken });
    return { items: r.authorizations, next: r.nextPageToken };
  });
  await run('accessRolesPut', orgId, resourceIds, roleRows(list), new Date().toISOString());
}

const ROLE_RANK = { owner: 0, operator: 1 } as const;

/** Who holds what on `chain[0]` and what covers it, from the cache. */
function holdersFrom(cache: CacheDb, orgId: string, chain: readonly ResourceRef[], thisKeyId: string): Omit<Holders, 'fromCache'> | null {
  const cached = cachedRoles(cache, orgId, chain.map((r) => r.id));
  const [resource] = chain;
  if (cached === null || !resource) return null;
  const names = identityNames(cache, orgId);
  const at = new Map(chain.map((r) => [r.id, r]));
  const holders = cached.roles.map((r): Holder => {
    const user = r.identityType === 'user' ? names.users.get(r.identityId) : undefined;
    return {
      identityType: r.identityType,
      identityId: r.identityId,
      name: r.identityType === 'user' ? (user?.name || null) : (names.keys.get(r.identityId) ?? null),
      email: user?.email ?? null,
      role: r.role,
      on: at.get(r.resourceId) ?? { type: r.resourceType, id: r.resourceId, name: null },
      direct: r.resourceId === resource.id,
      thisProfile: r.identityType === 'key' && r.identityId === thisKeyId,
    };
  });
  holders.sort((a, b) => Number(b.direct) - Number(a.direct) || ROLE_RANK[a.role] - ROLE_RANK[b.role] || (a.name ?? a.identityId).localeCompare(b.name ?? b.identityId));
  return { orgId, resource, holders, syncedAt: cached.syncedAt };
}

/** The organizations whose cached key lists name `keyId`. */
function orgsListing(cache: CacheDb, keyId: string): string[] {
  return cache.prepare('SELECT DISTINCT org_id FROM access_keys WHERE key_id = ?').pluck().all(keyId) as string[];
}

function secretList(owner: 'location' | 'part', ownerId: string, secrets: readonly SharedSecret[]): SecretList {
  return { owner, ownerId, secrets: secrets.map(secretSummary) };
}

export function accessHandlers(ctx: BackendContext, issued: IssuedKeys): DomainHandlers<AccessChannel> {
  const { connection } = ctx;

  /** Run `fn`, putting its refusal in words (resources named as the cache knows them). */
  const explaining = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (e) {
      let nameOf: NameOf | null = null;
      try {
        nameOf = namesFrom(connection.cache);
      } catch {
        // No profile is active any more: the service's own words stand.
      }
      throw explained(e, what, nameOf);
    }
  };
  const thisKeyId = () => (connection.profileId ? (ctx.profiles.get(connection.profileId)?.apiKeyId ?? '') : '');

  /**
   * The local service prints its own key at every start (its data dir keeps that copy), so the local
   * profile signs in with it after a restart: rotating or deleting it from here would lock that
   * profile out for good.
   */
  const notTheLocalKey = (keyId: string, what: string) => {
    const active = connection.profileId ? ctx.profiles.get(connection.profileId) : undefined;
    if (active?.kind === 'local' && active.apiKeyId === keyId) {
      throw new AppError(
        'invalid',
        `Couldn't ${what}: it is the local service's own key, which the "${active.name}" profile signs in with at every start; without it that profile could not connect again. Make another key to share instead.`,
      );
    }
  };

  /** After a change, refresh a cached list; a failure here must not turn the change (already made) into an error. */
  const refresh = async (what: string, fn: () => Promise<unknown>) => {
    try {
      await fn();
    } catch (e) {
      ctx.log(`access: could not refresh ${what} after a change: ${e instanceof Error ? e.message : String(e)}`);
    }
  };

  /** A key made or rotated: remembered for a new profile, refreshed in the lists that show it. Never throws: the secret must reach the user. */
  const issue = async (client: FleetClient, cache: CacheDb, run: CacheRunner, keyId: string, secret: string, orgIds: readonly string[], name: string | null): Promise<IssuedKey> => {
    const until = issued.remember(keyId, secret);
    let known = name;
    for (const orgId of orgIds) {
      await refresh('the API keys', async () => {
        const keys = await fetchKeys(client, cache, run, orgId, thisKeyId());
        known ??= keys.find((k) => k.id === keyId)?.name ?? null;
      });
    }
    return { keyId, secret, name: known ?? '', rememberedUntil: until.toISOString() };
  };

  /**
   * The role-changing calls, then the roles of the resources they touched read again. A change of
   * this profile's own key's roles changes what it may do (and may see): a sync round follows at once
   * rather than at the next minute's check.
   */
  const roleChange = (what: string, orgId: string, identityId: string, grants: readonly Grant[], call: (client: FleetClient) => Promise<unknown>) =>
    explaining(what, () =>
      write(connection, what, async (client, _cache, run) => {
        await call(client);
        await refresh('who holds what', () => fetchRoles(client, run, orgId, [...new Set(grants.map((g) => g.resourceId))]));
        if (identityId === thisKeyId()) void connection.sync().catch(() => undefined);
        return {};
      }),
    );

  const roleRequest = (orgId: string, identityId: string, g: Grant) => ({ orgId, identityId, role: g.role, resourceType: resourceTypeToWire(g.resourceType), resourceId: g.resourceId });

  const locationAuth = async (client: FleetClient, locationId: string) => {
    const r = await client.call('read the location’s secrets', client.app.locationAuth, { locationId });
    return r.auth?.secrets ?? [];
  };
  const partSecrets = async (client: FleetClient, partId: string) => {
    const r = await client.call('read the part’s secrets', client.app.getRobotPart, { robotPartId: partId });
    return r.part?.secrets ?? [];
  };
  const issuedSecret = (list: SecretList, secrets: readonly SharedSecret[], before: ReadonlySet<string>): IssuedSecret => {
    const made = secrets.find((s) => !before.has(s.id)) ?? secrets.at(-1);
    if (!made) throw new AppError('internal', 'The service answered without the new secret.');
    return { list, id: made.id, value: made.secret, createdOn: list.secrets.find((s) => s.id === made.id)?.createdOn ?? null };
  };

  return {
    'access.people': ({ orgId }) =>
      explaining('read the members', () =>
        readThrough(
          connection,
          'The members of this organization',
          async (client, cache, run): Promise<People> => {
            await fetchPeople(client, cache, run, orgId);
            const people = cachedPeople(cache, orgId);
            if (!people) throw new AppError('internal', 'The members just read are not in the cache.');
            return { orgId, ...people, fromCache: false };
          },
          (cache) => {
            const people = cachedPeople(cache, orgId);
            return people ? { orgId, ...people, fromCache: true } : null;
          },
        ),
      ),

    'access.invite': ({ orgId, email, grants, sendEmail }) =>
      explaining(`invite ${email}`, () =>
        write(connection, `invite ${email}`, async (client, cache, run) => {
          const r = await client.call('invite', client.app.createOrganizationInvite, {
            orgId,
            email,
            authorizations: grants.map((g) => authorizationToWire(orgId, g)),
            sendEmailInvite: sendEmail,
          });
          if (!r.invite) throw new AppError('internal', 'The service answered the invite without it.');
          const invite = inviteFromWire(r.invite, namesFrom(cache));
          await run('accessInvitePut', invite);
          return invite;
        }),
      ),

    'access.updateInvite': ({ orgId, email, grants }) =>
      explaining(`change the invite of ${email}`, () =>
        write(connection, `change the invite of ${email}`, async (client, cache, run) => {
          const current = (await client.call('read the invite', client.app.listOrganizationMembers, { orgId })).invites.find((i) => i.email === email.toLowerCase());
          if (!current) throw new AppError('not-found', `Couldn't change the invite of ${email}: there is no pending invite for that address any more (accepted or withdrawn meanwhile). Refresh the list.`, 'INVITE_NOT_FOUND');
          const held = current.authorizations.flatMap((a) => grantFromWire(a) ?? []);
          const add = grants.filter((g) => !held.some((h) => sameGrant(g, h)));
          const remove = held.filter((h) => !grants.some((g) => sameGrant(g, h)));
          const nameOf = namesFrom(cache);
          if (add.length === 0 && remove.length === 0) return inviteFromWire(current, nameOf);
          const r = await client.call('change the invite', client.app.updateOrganizationInviteAuthorizations, {
            orgId,
            email,
            addAuthorizations: add.map((g) => authorizationToWire(orgId, g)),
            removeAuthorizations: remove.map((g) => authorizationToWire(orgId, g)),
          });
          if (!r.invite) throw new AppError('internal', 'The service answered the change without the invite.');
          const invite = inviteFromWire(r.invite, nameOf);
          await run('accessInvitePut', invite);
          return invite;
        }),
      ),

    'access.resendInvite': ({ orgId, email }) =>
      explaining(`resend the invite of ${email}`, () =>
        write(connection, `resend the invite of ${email}`, async (client, cache, run) => {
          const r = await client.call('resend the invite', client.app.resendOrganizationInvite, { orgId, email });
          if (!r.invite) throw new AppError('internal', 'The service answered the resend without the invite.');
          const invite = inviteFromWire(r.invite, namesFrom(cache));
          await run('accessInvitePut', invite);
          return invite;
        }),
      ),

    'access.deleteInvite': ({ orgId, email }) =>
      explaining(`delete the invite of ${email}`, () =>
        write(connection, `delete the invite of ${email}`, async (client, _cache, run) => {
          await client.call('delete the invite', client.app.deleteOrganizationInvite, { orgId, email });
          await run('accessInviteRemove', orgId, email.toLowerCase());
          return {};
        }),
      ),

    'access.removeMember': ({ orgId, userId }) =>
      explaining('remove the member', () =>
        write(connection, 'remove the member', async (client, _cache, run) => {
          await client.call('remove the member', client.app.deleteOrganizationMember, { orgId, userId });
          await run('accessMemberRemove', orgId, userId);
          return {};
        }),
      ),

    'access.holders': ({ orgId, resourceType, resourceId }) => {
      const chainOf = (cache: CacheDb): ResourceRef[] => cachedChain(cache, orgId, resourceType, resourceId);
      return explaining('read who holds what', () =>
        readThrough(
          connection,
          'Who holds what here',
          async (client, cache, run): Promise<Holders> => {
            const chain = chainOf(cache);
            await fetchRoles(client, run, orgId, chain.map((r) => r.id));
            // Names: the members and keys lists (a failure there leaves the ids, not the answer).
            await refresh('the members', () => fetchPeople(client, cache, run, orgId));
            await refresh('the API keys', () => fetchKeys(client, cache, run, orgId, thisKeyId()));
            const answer = holdersFrom(cache, orgId, chain, thisKeyId());
            if (!answer) throw new AppError('internal', 'The roles just read are not in the cache.');
            return { ...answer, fromCache: false };
          },
          (cache) => {
            const answer = holdersFrom(cache, orgId, chainOf(cache), thisKeyId());
            return answer ? { ...answer, fromCache: true } : null;
          },
        ),
      );
    },

    'access.addRole': ({ orgId, identityId, grant }) =>
      roleChange('give the role', orgId, identityId, [grant], (client) => client.call('give the role', client.app.addRole, roleRequest(orgId, identityId, grant))),

    'access.removeRole': ({ orgId, identityId, grant }) =>
      roleChange('take the role away', orgId, identityId, [grant], (client) => client.call('take the role away', client.app.removeRole, roleRequest(orgId, identityId, grant))),

    'access.changeRole': ({ orgId, identityId, from, to }) =>
      roleChange('change the role', orgId, identityId, [from, to], (client) =>
        client.call('change the role', client.app.changeRole, {
          organizationId: orgId,
          oldIdentityId: identityId,
          oldRole: from.role,
          oldResourceType: resourceTypeToWire(from.resourceType),
          oldResourceId: from.resourceId,
          newIdentityId: identityId,
          newRole: to.role,
          newResourceType: resourceTypeToWire(to.resourceType),
          newResourceId: to.resourceId,
        }),
      ),

    'access.keys': ({ orgId }) =>
      explaining('list the API keys', () =>
        readThrough(
          connection,
          'The API keys of this organization',
          async (client, cache, run): Promise<ApiKeyList> => {
            await fetchKeys(client, cache, run, orgId, thisKeyId());
            const keys = cachedKeys(cache, orgId, thisKeyId());
            if (!keys) throw new AppError('internal', 'The keys just read are not in the cache.');
            return { orgId, ...keys, fromCache: false };
          },
          (cache) => {
            const keys = cachedKeys(cache, orgId, thisKeyId());
            return keys ? { orgId, ...keys, fromCache: true } : null;
          },
        ),
      ),

    'access.machineKeys': ({ machineId }) =>
      explaining('list the machine’s keys', () =>
        online(connection, 'list the machine’s keys', async (client, cache) => {
          const r = await client.call('list the machine’s keys', client.app.getRobotApiKeys, { robotId: machineId });
          const nameOf = namesFrom(cache);
          return { machineId, keys: r.apiKeys.map((k) => keyFromWire(k, null, nameOf, thisKeyId())) };
        }),
      ),

    'access.createKey': ({ orgId, name, grants }) =>
      explaining('create the key', () =>
        write(connection, 'create the key', async (client, cache, run) => {
          const r = await client.call('create the key', client.app.createKey, { orgId, name: name ?? '', authorizations: grants.map(keyAuthorizationToWire) });
          return issue(client, cache, run, r.id, r.key, [orgId], name ?? null);
        }),
      ),

    'access.rotateKey': ({ keyId }) =>
      explaining('rotate the key', () =>
        write(connection, 'rotate the key', async (client, cache, run) => {
          notTheLocalKey(keyId, 'rotate the key');
          const r = await client.call('rotate the key', client.app.rotateKey, { id: keyId });
          const profileId = connection.profileId;
          // This profile's own key: keep the new secret where its key lives, or the app signs itself out.
          if (profileId && r.id === thisKeyId()) {
            await ctx.storeKey(profileId, r.key).catch((e: unknown) => ctx.log(`access: could not keep the rotated key of this profile: ${e instanceof Error ? e.message : String(e)}`));
          }
          return issue(client, cache, run, r.id, r.key, orgsListing(cache, keyId), null);
        }),
      ).then(async (answer) => {
        // Reconnect with the new secret once the answer is made (its old tokens end at the next call).
        const profileId = connection.profileId;
        if (profileId && answer.keyId === thisKeyId()) await ctx.activate(profileId).catch(() => undefined);
        return answer;
      }),

    'access.renameKey': ({ keyId, name }) =>
      explaining('rename the key', () =>
        write(connection, 'rename the key', async (client, _cache, run) => {
          const r = await client.call('rename the key', client.app.renameKey, { id: keyId, name });
          await run('accessKeyRename', r.id || keyId, r.name || name);
          return { keyId: r.id || keyId, name: r.name || name };
        }),
      ),

    'access.duplicateKey': ({ keyId }) =>
      explaining('duplicate the key’s rights', () =>
        write(connection, 'duplicate the key’s rights', async (client, cache, run) => {
          const r = await client.call('duplicate the key’s rights', client.app.createKeyFromExistingKeyAuthorizations, { id: keyId });
          return issue(client, cache, run, r.id, r.key, orgsListing(cache, keyId), null);
        }),
      ),

    'access.deleteKey': ({ keyId }) =>
      explaining('delete the key', () =>
        write(connection, 'delete the key', async (client, _cache, run) => {
          notTheLocalKey(keyId, 'delete the key');
          await client.call('delete the key', client.app.deleteKey, { id: keyId });
          issued.forget(keyId);
          await run('accessKeyRemove', keyId);
          return {};
        }),
      ),

    'access.useKeyInProfile': async ({ keyId, name }) => {
      const secret = issued.peek(keyId);
      if (secret === null) {
        throw new AppError(
          'not-found',
          'This app no longer holds that key’s secret (it keeps a new key’s secret for a few minutes, on the profile that made it). Add the profile from the profiles menu with the key’s id and secret instead.',
        );
      }
      const active = connection.profileId ? ctx.profiles.get(connection.profileId) : undefined;
      if (!active) throw new AppError('not-found', 'No profile is active: the new profile takes the active profile’s service address.');
      const address = active.kind === 'local' ? (ctx.localService.state.address ?? '') : active.address;
      if (!address) throw new AppError('offline', 'The local service is stopped, so its address is unknown. Start it, then try again.');
      // The active profile already talks to this address this way: a cleartext choice made for it stands for the new one.
      await addProfile(ctx, { name, address, tls: active.kind === 'local' ? false : active.tls, apiKeyId: keyId, apiKey: secret, cleartextConfirmed: true });
      issued.forget(keyId);
      return ctx.profilesState();
    },

    'access.locationSecrets': ({ locationId }) =>
      explaining('read the location’s secrets', () =>
        online(connection, 'read the location’s secrets', async (client) => secretList('location', locationId, await locationAuth(client, locationId))),
      ),

    'access.createLocationSecret': ({ locationId }) =>
      explaining('create a location secret', () =>
        write(connection, 'create a location secret', async (client) => {
          const before = new Set((await locationAuth(client, locationId)).map((s) => s.id));
          const r = await client.call('create a location secret', client.app.createLocationSecret, { locationId });
          const secrets = r.auth?.secrets ?? [];
          return issuedSecret(secretList('location', locationId, secrets), secrets, before);
        }),
      ),

    'access.deleteLocationSecret': ({ locationId, secretId }) =>
      explaining('delete the location secret', () =>
        write(connection, 'delete the location secret', async (client) => {
          await client.call('delete the location secret', client.app.deleteLocationSecret, { locationId, secretId });
          return secretList('location', locationId, await locationAuth(client, locationId));
        }),
      ),

    'access.partSecrets': ({ partId }) =>
      explaining('read the part’s secrets', () => online(connection, 'read the part’s secrets', async (client) => secretList('part', partId, await partSecrets(client, partId)))),

    'access.createPartSecret': ({ partId }) =>
      explaining('create a part secret', () =>
        write(connection, 'create a part secret', async (client) => {
          const before = new Set((await partSecrets(client, partId)).map((s) => s.id));
          const r = await client.call('create a part secret', client.app.createRobotPartSecret, { robotPartId: partId });
          const secrets = r.part?.secrets ?? [];
          return issuedSecret(secretList('part', partId, secrets), secrets, before);
        }),
      ),

    'access.deletePartSecret': ({ partId, secretId }) =>
      explaining('delete the part secret', () =>
        write(connection, 'delete the part secret', async (client) => {
          await client.call('delete the part secret', client.app.deleteRobotPartSecret, { robotPartId: partId, secretId });
          return secretList('part', partId, await partSecrets(client, partId));
        }),
      ),

    'access.revealSecret': ({ owner, ownerId, secretId }) =>
      explaining('read the secret', () =>
        online(connection, 'read the secret', async (client) => {
          const secrets = owner === 'location' ? await locationAuth(client, ownerId) : await partSecrets(client, ownerId);
          const found = secrets.find((s) => s.id === secretId);
          if (!found) throw new AppError('not-found', 'Couldn’t read the secret: it no longer exists (deleted meanwhile). Refresh the list.', 'SECRET_NOT_FOUND');
          return { id: found.id, value: found.secret };
        }),
      ),

    'access.permissions': ({ orgId }) => ({ ...cachedPermissions(connection.cache, orgId), fromCache: connection.state.status !== 'online' }),
  };
}
