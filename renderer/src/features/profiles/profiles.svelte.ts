import type { FleetBridge } from '../../../../common/bridge';
import type { RequestOf } from '../../../../common/channels';
import type { ProfileView, ProfilesState } from '../../../../common/profiles';
import type { BridgeError, Result } from '../../../../common/result';
import { Synced } from '../../lib/state/synced.svelte';

export type AddProfileInput = RequestOf<'profiles.add'>;

/** The connection profiles, the active one, and whether a keychain keeps their keys. */
export class ProfilesStore {
  readonly #bridge: FleetBridge;
  readonly #synced: Synced<ProfilesState>;
  #switchingTo = $state<string | null>(null);
  #savingKeyFor = $state<string | null>(null);
  #removing = $state<string | null>(null);
  /** The active profile as last told to `onSwitch` listeners (null: none known yet). */
  #lastActive: string | null = null;
  #switchListeners: ((profileId: string) => void)[] = [];

  #active = $derived.by((): ProfileView | null => {
    const state = this.#synced.value;
    if (!state || state.activeId === null) return null;
    return state.profiles.find((p) => p.id === state.activeId) ?? null;
  });

  constructor(bridge: FleetBridge) {
    this.#bridge = bridge;
    this.#synced = new Synced(
      () => bridge.invoke('profiles.list', {}),
      (apply) => bridge.on('profiles.changed', apply),
      (state) => this.#seen(state.activeId),
    );
  }

  /** Told when another profile becomes the active one (not on the first one known). */
  onSwitch(listener: (profileId: string) => void): () => void {
    this.#switchListeners.push(listener);
    return () => {
      this.#switchListeners = this.#switchListeners.filter((l) => l !== listener);
    };
  }

  #seen(activeId: string | null): void {
    if (activeId === null) return;
    const before = this.#lastActive;
    this.#lastActive = activeId;
    if (before !== null && before !== activeId) for (const listener of [...this.#switchListeners]) listener(activeId);
  }

  get loaded(): boolean {
    return this.#synced.loaded;
  }
  get loading(): boolean {
    return this.#synced.loading;
  }
  /** Why loading the profiles failed. */
  get error(): BridgeError | null {
    return this.#synced.error;
  }
  get profiles(): readonly ProfileView[] {
    return this.#synced.value?.profiles ?? [];
  }
  get activeId(): string | null {
    return this.#synced.value?.activeId ?? null;
  }
  get active(): ProfileView | null {
    return this.#active;
  }
  /** Whether a keychain answers; `reason` says why not. Assumed available until known. */
  get keychain(): ProfilesState['keychain'] {
    return this.#synced.value?.keychain ?? { available: true, reason: null };
  }
  /** The profile a switch is under way to, if any. */
  get switchingTo(): string | null {
    return this.#switchingTo;
  }

  /** The profile whose API key is being checked and saved, if any. */
  get savingKeyFor(): string | null {
    return this.#savingKeyFor;
  }
  /** The profile being removed, if any. */
  get removing(): string | null {
    return this.#removing;
  }

  follow(): () => void {
    return this.#synced.follow();
  }

  load(): Promise<Result<ProfilesState>> {
    return this.#synced.load();
  }

  /**
   * Add a remote profile (main checks the key against the address first), then make it the active
   * one. The key is passed through and kept nowhere here.
   */
  async add(input: AddProfileInput): Promise<Result<ProfilesState>> {
    const before = this.profiles.map((p) => p.id);
    const result = await this.#bridge.invoke('profiles.add', input);
    if (!result.ok) return result;
    this.#synced.set(result.value);
    const added = result.value.profiles.find((p) => !before.includes(p.id));
    if (added && result.value.activeId !== added.id) return this.switchTo(added.id);
    return result;
  }

  async switchTo(profileId: string): Promise<Result<ProfilesState>> {
    this.#switchingTo = profileId;
    try {
      const result = await this.#bridge.invoke('profiles.switch', { profileId });
      if (result.ok) this.#synced.set(result.value);
      return result;
    } finally {
      if (this.#switchingTo === profileId) this.#switchingTo = null;
    }
  }

  /**
   * Give a remote profile its API key again. Main checks it against the profile's service first and
   * changes nothing when the check fails; the key is passed through and kept nowhere here.
   */
  async setKey(profileId: string, apiKey: string): Promise<Result<ProfilesState>> {
    this.#savingKeyFor = profileId;
    try {
      const result = await this.#bridge.invoke('profiles.setKey', { profileId, apiKey });
      if (result.ok) this.#synced.set(result.value);
      return result;
    } finally {
      if (this.#savingKeyFor === profileId) this.#savingKeyFor = null;
    }
  }

  /** Remove a remote profile; when it was the active one, main falls back to another (the local one). */
  async remove(profileId: string): Promise<Result<ProfilesState>> {
    this.#removing = profileId;
    try {
      const result = await this.#bridge.invoke('profiles.remove', { profileId });
      if (result.ok) this.#synced.set(result.value);
      return result;
    } finally {
      if (this.#removing === profileId) this.#removing = null;
    }
  }
}
