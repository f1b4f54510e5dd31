import type { FleetBridge } from '../../../../common/bridge';
import type { ApiKey, Grant, IssuedKey } from '../../../../common/access';
import type { ProfilesState } from '../../../../common/profiles';
import type { IsoTime } from '../../../../common/schemas';
import type { Result } from '../../../../common/result';
import { explained } from './labels';
import { Loaded } from './loaded.svelte';

/** Whose keys a page lists: an organization's (every key with a role in it), or those holding a role on one machine. */
export type KeysScope = { readonly kind: 'org'; readonly orgId: string } | { readonly kind: 'machine'; readonly orgId: string; readonly machineId: string };

/** A list of keys as a page shows it, whichever channel answered. */
export interface KeyListing {
  readonly keys: readonly ApiKey[];
  readonly fromCache: boolean;
  readonly syncedAt: IsoTime | null;
}

/**
 * An API keys page. Secrets never live here: the calls that make one answer it to the dialog that
 * asked (`IssuedKey`), which shows it once and drops it on close.
 */
export class KeysView {
  readonly scope: KeysScope;
  readonly #bridge: FleetBridge;
  readonly list: Loaded<KeyListing>;

  constructor(bridge: FleetBridge, scope: KeysScope) {
    this.#bridge = bridge;
    this.scope = scope;
    this.list = new Loaded(async (): Promise<Result<KeyListing>> => {
      if (scope.kind === 'org') return bridge.invoke('access.keys', { orgId: scope.orgId });
      const result = await bridge.invoke('access.machineKeys', { machineId: scope.machineId });
      return result.ok ? { ok: true, value: { keys: result.value.keys, fromCache: false, syncedAt: null } } : result;
    });
  }

  get orgId(): string {
    return this.scope.orgId;
  }

  load(): Promise<void> {
    return this.list.load();
  }

  /** A new key with these roles; its secret comes back once. */
  create(name: string, grants: readonly Grant[]): Promise<Result<IssuedKey>> {
    const trimmed = name.trim();
    return this.#write(this.#bridge.invoke('access.createKey', { orgId: this.orgId, grants: [...grants], ...(trimmed ? { name: trimmed } : {}) }));
  }

  /** A new secret for the same key: whatever uses the old one stops at its next call. */
  rotate(keyId: string): Promise<Result<IssuedKey>> {
    return this.#write(this.#bridge.invoke('access.rotateKey', { keyId }));
  }

  /** A new key with a copy of this one's roles (the no-downtime path of a rotation: make it, move users over, delete the old). */
  duplicate(keyId: string): Promise<Result<IssuedKey>> {
    return this.#write(this.#bridge.invoke('access.duplicateKey', { keyId }));
  }

  rename(keyId: string, name: string): Promise<Result<unknown>> {
    return this.#write(this.#bridge.invoke('access.renameKey', { keyId, name }));
  }

  delete(keyId: string): Promise<Result<unknown>> {
    return this.#write(this.#bridge.invoke('access.deleteKey', { keyId }));
  }

  /** Add a profile signing in with a key made moments ago, and switch to it (main still holds the secret: none is sent). */
  useInProfile(keyId: string, name: string): Promise<Result<ProfilesState>> {
    return this.#bridge.invoke('access.useKeyInProfile', { keyId, name }).then(explained);
  }

  async #write<T>(call: Promise<Result<T>>): Promise<Result<T>> {
    const result = await call;
    void this.load();
    return explained(result);
  }
}

/** What stops working when a key is deleted or its secret replaced, said before it is done. */
export function keyConsequences(key: ApiKey, what: 'delete' | 'rotate'): string[] {
  const lines = [
    what === 'delete'
      ? `Everything that signs in with “${key.name}” stops working at its next call: profiles, scripts and machines' modules using it (SVC_API_KEY_ID ${key.id}).`
      : `Everything that signs in with the current secret of “${key.name}” stops working at its next call, until it is given the new secret.`,
  ];
  if (key.thisProfile) lines.push('This is the key this app signs in with: this profile will ask for a new key.');
  return lines;
}
