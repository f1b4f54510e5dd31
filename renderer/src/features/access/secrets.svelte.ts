import type { FleetBridge } from '../../../../common/bridge';
import type { IssuedSecret, SecretList, SecretOwner } from '../../../../common/access';
import type { Result } from '../../../../common/result';
import { explained } from './labels';
import { Loaded } from './loaded.svelte';

/** Where the value goes when copied: the system clipboard in the app (a seam for tests). */
export type WriteClipboard = (text: string) => Promise<void>;

/** A location's or a part's secrets: listed without values, a value copied on request, made (shown once) and deleted. */
export class SecretsView {
  readonly orgId: string;
  readonly owner: SecretOwner;
  readonly ownerId: string;
  readonly #bridge: FleetBridge;
  readonly list: Loaded<SecretList>;

  constructor(bridge: FleetBridge, orgId: string, owner: SecretOwner, ownerId: string) {
    this.#bridge = bridge;
    this.orgId = orgId;
    this.owner = owner;
    this.ownerId = ownerId;
    this.list = new Loaded(() => (owner === 'location' ? bridge.invoke('access.locationSecrets', { locationId: ownerId }) : bridge.invoke('access.partSecrets', { partId: ownerId })));
  }

  load(): Promise<void> {
    return this.list.load();
  }

  /** A new secret: its value comes back once, to the dialog that shows it. */
  async create(): Promise<Result<IssuedSecret>> {
    const result = this.owner === 'location' ? await this.#bridge.invoke('access.createLocationSecret', { locationId: this.ownerId }) : await this.#bridge.invoke('access.createPartSecret', { partId: this.ownerId });
    if (result.ok) this.list.set(result.value.list);
    else void this.load();
    return explained(result);
  }

  async delete(secretId: string): Promise<Result<SecretList>> {
    const result = this.owner === 'location' ? await this.#bridge.invoke('access.deleteLocationSecret', { locationId: this.ownerId, secretId }) : await this.#bridge.invoke('access.deletePartSecret', { partId: this.ownerId, secretId });
    if (result.ok) this.list.set(result.value);
    else void this.load();
    return explained(result);
  }

  /** Copy one secret's value: read from the service for this copy only, never kept here. */
  async copy(secretId: string, write: WriteClipboard): Promise<Result<unknown>> {
    const result = await this.#bridge.invoke('access.revealSecret', { owner: this.owner, ownerId: this.ownerId, secretId });
    if (!result.ok) return explained(result);
    try {
      await write(result.value.value);
      return { ok: true, value: {} };
    } catch (e) {
      return { ok: false, error: { kind: 'internal', message: `The clipboard refused the secret (${e instanceof Error ? e.message : String(e)}). Try again with the window focused.` } };
    }
  }

  /** What stops connecting when this secret goes: stronger when it is the last one. */
  deleteConsequences(ownerName: string): string[] {
    const count = this.list.value?.secrets.length ?? 0;
    const thing = this.owner === 'location' ? `machines joining ${ownerName}` : `${ownerName}`;
    if (count <= 1)
      return [
        `This is the last secret of ${ownerName}. Once it is deleted, ${this.owner === 'location' ? `no machine can join ${ownerName} with a secret` : `${ownerName} cannot connect to the service`} until a new secret is made and given to ${this.owner === 'location' ? 'them' : 'it'}.`,
        'Make a new secret first if anything still uses this one.',
      ];
    return [`Anything using this secret (${thing}) stops connecting; the other ${count - 1 === 1 ? 'secret keeps' : `${count - 1} secrets keep`} working.`];
  }
}
