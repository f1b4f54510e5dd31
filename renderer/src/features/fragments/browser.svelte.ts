/**
 * An organization's fragment browser: its fragments filtered by visibility and searched by name or
 * id (both done by main, which reads the cache offline), and "New fragment". Failures are kept to
 * show, never thrown.
 */
import type { FleetBridge } from '../../../../common/bridge';
import type { FragmentVisibility } from '../../../../common/config';
import type { Fragment, FragmentView } from '../../../../common/fragments';
import type { BridgeError, Result } from '../../../../common/result';
import type { IsoTime } from '../../../../common/schemas';
import { Latest } from '../../lib/state/latest';

/** The visibility filter's choices: one visibility, or both. */
export type VisibilityFilter = FragmentVisibility | 'both';

/** What "New fragment" sends. */
export interface NewFragment {
  readonly name: string;
  readonly visibility: FragmentVisibility;
  /** The starting config; empty for `{}`. */
  readonly configJson: string;
}

export class FragmentBrowser {
  readonly orgId: string;
  readonly #bridge: FleetBridge;
  readonly #read = new Latest();
  fragments = $state.raw<readonly Fragment[]>([]);
  visibility = $state<VisibilityFilter>('both');
  search = $state('');
  /** A list has been answered (an empty list then means none, not "not yet"). */
  loaded = $state(false);
  loading = $state(false);
  error = $state.raw<BridgeError | null>(null);
  fromCache = $state(false);
  syncedAt = $state<IsoTime | null>(null);

  constructor(bridge: FleetBridge, orgId: string) {
    this.#bridge = bridge;
    this.orgId = orgId;
  }

  /** Read the list with the filter and search now in place (a newer read wins). */
  async load(): Promise<void> {
    const read = this.#read.read();
    this.loading = true;
    const search = this.search.trim();
    const result = await this.#bridge.invoke('fragments.list', {
      orgId: this.orgId,
      ...(this.visibility === 'both' ? {} : { visibilities: [this.visibility] }),
      ...(search ? { search } : {}),
    });
    if (!read.current) return;
    this.loading = false;
    if (!result.ok) {
      this.error = result.error;
      return;
    }
    this.error = null;
    this.loaded = true;
    this.fragments = result.value.fragments;
    this.fromCache = result.value.fromCache;
    this.syncedAt = result.value.syncedAt;
  }

  /** Show one visibility, or both. */
  filter(visibility: VisibilityFilter): Promise<void> {
    this.visibility = visibility;
    return this.load();
  }

  /** Search by name or id (any case). */
  find(search: string): Promise<void> {
    this.search = search;
    return this.load();
  }

  /** Create a fragment (revision 1); the list is read again so it shows. */
  async create(fragment: NewFragment): Promise<Result<FragmentView>> {
    const configJson = fragment.configJson.trim();
    const result = await this.#bridge.invoke('fragments.create', {
      orgId: this.orgId,
      name: fragment.name,
      visibility: fragment.visibility,
      ...(configJson ? { configJson } : {}),
    });
    if (result.ok) void this.load();
    return result;
  }

  /** Another page is shown: no answer applies any more. */
  close(): void {
    this.#read.supersede();
  }
}
