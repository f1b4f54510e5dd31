import { z } from 'zod';
import { id, empty, serviceAddress } from './schemas';

/**
 * Where a profile's API key is kept:
 * `keychain` — the OS keychain; `session` — in memory for this run only, because no keychain answered;
 * `missing` — nowhere (the keychain lost it): the user must enter the key again.
 */
export type KeyStorage = 'keychain' | 'session' | 'missing';

/** A connection profile as the renderer sees it. The API key itself never crosses the bridge. */
export interface ProfileView {
  readonly id: string;
  readonly name: string;
  /** `local`: the embedded service the app starts itself; `remote`: a service somewhere else. */
  readonly kind: 'local' | 'remote';
  /** host:port; for the local profile, where the embedded service listens now (empty while stopped). */
  readonly address: string;
  readonly tls: boolean;
  readonly apiKeyId: string;
  readonly keyStorage: KeyStorage;
}

/** All profiles, which one is active, and whether a keychain answers on this machine. */
export interface ProfilesState {
  readonly profiles: readonly ProfileView[];
  readonly activeId: string | null;
  /** `available: false` means keys are kept for this run only; `reason` says why, for people. */
  readonly keychain: { readonly available: boolean; readonly reason: string | null };
}

export const profilesRequests = {
  /** All profiles and the active one. */
  'profiles.list': empty,
  /**
   * Add a remote profile. Main first authenticates with the key against the address, so a typo in the
   * address or key is reported now and nothing is saved; on success the key goes to the keychain.
   */
  'profiles.add': z
    .object({
      name: z.string().trim().min(1, 'must not be empty').max(100, 'is too long'),
      address: serviceAddress,
      tls: z.boolean(),
      apiKeyId: id,
      apiKey: z.string().min(1, 'must not be empty').max(1000, 'is too long'),
      /**
       * With TLS off and an address that is not this machine (see `isLoopbackAddress`), the key
       * would cross the network in cleartext: main refuses unless the user confirmed exactly that.
       */
      cleartextConfirmed: z.boolean().optional(),
    })
    .strict(),
  /** Make a profile the active one and connect to it (the cache answers at once; the service after). */
  'profiles.switch': z.object({ profileId: id }).strict(),
  /** Remove a remote profile, its key from the keychain and its cache. The local profile cannot be removed. */
  'profiles.remove': z.object({ profileId: id }).strict(),
  /**
   * Give a remote profile its API key again (the keychain lost it, or it was kept for a session that
   * ended, or it was deleted or rotated elsewhere: connection state `needs-key`). Main checks it
   * against the profile's service first; on success it is stored and the profile reconnects. Nothing
   * changes when the check fails. `apiKeyId` replaces the profile's key id too (a new key rather
   * than a rotated one); absent, the id stays.
   */
  'profiles.setKey': z.object({ profileId: id, apiKey: z.string().min(1, 'must not be empty').max(1000, 'is too long'), apiKeyId: id.optional() }).strict(),
};

export interface ProfilesResponses {
  'profiles.list': ProfilesState;
  'profiles.add': ProfilesState;
  'profiles.switch': ProfilesState;
  'profiles.remove': ProfilesState;
  'profiles.setKey': ProfilesState;
}
