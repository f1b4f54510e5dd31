/** The registry browser: the labels and filters it offers, and one page of items with the selected one. Each read is "the newest read wins" (`Latest`). */
import type { FleetBridge } from '../../../../common/bridge';
import type { ItemStatus, PackageType, RegistryItem, Visibility } from '../../../../common/registry';
import type { BridgeError, Result } from '../../../../common/result';
import { Latest } from '../../lib/state/latest';

export const TYPE_LABEL: Record<PackageType, string> = { module: 'Module', ml_model: 'ML model', ml_training: 'Training script', archive: 'Archive' };
export const VISIBILITY_LABEL: Record<Visibility, string> = { private: 'Private', public: 'Public', public_unlisted: 'Public, unlisted' };
export const STATUS_LABEL: Record<ItemStatus, string> = { published: 'Published', in_development: 'In development' };
/** Platforms offered in the filter besides those the loaded items have. */
export const COMMON_PLATFORMS = ['linux/amd64', 'linux/arm64', 'linux/arm32', 'linux/any', 'darwin/arm64', 'darwin/amd64', 'windows/amd64'] as const;
/** Items per page of the browser. */
export const PAGE_SIZE = 50;

/** One value per filter ('' is "any"); `orgId` '' lists across organizations (public items and what the key sees). */
export interface RegistryFilter {
  readonly orgId: string;
  readonly type: PackageType | '';
  readonly visibility: Visibility | '';
  readonly platform: string;
  readonly status: ItemStatus | '';
  readonly search: string;
}

export const EMPTY_REGISTRY_FILTER: RegistryFilter = { orgId: '', type: '', visibility: '', platform: '', status: '', search: '' };

/** Items of one page, platforms of every item seen, and whether more pages follow. */
export class RegistryList {
  readonly #bridge: FleetBridge;
  filter = $state.raw<RegistryFilter>(EMPTY_REGISTRY_FILTER);
  items = $state.raw<readonly RegistryItem[]>([]);
  nextPageToken = $state('');
  /** The first page (of a new filter) is on its way. */
  loading = $state(false);
  /** A further page is on its way. */
  loadingMore = $state(false);
  /** A page answered for the current filter. */
  loaded = $state(false);
  error = $state.raw<BridgeError | null>(null);
  /** The item the keyboard and the last opened item are on. */
  selectedId = $state<string | null>(null);
  /** Something changed on the service since the list was read (a write, a finished upload). */
  stale = false;
  readonly #latest = new Latest();

  constructor(bridge: FleetBridge) {
    this.#bridge = bridge;
  }

  get more(): boolean {
    return this.nextPageToken !== '';
  }

  /** Whether any filter narrows the list (the organization counts). */
  get filtered(): boolean {
    const f = this.filter;
    return f.orgId !== '' || f.type !== '' || f.visibility !== '' || f.platform !== '' || f.status !== '' || f.search.trim() !== '';
  }

  #request(pageToken: string) {
    const f = this.filter;
    return {
      orgId: f.orgId,
      types: f.type ? [f.type] : [],
      visibilities: f.visibility ? [f.visibility] : [],
      platforms: f.platform ? [f.platform] : [],
      statuses: f.status ? [f.status] : [],
      search: f.search.trim(),
      pageToken,
      pageSize: PAGE_SIZE,
    };
  }

  /** Read the first page again, with the filter changed by `change`. */
  async load(change: Partial<RegistryFilter> = {}): Promise<Result<unknown>> {
    this.filter = { ...this.filter, ...change };
    const read = this.#latest.read();
    this.loading = true;
    this.loadingMore = false;
    this.stale = false;
    const result = await this.#bridge.invoke('registry.list', this.#request(''));
    if (!read.current) return result; // a newer filter is on its way
    this.loading = false;
    if (!result.ok) {
      this.error = result.error;
      return result;
    }
    this.error = null;
    this.items = result.value.items;
    this.nextPageToken = result.value.nextPageToken;
    this.loaded = true;
    return result;
  }

  /** Append the next page. */
  async loadMore(): Promise<Result<unknown>> {
    if (!this.more || this.loadingMore) return { ok: true, value: null };
    const read = this.#latest.follow();
    this.loadingMore = true;
    const result = await this.#bridge.invoke('registry.list', this.#request(this.nextPageToken));
    if (!read.current) return result;
    this.loadingMore = false;
    if (!result.ok) {
      this.error = result.error;
      return result;
    }
    this.error = null;
    const seen = new Set(this.items.map((i) => i.id)); // eslint-disable-line svelte/prefer-svelte-reactivity -- built and read at once, never state
    this.items = [...this.items, ...result.value.items.filter((i) => !seen.has(i.id))];
    this.nextPageToken = result.value.nextPageToken;
    return result;
  }

  /** Platforms to offer in the filter: the common ones and every one of the items loaded. */
  get platforms(): readonly string[] {
    const all = new Set<string>(COMMON_PLATFORMS); // eslint-disable-line svelte/prefer-svelte-reactivity -- built and read at once, never state
    for (const item of this.items) for (const p of item.platforms) all.add(p);
    if (this.filter.platform) all.add(this.filter.platform);
    return [...all].sort();
  }

  /** Forget everything (another profile is active): the next open reads afresh. */
  reset(): void {
    this.#latest.supersede();
    this.filter = EMPTY_REGISTRY_FILTER;
    this.items = [];
    this.nextPageToken = '';
    this.loading = false;
    this.loadingMore = false;
    this.loaded = false;
    this.error = null;
    this.selectedId = null;
    this.stale = false;
  }

  /** An item as a write answered it (its place in the list kept). */
  put(item: RegistryItem): void {
    if (this.items.some((i) => i.id === item.id)) this.items = this.items.map((i) => (i.id === item.id ? { ...item, markdown: null } : i));
    this.stale = true;
  }

  drop(itemId: string): void {
    this.items = this.items.filter((i) => i.id !== itemId);
    if (this.selectedId === itemId) this.selectedId = null;
    this.stale = true;
  }
}
