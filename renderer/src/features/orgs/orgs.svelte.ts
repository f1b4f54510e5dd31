import type { FleetBridge } from '../../../../common/bridge';
import type { Organization, OrgsSnapshot } from '../../../../common/orgs';
import type { BridgeError, Result } from '../../../../common/result';
import type { IsoTime } from '../../../../common/schemas';
import { Synced } from '../../lib/state/synced.svelte';

// The locale's default order (as String#localeCompare), ties broken by id so the order is stable.
const byName = new Intl.Collator();

/** The active profile's organizations (as cached by main) and which one the user selected. */
export class OrgsStore {
  readonly #bridge: FleetBridge;
  readonly #synced: Synced<OrgsSnapshot>;
  #selectedId = $state<string | null>(null);
  /** The selected organization as `orgs.get` or `orgs.create` answered, until the next snapshot. */
  #details = $state.raw<Organization | null>(null);
  #detailsLoading = $state(false);
  #detailsError = $state.raw<BridgeError | null>(null);
  #refreshing = $state(false);
  #refreshError = $state.raw<BridgeError | null>(null);
  #detailsRequest = 0;

  #orgs = $derived.by(() =>
    [...(this.#synced.value?.orgs ?? [])].sort((a, b) => byName.compare(a.name, b.name) || byName.compare(a.id, b.id)),
  );

  #selected = $derived.by((): Organization | null => {
    const id = this.#selectedId;
    if (id === null) return null;
    if (this.#details?.id === id) return this.#details;
    return this.#orgs.find((o) => o.id === id) ?? null;
  });

  constructor(bridge: FleetBridge) {
    this.#bridge = bridge;
    this.#synced = new Synced(
      () => bridge.invoke('orgs.list', {}),
      (apply) => bridge.on('orgs.changed', (snapshot) => {
        apply(snapshot);
        this.#reconcile(snapshot);
      }),
    );
  }

  get loaded(): boolean {
    return this.#synced.loaded;
  }
  get loading(): boolean {
    return this.#synced.loading;
  }
  /** Resolves once the first list is in (or its first load failed). */
  get settled(): Promise<void> {
    return this.#synced.settled;
  }
  /** Why loading the list failed. */
  get loadError(): BridgeError | null {
    return this.#synced.error;
  }
  /** Sorted by name. */
  get orgs(): readonly Organization[] {
    return this.#orgs;
  }
  /** When the cached list last matched the service; null if it never did. */
  get syncedAt(): IsoTime | null {
    return this.#synced.value?.syncedAt ?? null;
  }
  get selectedId(): string | null {
    return this.#selectedId;
  }
  /** The selected organization: fetched details when they arrived, else the cached entry. */
  get selected(): Organization | null {
    return this.#selected;
  }
  /** Whether `orgs.get` for the selection is under way. */
  get detailsLoading(): boolean {
    return this.#detailsLoading;
  }
  /** Why `orgs.get` for the selection failed (the cached entry is still shown). */
  get detailsError(): BridgeError | null {
    return this.#detailsError;
  }
  get refreshing(): boolean {
    return this.#refreshing;
  }
  get refreshError(): BridgeError | null {
    return this.#refreshError;
  }

  follow(): () => void {
    return this.#synced.follow();
  }

  load(): Promise<Result<OrgsSnapshot>> {
    return this.#synced.load();
  }

  /** Fetch the list from the service into main's cache. */
  async refresh(): Promise<Result<OrgsSnapshot>> {
    this.#refreshing = true;
    this.#refreshError = null;
    try {
      const result = await this.#bridge.invoke('orgs.refresh', {});
      if (result.ok) this.#apply(result.value);
      else this.#refreshError = result.error;
      return result;
    } finally {
      this.#refreshing = false;
    }
  }

  /** Select an organization (or none) and fetch its details; the cached entry shows meanwhile. */
  select(orgId: string | null): Promise<Result<Organization> | null> {
    if (orgId === this.#selectedId && (orgId === null || this.#details?.id === orgId || this.#detailsLoading)) {
      return Promise.resolve(null);
    }
    this.#selectedId = orgId;
    this.#details = null;
    this.#detailsError = null;
    this.#detailsRequest++;
    this.#detailsLoading = false;
    return orgId === null ? Promise.resolve(null) : this.reloadSelected();
  }

  /** Fetch the selected organization again. */
  async reloadSelected(): Promise<Result<Organization> | null> {
    const orgId = this.#selectedId;
    if (orgId === null) return null;
    const request = ++this.#detailsRequest;
    this.#detailsLoading = true;
    this.#detailsError = null;
    const result = await this.#bridge.invoke('orgs.get', { orgId });
    if (request !== this.#detailsRequest) return result;
    this.#detailsLoading = false;
    if (result.ok) this.#details = result.value;
    else this.#detailsError = result.error;
    return result;
  }

  /** Create an organization and select it. */
  async create(name: string): Promise<Result<Organization>> {
    const result = await this.#bridge.invoke('orgs.create', { name });
    if (!result.ok) return result;
    const org = result.value;
    const current = this.#synced.value;
    if (!current?.orgs.some((o) => o.id === org.id)) {
      // The orgs.changed event follows; until then the list must already show what was created.
      this.#synced.set({ orgs: [...(current?.orgs ?? []), org], syncedAt: current?.syncedAt ?? null });
    }
    this.#detailsRequest++;
    this.#detailsLoading = false;
    this.#detailsError = null;
    this.#selectedId = org.id;
    this.#details = org;
    return result;
  }

  #apply(snapshot: OrgsSnapshot): void {
    this.#synced.set(snapshot);
    this.#reconcile(snapshot);
  }

  /** After a new snapshot: drop a selection that is gone (another profile, deleted), else show the fresh entry. */
  #reconcile(snapshot: OrgsSnapshot): void {
    const id = this.#selectedId;
    if (id === null) return;
    if (snapshot.orgs.some((o) => o.id === id)) {
      this.#details = null;
      return;
    }
    this.#selectedId = null;
    this.#details = null;
    this.#detailsError = null;
    this.#detailsLoading = false;
    this.#detailsRequest++;
  }
}
