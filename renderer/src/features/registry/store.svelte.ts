/**
 * The registry in the renderer: which page is open (the browser, an item, a module) and each page's
 * state, over the upload queue. Every call's failure is kept to show (`error`), never thrown.
 */
import type { FleetBridge } from '../../../../common/bridge';
import type { PackageType, RegistryItem, Visibility } from '../../../../common/registry';
import type { Result } from '../../../../common/result';
import { RegistryList } from './list.svelte';
import { ModuleView, RegistryItemView, type UploadingView } from './pages.svelte';
import { type StageFile, stageWithFetch } from './staging';
import { UploadsStore } from './uploads.svelte';
import { registryPath } from './routes';

/** Shows a registry page through the app's router (so it gets an address, Back and Forward). */
export type Navigate = (path: string, options?: { readonly replace?: boolean; readonly ifShowing?: readonly string[] }) => void;

/** Which registry page is open. */
export type RegistryPage = { readonly kind: 'list' } | { readonly kind: 'item'; readonly itemId: string } | { readonly kind: 'module'; readonly moduleId: string };

/** The registry as the app shows it: which page is open, and each page's state. */
export class RegistryStore {
  readonly #bridge: FleetBridge;
  readonly #stage: StageFile;
  readonly #navigate: Navigate | null;
  readonly list: RegistryList;
  readonly uploads: UploadsStore;
  /** null: the registry is closed (the fleet's panes show). */
  page = $state.raw<RegistryPage | null>(null);
  item = $state.raw<RegistryItemView | null>(null);
  module = $state.raw<ModuleView | null>(null);

  constructor(bridge: FleetBridge, options: { stage?: StageFile; navigate?: Navigate } = {}) {
    this.#bridge = bridge;
    this.#stage = options.stage ?? stageWithFetch;
    this.#navigate = options.navigate ?? null;
    this.list = new RegistryList(bridge);
    this.uploads = new UploadsStore(bridge);
  }

  get bridge(): FleetBridge {
    return this.#bridge;
  }

  /** Follow the upload queue; a finished upload refreshes the open module or item (its new version) and marks the list stale. */
  follow(): () => void {
    const stops = [
      this.uploads.follow(),
      this.uploads.onDone((done) => {
        this.list.stale = true;
        const open = this.module;
        if (open && done.some((u) => u.moduleId === open.moduleId)) void open.load();
        // A training script's or ML model's page: its new version (and platforms).
        const item = this.item;
        if (item?.takesUploads && done.some((u) => u.moduleId === item.itemId)) void item.load();
      }),
    ];
    return () => {
      for (const stop of stops) stop();
    };
  }

  /** Go to the browser (filtered to `orgId`), an item's or a module's page: through the router when there is one. */
  open(orgId?: string): void {
    if (this.#navigate) this.#navigate(registryPath({ orgId }));
    else this.show(orgId);
  }
  openItem(itemId: string): void {
    if (this.#navigate) this.#navigate(registryPath({ itemId }));
    else this.showItem(itemId);
  }
  openModule(moduleId: string): void {
    if (this.#navigate) this.#navigate(registryPath({ moduleId }));
    else this.showModule(moduleId);
  }

  /** Show the browser; with `orgId` (an organization's "Modules & registry"), filtered to that organization. */
  show(orgId?: string): void {
    this.page = { kind: 'list' };
    this.item = null;
    this.module = null;
    if (orgId !== undefined && orgId !== this.list.filter.orgId) void this.list.load({ orgId });
    else if (!this.list.loaded || this.list.stale) void this.list.load();
  }

  showItem(itemId: string): RegistryItemView {
    this.list.selectedId = itemId;
    const view = new RegistryItemView(this.#bridge, itemId, this.list.items.find((i) => i.id === itemId) ?? null, this.#stage);
    this.item = view;
    this.module = null;
    this.page = { kind: 'item', itemId };
    void view.load();
    return view;
  }

  showModule(moduleId: string): ModuleView {
    this.list.selectedId = moduleId;
    const view = new ModuleView(this.#bridge, moduleId, this.#stage);
    this.module = view;
    this.item = null;
    this.page = { kind: 'module', moduleId };
    void view.load();
    return view;
  }

  close(): void {
    this.page = null;
    this.item = null;
    this.module = null;
  }

  /** Another profile is active: close, and read the registry afresh next time (the upload queue follows main's event). */
  reset(): void {
    this.close();
    this.list.reset();
  }

  /** Create an item (not a module: `createModule`) and open it. */
  async createItem(orgId: string, name: string, type: Exclude<PackageType, 'module'>): Promise<Result<RegistryItem>> {
    const result = await this.#bridge.invoke('registry.create', { orgId, name, type });
    if (result.ok) {
      this.list.stale = true;
      this.openItem(result.value.id);
    }
    return result;
  }

  /** Create a module and open its page (to set its entrypoint and upload a first version). */
  async createModule(orgId: string, name: string): Promise<Result<{ readonly moduleId: string; readonly url: string }>> {
    const result = await this.#bridge.invoke('registry.createModule', { orgId, name });
    if (result.ok) {
      this.list.stale = true;
      this.openModule(result.value.moduleId);
    }
    return result;
  }

  async updateItem(view: RegistryItemView, change: { description: string; visibility: Visibility; url: string }): Promise<Result<RegistryItem>> {
    const result = await view.update(change);
    if (result.ok) this.list.put(result.value);
    return result;
  }

  /** Delete an item (a module with its versions and files) and go back to the list. */
  async deleteItem(itemId: string): Promise<Result<null>> {
    const result = await this.#bridge.invoke('registry.delete', { itemId });
    if (result.ok) {
      this.list.drop(itemId);
      // The item's page is gone: Back must not lead to it.
      if (this.#navigate) this.#navigate(registryPath({}), { replace: true, ifShowing: [registryPath({ itemId }), registryPath({ moduleId: itemId })] });
      else this.show();
    }
    return result;
  }

  /** Files from main's open dialog (Electron); false when there is none (browser mode: the page's own picker). */
  async pickFiles(view: UploadingView): Promise<Result<boolean>> {
    const result = await this.#bridge.invoke('registry.pickFiles', {});
    if (!result.ok) return result;
    if (result.value === null) return { ok: true, value: false };
    await view.addCandidates(result.value);
    return { ok: true, value: true };
  }
}
