import type { ProfilesState } from '../../common/profiles';
import type { Connection } from '../connection/connection';
import type { LocalServiceSupervisor } from '../local-service/supervisor';
import type { ProfileStore } from '../profiles/store';
import type { SecretStore, KeychainStatus } from '../keychain/keychain';
import type { EventBus } from './events';

/** What the domain handlers share: the backend's parts, and the few moves that span domains. */
export interface BackendContext {
  readonly events: EventBus;
  readonly connection: Connection;
  readonly profiles: ProfileStore;
  readonly keychain: SecretStore;
  readonly keychainStatus: KeychainStatus;
  readonly localService: LocalServiceSupervisor;
  readonly log: (message: string) => void;
  /** Connect to a profile (starting the local service for the local one) and make it active. */
  activate(profileId: string): Promise<void>;
  /** The profiles as the renderer sees them. */
  profilesState(): ProfilesState;
  /** Where a profile's cache lives. */
  cachePath(profileId: string): string;
  /** Remember that a profile's key is (or is not) in the keychain. */
  setKeyStored(profileId: string, stored: boolean): void;
}
