import type { ProfilesState } from '../../common/profiles';
import type { Connection } from '../connection/connection';
import type { LocalServiceSupervisor } from '../local-service/supervisor';
import type { ProfileStore } from '../profiles/store';
import type { SecretStore, KeychainStatus } from '../keychain/keychain';
import type { Downloads } from '../fs/downloads';
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
  /** Asks where to save a file (Electron's save dialog); null in browser mode, which offers a download instead. */
  readonly chooseSavePath: ((suggestedName: string) => Promise<string | null>) | null;
  /** Asks which files to open (Electron's open dialog); null in browser mode, where the page picks files itself. */
  readonly chooseOpenPaths: ((options: { title: string; filters: { name: string; extensions: string[] }[] }) => Promise<string[]>) | null;
  /** Files offered for download in browser mode (exports). */
  readonly downloads: Downloads;
  /** Where browser mode writes exports before they are downloaded. */
  readonly exportsDir: string;
  /**
   * Make a profile active: its cache answers when this resolves; reaching its service (starting the
   * local one) goes on in the background unless `wait` is set, then it resolves after the first sync.
   */
  activate(profileId: string, options?: { wait?: boolean }): Promise<void>;
  /** Keep a profile's API key in the keychain (or, without one, for this run). */
  storeKey(profileId: string, apiKey: string): Promise<void>;
  /** The profiles as the renderer sees them. */
  profilesState(): ProfilesState;
  /** Where a profile's cache lives. */
  cachePath(profileId: string): string;
  /** Forget what is known of a removed profile's key. */
  forgetKey(profileId: string): void;
  /** A window drew its first view from the cache (`ui.restored`): a launch waiting for it may reach the service now. */
  firstViewDrawn(): void;
}
