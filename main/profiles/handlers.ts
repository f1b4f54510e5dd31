import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { DomainHandlers } from '../backend/router';
import type { BackendContext } from '../backend/context';
import { AppError } from '../backend/errors';
import { addressHost, isLoopbackAddress } from '../../common/schemas';
import { FleetClient } from '../grpc/client';

/** How long a removal waits for a call under way on the removed profile to finish before deleting its cache. */
const RELEASE_WAIT_MS = 10_000;

type ProfilesChannel = 'profiles.list' | 'profiles.add' | 'profiles.switch' | 'profiles.remove' | 'profiles.setKey';

/** Signs in with the credentials once, so a typo is reported before anything is kept. */
async function checkCredentials(target: { address: string; tls: boolean; apiKeyId: string; apiKey: string }): Promise<void> {
  const probe = new FleetClient(target);
  try {
    await probe.authenticate();
  } finally {
    probe.close();
  }
}

/**
 * Add a remote profile and switch to it: the credentials are checked first, so nothing is kept when
 * they fail; the key goes to the keychain. `profiles.add` and a domain that makes a profile from a
 * key it just made (access) both come through here.
 */
export async function addProfile(
  ctx: BackendContext,
  { name, address, tls, apiKeyId, apiKey, cleartextConfirmed }: { name: string; address: string; tls: boolean; apiKeyId: string; apiKey: string; cleartextConfirmed?: boolean },
): Promise<void> {
  const { profiles } = ctx;
  if (profiles.profiles.some((p) => p.name.toLowerCase() === name.toLowerCase())) {
    throw new AppError('conflict', `A profile named "${name}" exists already. Pick another name.`);
  }
  // Checked before anything is sent: without TLS the very first call would carry the key in the clear.
  if (!tls && !isLoopbackAddress(address) && cleartextConfirmed !== true) {
    throw new AppError(
      'invalid',
      `TLS is off, so the API key would travel to ${addressHost(address)} unencrypted, readable by anyone on the network between. Turn TLS on, or confirm that you accept sending it in cleartext.`,
    );
  }
  await checkCredentials({ address, tls, apiKeyId, apiKey });
  // The key first, then the profile: a failure in between leaves a stray keychain entry (harmless,
  // overwritten or removed with its id) rather than a profile without its key.
  const id = randomUUID();
  await ctx.storeKey(id, apiKey);
  profiles.add({ id, name, kind: 'remote', address, tls, apiKeyId });
  // Waits for the first sync: the user just asked for this service and sees its fleet at once.
  await ctx.activate(id, { wait: true });
}

export function profilesHandlers(ctx: BackendContext): DomainHandlers<ProfilesChannel> {
  const { profiles, keychain } = ctx;
  return {
    'profiles.list': () => ctx.profilesState(),

    'profiles.add': async (request) => {
      await addProfile(ctx, request);
      return ctx.profilesState();
    },

    'profiles.switch': async ({ profileId }) => {
      if (!profiles.get(profileId)) throw new AppError('not-found', 'That profile does not exist (it may have been removed).');
      await ctx.activate(profileId);
      return ctx.profilesState();
    },

    'profiles.setKey': async ({ profileId, apiKey, apiKeyId }) => {
      const profile = profiles.get(profileId);
      if (!profile) throw new AppError('not-found', 'That profile does not exist (it may have been removed).');
      if (profile.kind === 'local') throw new AppError('invalid', 'The local profile gets its key from the embedded service; it needs none entered.');
      const keyId = apiKeyId ?? profile.apiKeyId;
      await checkCredentials({ address: profile.address, tls: profile.tls, apiKeyId: keyId, apiKey });
      await ctx.storeKey(profileId, apiKey);
      if (keyId !== profile.apiKeyId) profiles.add({ ...profile, apiKeyId: keyId });
      if (profiles.activeId === profileId) await ctx.activate(profileId, { wait: true });
      return ctx.profilesState();
    },

    'profiles.remove': async ({ profileId }) => {
      const profile = profiles.get(profileId);
      if (!profile) throw new AppError('not-found', 'That profile does not exist (it may have been removed).');
      if (profile.kind === 'local') throw new AppError('invalid', 'The local profile belongs to the embedded service and cannot be removed.');
      const wasActive = profiles.activeId === profileId;
      // Its cache is deleted below: wait (within reason) until nothing can write to it any more.
      const released = wasActive ? ctx.connection.close() : Promise.resolve();
      profiles.remove(profileId);
      await keychain.delete(profileId).catch((e: unknown) => ctx.log(`profiles: could not delete the key of a removed profile from the keychain: ${String(e)}`));
      ctx.forgetKey(profileId);
      let waited: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([released.then(() => false), new Promise<boolean>((resolve) => (waited = setTimeout(() => resolve(true), RELEASE_WAIT_MS)))]);
      clearTimeout(waited);
      if (timedOut) ctx.log(`profiles: the removed profile's cache was still in use after ${RELEASE_WAIT_MS / 1000} s; deleting it anyway`);
      // Housekeeping, not the removal: a cache still held open by a call finishing (Windows refuses to
      // delete open files) must not turn a removed profile into an error.
      try {
        rmSync(dirname(ctx.cachePath(profileId)), { recursive: true, force: true });
      } catch (e) {
        ctx.log(`profiles: could not delete the cache of a removed profile: ${e instanceof Error ? e.message : String(e)}`);
      }
      if (wasActive && profiles.activeId) await ctx.activate(profiles.activeId);
      return ctx.profilesState();
    },
  };
}
