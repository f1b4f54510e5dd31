import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DomainHandlers } from '../backend/router';
import type { BackendContext } from '../backend/context';
import { AppError } from '../backend/errors';
import { FleetClient } from '../grpc/client';

type ProfilesChannel = 'profiles.list' | 'profiles.add' | 'profiles.switch' | 'profiles.remove';

export function profilesHandlers(ctx: BackendContext): DomainHandlers<ProfilesChannel> {
  const { profiles, keychain } = ctx;
  return {
    'profiles.list': () => ctx.profilesState(),

    'profiles.add': async ({ name, address, tls, apiKeyId, apiKey }) => {
      if (profiles.profiles.some((p) => p.name.toLowerCase() === name.toLowerCase())) {
        throw new AppError('conflict', `A profile named "${name}" exists already. Pick another name.`);
      }
      // Check the credentials before keeping anything: a typo is reported now, not at the next start.
      const probe = new FleetClient({ address, tls, apiKeyId, apiKey });
      try {
        await probe.authenticate();
      } finally {
        probe.close();
      }
      const profile = profiles.add({ name, kind: 'remote', address, tls, apiKeyId });
      try {
        await keychain.set(profile.id, apiKey);
        ctx.setKeyStored(profile.id, true);
      } catch (e) {
        profiles.remove(profile.id);
        throw new AppError('internal', `Could not store the API key in the keychain: ${e instanceof Error ? e.message : String(e)}`);
      }
      await ctx.activate(profile.id);
      return ctx.profilesState();
    },

    'profiles.switch': async ({ profileId }) => {
      if (!profiles.get(profileId)) throw new AppError('not-found', 'That profile does not exist (it may have been removed).');
      await ctx.activate(profileId);
      return ctx.profilesState();
    },

    'profiles.remove': async ({ profileId }) => {
      const profile = profiles.get(profileId);
      if (!profile) throw new AppError('not-found', 'That profile does not exist (it may have been removed).');
      if (profile.kind === 'local') throw new AppError('invalid', 'The local profile belongs to the embedded service and cannot be removed.');
      const wasActive = profiles.activeId === profileId;
      if (wasActive) ctx.connection.close();
      profiles.remove(profileId);
      await keychain.delete(profileId).catch((e: unknown) => ctx.log(`profiles: could not delete the key of a removed profile from the keychain: ${String(e)}`));
      ctx.setKeyStored(profileId, false);
      rmSync(dirname(ctx.cachePath(profileId)), { recursive: true, force: true });
      if (wasActive && profiles.activeId) await ctx.activate(profiles.activeId);
      return ctx.profilesState();
    },
  };
}
