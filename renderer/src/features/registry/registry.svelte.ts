/**
 * The registry in the renderer: the browser (filters, pages of items, the selected one), the open
 * item with its documentation (and, for a training script or an ML model, its versions and the files
 * being readied for upload), the open module with its versions and the files being readied for
 * upload, and the upload queue main runs (followed through `registry.uploads`).
 *
 * The renderer never reads a file's bytes: in Electron main streams a dropped file from its path on
 * disk; in browser mode the page hands the File once to the backend's loopback endpoint (`stage`),
 * which keeps it aside for main. Every call's failure is kept to show (`error`), never thrown.
 */
import type { FleetBridge } from '../../../../common/bridge';
import {
  modulePlatform,
  moduleVersion,
  type ItemStatus,
  type Module,
  type ModuleApp,
  type ModuleModel,
  type ModuleVersion,
  type PackageType,
  type RegistryItem,
  type Upload,
  type UploadCandidate,
  type UploadSource,
  type Visibility,
} from '../../../../common/registry';
import type { BridgeError, Result } from '../../../../common/result';
import { Synced } from '../../lib/state/synced.svelte';
import { Latest } from '../../lib/state/latest';
import { sentence } from '../../lib/format';

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

/** Uploads that may still move (cancel applies); the others have ended (retry, remove). */
export function uploadActive(upload: Upload): boolean {
  return upload.state === 'queued' || upload.state === 'uploading' || upload.state === 'waiting';
}

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

/** A file dropped or chosen for an item (a module, a training script, an ML model), readied for upload: where it is, what main found, the version and platform to send it as. */
export interface UploadDraft {
  readonly key: number;
  readonly fileName: string;
  readonly sizeBytes: number;
  /** null while the file is being handed to the backend and inspected. */
  readonly source: UploadSource | null;
  readonly state: 'preparing' | 'ready' | 'queuing';
  /** Why the file cannot be uploaded (from inspection or staging); null: it can. */
  readonly problem: string | null;
  readonly proposal: UploadCandidate['proposal'] | null;
  readonly version: string;
  readonly platform: string;
  /** Why queuing it failed (the service or main refused). */
  readonly error: string | null;
}

/** Hands a File to the backend in browser mode; answers its staged id. */
export type StageFile = (file: File) => Promise<Result<{ stagedId: string; fileName: string }>>;

/**
 * Files this page hands over at once: under the backend's cap (STAGING_CONCURRENCY in
 * main/web/server.ts, which answers more with 429), so a drop of many files never meets it and a
 * second page still fits.
 */
const STAGE_AT_ONCE = 2;
/** A 429 (other pages' files take the backend's places) is tried again, after the wait it names, up to this many times in all. */
const STAGE_TRIES = 5;
const stageSlots = { free: STAGE_AT_ONCE, waiting: [] as (() => void)[] };

async function inStageSlot<T>(run: () => Promise<T>): Promise<T> {
  if (stageSlots.free > 0) stageSlots.free -= 1;
  else await new Promise<void>((resolve) => stageSlots.waiting.push(resolve));
  try {
    return await run();
  } finally {
    const next = stageSlots.waiting.shift();
    if (next) next();
    else stageSlots.free += 1;
  }
}

/** The wait a 429 names (Retry-After, in seconds), within 0–10 s. */
function retryAfterMs(response: Response): number {
  const header = response.headers.get('retry-after');
  const seconds = header === null ? NaN : Number(header);
  return Number.isFinite(seconds) ? Math.min(10, Math.max(0, seconds)) * 1000 : 2000;
}

/**
 * Browser mode's way in for a file: one POST of its bytes to the page's own origin (main/web/server.ts).
 * A refusal's message is the backend's, which says what happened and what to do (a full disk, the
 * staging bound, a file too large).
 */
export const stageWithFetch: StageFile = (file) =>
  inStageSlot(async () => {
    try {
      for (let attempt = 1; ; attempt++) {
        const response = await fetch(`/uploads?name=${encodeURIComponent(file.name)}`, { method: 'POST', body: file, credentials: 'same-origin' });
        const body = (await response.json().catch(() => null)) as { stagedId?: unknown; fileName?: unknown; error?: unknown } | null;
        if (response.ok && typeof body?.stagedId === 'string') return { ok: true, value: { stagedId: body.stagedId, fileName: typeof body.fileName === 'string' ? body.fileName : file.name } };
        if (response.status === 429 && attempt < STAGE_TRIES) {
          await new Promise((resolve) => setTimeout(resolve, retryAfterMs(response)));
          continue;
        }
        const why = typeof body?.error === 'string' ? body.error : `the app's backend answered ${response.status}`;
        // 507: no room on this machine, 429: busy with other files; both pass once something changes there.
        const kind = [400, 408, 411, 413].includes(response.status) ? 'invalid' : response.status === 429 || response.status === 507 ? 'conflict' : 'internal';
        return { ok: false, error: { kind, message: `Couldn't hand ${file.name} to the app: ${why}` } };
      }
    } catch (e) {
      return { ok: false, error: { kind: 'offline', message: `Couldn't hand ${file.name} to the app's backend: ${e instanceof Error ? e.message : String(e)}` } };
    }
  });

/** Electron has no loopback endpoint: a file without a path on disk (dragged out of another app's page) cannot be sent. */
export const noStaging: StageFile = async (file) => ({
  ok: false,
  error: { kind: 'invalid', message: `${file.name} is not a file on disk (was it dragged out of another app?): save it to a folder first, then drop or choose it from there.` },
});

/**
 * What's wrong with a draft's version and platform, as sentences (the same schemas main checks).
 * `uploaded`: the item's versions as read (a module, or its versions alone); null while unread.
 */
export function draftErrors(
  draft: UploadDraft,
  drafts: readonly UploadDraft[],
  uploaded: { readonly versions: readonly ModuleVersion[] } | readonly ModuleVersion[] | null,
): { version: string | null; platform: string | null } {
  const version = moduleVersion.safeParse(draft.version);
  const platform = modulePlatform.safeParse(draft.platform);
  const out = {
    version: version.success ? null : sentence(version.error.issues[0]?.message ?? 'is not valid'),
    platform: platform.success ? null : sentence(platform.error.issues[0]?.message ?? 'is not valid'),
  };
  if (!version.success || !platform.success) return out;
  const same = (d: UploadDraft) => d.key !== draft.key && d.problem === null && d.version.trim() === version.data && d.platform.trim() === platform.data;
  if (drafts.some(same)) out.platform = `Another file is set to ${version.data} for ${platform.data} too.`;
  const versions = uploaded === null ? [] : 'versions' in uploaded ? uploaded.versions : uploaded;
  const existing = versions.find((v) => v.version === version.data)?.files.some((f) => f.platform === platform.data);
  if (existing) out.platform = `Version ${version.data} already has a file for ${platform.data}, and uploaded files never change: use a new version.`;
  return out;
}

/** Item types whose own page (not a module's page) takes uploads: a training script's builds, a model trained elsewhere. Archives stay read-only. */
export const UPLOAD_TYPES: readonly PackageType[] = ['ml_training', 'ml_model'];

/**
 * A page that takes uploads for one registry item (a module's page, a training script's or an ML
 * model's item page): the files being readied, each with the version and platform to send it as,
 * and queuing them (`registry.upload` names the item as `moduleId`; the service takes any item).
 */
export class UploadingView {
  /** The registry item the files go to. */
  readonly uploadTo: string;
  readonly #bridge: FleetBridge;
  readonly #stage: StageFile;
  drafts = $state.raw<readonly UploadDraft[]>([]);
  #nextKey = 1;

  constructor(bridge: FleetBridge, uploadTo: string, stage: StageFile) {
    this.#bridge = bridge;
    this.uploadTo = uploadTo;
    this.#stage = stage;
  }

  /** Whether the page takes files now (an item page: once its type is known to be one that does). */
  get takesUploads(): boolean {
    return true;
  }

  /** The versions uploaded so far, to refuse a file a version already has (null: not read yet). */
  protected get uploadedVersions(): readonly ModuleVersion[] | null {
    return null;
  }

  /** What's wrong with a draft's version and platform, against the other drafts and the versions uploaded. */
  errorsOf(draft: UploadDraft): { version: string | null; platform: string | null } {
    return draftErrors(draft, this.drafts, this.uploadedVersions);
  }

  /**
   * Files dropped or chosen: each is shown at once as being prepared, handed over (its path in
   * Electron, staged in browser mode), inspected by main, then offered with the version and
   * platform its meta.json (or name) proposes.
   */
  async addFiles(files: readonly File[], pathForFile: (file: File) => string | null): Promise<void> {
    if (files.length === 0) return;
    const added = files.map((file) => ({ file, key: this.#nextKey++ }));
    this.drafts = [
      ...this.drafts,
      ...added.map(({ file, key }): UploadDraft => ({ key, fileName: file.name, sizeBytes: file.size, source: null, state: 'preparing', problem: null, proposal: null, version: '', platform: '', error: null })),
    ];
    const sources: { key: number; source: UploadSource }[] = [];
    await Promise.all(
      added.map(async ({ file, key }) => {
        const path = pathForFile(file);
        if (path) {
          sources.push({ key, source: { path } });
          return;
        }
        const staged = await this.#stage(file);
        if (staged.ok) sources.push({ key, source: { stagedId: staged.value.stagedId } });
        else this.#patch(key, { state: 'ready', problem: staged.error.message });
      }),
    );
    if (sources.length === 0) return;
    sources.sort((a, b) => a.key - b.key);
    const result = await this.#bridge.invoke('registry.inspect', { sources: sources.map((s) => s.source) });
    if (!result.ok) {
      for (const { key } of sources) this.#patch(key, { state: 'ready', problem: `Couldn't look into the file: ${result.error.message}` });
      return;
    }
    result.value.forEach((candidate, i) => {
      const key = sources[i]?.key;
      if (key !== undefined) this.#patch(key, this.#fromCandidate(candidate));
    });
  }

  /** Candidates main's open dialog chose (Electron). */
  addCandidates(candidates: readonly UploadCandidate[]): void {
    this.drafts = [
      ...this.drafts,
      ...candidates.map((c): UploadDraft => ({ key: this.#nextKey++, fileName: c.fileName, sizeBytes: c.sizeBytes, source: null, state: 'preparing', problem: null, proposal: null, version: '', platform: '', error: null, ...this.#fromCandidate(c) })),
    ];
  }

  #fromCandidate(c: UploadCandidate): Partial<UploadDraft> {
    return { source: c.source, fileName: c.fileName, sizeBytes: c.sizeBytes, state: 'ready', problem: c.problem, proposal: c.proposal, version: c.proposal.version ?? '', platform: c.proposal.platform ?? '' };
  }

  /** Change a draft's version or platform. */
  edit(key: number, change: { version?: string; platform?: string }): void {
    this.#patch(key, { ...change, error: null });
  }

  discard(key: number): void {
    const draft = this.drafts.find((d) => d.key === key);
    this.drafts = this.drafts.filter((d) => d.key !== key);
    // A staged copy (browser mode) nobody will upload is deleted now, not at the next start; main keeps one a queued upload uses.
    if (draft?.source && 'stagedId' in draft.source) void this.#bridge.invoke('registry.discardStaged', { stagedId: draft.source.stagedId });
  }

  /** The drafts that can be queued now (ready, no problem, version and platform valid). */
  get uploadable(): readonly UploadDraft[] {
    return this.drafts.filter((d) => {
      if (d.state !== 'ready' || d.problem !== null || d.source === null) return false;
      const errors = this.errorsOf(d);
      return errors.version === null && errors.platform === null;
    });
  }

  /** Queue every uploadable draft; a draft main refused stays with why. Answers how many were queued. */
  async queue(): Promise<{ queued: Upload[]; failed: number }> {
    const ready = this.uploadable;
    const queued: Upload[] = [];
    let failed = 0;
    for (const draft of ready) this.#patch(draft.key, { state: 'queuing', error: null });
    for (const draft of ready) {
      if (!draft.source) continue;
      const result = await this.#bridge.invoke('registry.upload', { moduleId: this.uploadTo, version: draft.version.trim(), platform: draft.platform.trim(), source: draft.source });
      if (result.ok) {
        queued.push(result.value);
        this.discard(draft.key);
      } else {
        failed++;
        this.#patch(draft.key, { state: 'ready', error: result.error.message });
      }
    }
    return { queued, failed };
  }

  #patch(key: number, change: Partial<UploadDraft>): void {
    this.drafts = this.drafts.map((d) => (d.key === key ? { ...d, ...change } : d));
  }
}

/**
 * An item's page: the item with its documentation, and (not for a module: its own page has them) its
 * uploaded versions; a training script's or an ML model's page takes uploads as a module's does.
 */
export class RegistryItemView extends UploadingView {
  readonly itemId: string;
  readonly #bridge: FleetBridge;
  item = $state.raw<RegistryItem | null>(null);
  loading = $state(false);
  error = $state.raw<BridgeError | null>(null);
  /** Oldest first; null until read. */
  versions = $state.raw<readonly ModuleVersion[] | null>(null);
  versionsLoading = $state(false);
  versionsError = $state.raw<BridgeError | null>(null);
  readonly #latestItem = new Latest();
  readonly #latestVersions = new Latest();

  constructor(bridge: FleetBridge, itemId: string, known: RegistryItem | null = null, stage: StageFile = stageWithFetch) {
    super(bridge, itemId, stage);
    this.#bridge = bridge;
    this.itemId = itemId;
    // What the list knew shows at once; the documentation follows.
    this.item = known;
  }

  override get takesUploads(): boolean {
    return this.item !== null && UPLOAD_TYPES.includes(this.item.type);
  }

  protected override get uploadedVersions(): readonly ModuleVersion[] | null {
    return this.versions;
  }

  async load(): Promise<Result<RegistryItem>> {
    const read = this.#latestItem.read();
    this.loading = true;
    const result = await this.#bridge.invoke('registry.get', { itemId: this.itemId, markdown: true });
    if (read.newest) this.loading = false;
    if (!read.current) return result;
    if (result.ok) {
      this.item = result.value;
      this.error = null;
      if (result.value.type !== 'module') void this.loadVersions();
    } else this.error = result.error;
    return result;
  }

  /** The item's uploaded versions with their files (an ML model a training job published, a script's versions). */
  async loadVersions(): Promise<Result<readonly ModuleVersion[]>> {
    const read = this.#latestVersions.read();
    this.versionsLoading = true;
    const result = await this.#bridge.invoke('registry.versions', { itemId: this.itemId });
    if (read.newest) this.versionsLoading = false;
    if (!read.current) return result;
    if (result.ok) {
      this.versions = result.value;
      this.versionsError = null;
    } else this.versionsError = result.error;
    return result;
  }

  /** Change the description, visibility and url (the answer has no documentation: the one shown stays). */
  async update(change: { description: string; visibility: Visibility; url: string }): Promise<Result<RegistryItem>> {
    const current = this.item;
    if (!current) return { ok: false, error: { kind: 'invalid', message: 'The item is not loaded yet.' } };
    const result = await this.#bridge.invoke('registry.update', { itemId: this.itemId, type: current.type, ...change });
    if (result.ok) {
      this.#latestItem.supersede();
      this.item = { ...result.value, markdown: result.value.markdown ?? current.markdown };
    }
    return result;
  }
}

/** A module's page: the module with its versions and files, and the files being readied for upload. */
export class ModuleView extends UploadingView {
  readonly moduleId: string;
  readonly #bridge: FleetBridge;
  module = $state.raw<Module | null>(null);
  loading = $state(false);
  error = $state.raw<BridgeError | null>(null);
  readonly #latest = new Latest();

  constructor(bridge: FleetBridge, moduleId: string, stage: StageFile) {
    super(bridge, moduleId, stage);
    this.#bridge = bridge;
    this.moduleId = moduleId;
  }

  protected override get uploadedVersions(): readonly ModuleVersion[] | null {
    return this.module?.versions ?? null;
  }

  async load(): Promise<Result<Module>> {
    const read = this.#latest.read();
    this.loading = true;
    const result = await this.#bridge.invoke('registry.module', { moduleId: this.moduleId });
    if (read.newest) this.loading = false;
    if (!read.current) return result;
    if (result.ok) {
      this.module = result.value;
      this.error = null;
    } else this.error = result.error;
    return result;
  }

  /** Replace the manifest (every field is written). */
  async save(manifest: {
    url: string;
    description: string;
    models: readonly ModuleModel[];
    entrypoint: string;
    visibility: 'private' | 'public';
    apps: readonly ModuleApp[];
    firstRun: string;
  }): Promise<Result<Module>> {
    const result = await this.#bridge.invoke('registry.updateModule', {
      moduleId: this.moduleId,
      ...manifest,
      models: manifest.models.map((m) => ({ api: m.api, model: m.model })),
      apps: manifest.apps.map((a) => ({ name: a.name, type: a.type, entrypoint: a.entrypoint, logoPath: a.logoPath, fragmentIds: [...a.fragmentIds] })),
    });
    if (result.ok) {
      this.#latest.supersede();
      this.module = result.value;
      this.error = null;
    }
    return result;
  }
}

/** The upload queue main runs, as its last `registry.uploads` said, and what each row's action answered. */
export class UploadsStore {
  readonly #bridge: FleetBridge;
  readonly #synced: Synced<readonly Upload[]>;
  /** Why the last cancel, retry or remove of an upload failed, by upload id. */
  rowErrors = $state.raw<Readonly<Record<string, string>>>({});
  #listeners: ((done: readonly Upload[]) => void)[] = [];
  /** Each upload's state when last seen, to tell which just finished (bookkeeping, not state). */
  #states: ReadonlyMap<string, Upload['state']> = new Map(); // eslint-disable-line svelte/prefer-svelte-reactivity -- replaced whole, never rendered

  constructor(bridge: FleetBridge) {
    this.#bridge = bridge;
    this.#synced = new Synced(
      () => bridge.invoke('registry.uploads', {}),
      (apply) =>
        bridge.on('registry.uploads', (uploads) => {
          apply(uploads);
          this.#seen(uploads);
        }),
    );
  }

  get items(): readonly Upload[] {
    return this.#synced.value ?? [];
  }
  get loaded(): boolean {
    return this.#synced.loaded;
  }
  get error(): BridgeError | null {
    return this.#synced.error;
  }

  forModule(moduleId: string): readonly Upload[] {
    return this.items.filter((u) => u.moduleId === moduleId);
  }

  follow(): () => void {
    return this.#synced.follow();
  }

  async load(): Promise<Result<readonly Upload[]>> {
    const result = await this.#synced.load();
    // What is shown now (an event may have overtaken the answer).
    if (result.ok) this.#seen(this.items);
    return result;
  }

  /** Told of uploads that finished since the queue was last seen. */
  onDone(listener: (done: readonly Upload[]) => void): () => void {
    this.#listeners.push(listener);
    return () => {
      this.#listeners = this.#listeners.filter((l) => l !== listener);
    };
  }

  #seen(uploads: readonly Upload[]): void {
    const done = uploads.filter((u) => u.state === 'done' && this.#states.has(u.id) && this.#states.get(u.id) !== 'done');
    this.#states = new Map(uploads.map((u) => [u.id, u.state])); // eslint-disable-line svelte/prefer-svelte-reactivity -- see #states
    if (done.length > 0) for (const listener of this.#listeners) listener(done);
  }

  cancel(uploadId: string): Promise<Result<unknown>> {
    return this.#act(uploadId, this.#bridge.invoke('registry.cancelUpload', { uploadId }));
  }
  retry(uploadId: string): Promise<Result<unknown>> {
    return this.#act(uploadId, this.#bridge.invoke('registry.retryUpload', { uploadId }));
  }
  remove(uploadId: string): Promise<Result<unknown>> {
    return this.#act(uploadId, this.#bridge.invoke('registry.removeUpload', { uploadId }));
  }

  async #act(uploadId: string, call: Promise<Result<unknown>>): Promise<Result<unknown>> {
    const result = await call;
    const rest = Object.fromEntries(Object.entries(this.rowErrors).filter(([id]) => id !== uploadId));
    this.rowErrors = result.ok ? rest : { ...rest, [uploadId]: result.error.message };
    // The event brings the queue as it is now; a removed upload leaves it at once here too.
    if (result.ok && result.value === null) this.#synced.set(this.items.filter((u) => u.id !== uploadId));
    return result;
  }
}

/** Which registry page is open. */
export type RegistryPage = { readonly kind: 'list' } | { readonly kind: 'item'; readonly itemId: string } | { readonly kind: 'module'; readonly moduleId: string };

/** The registry as the app shows it: which page is open, and each page's state. */
export class RegistryStore {
  readonly #bridge: FleetBridge;
  readonly #stage: StageFile;
  readonly list: RegistryList;
  readonly uploads: UploadsStore;
  /** null: the registry is closed (the fleet's panes show). */
  page = $state.raw<RegistryPage | null>(null);
  item = $state.raw<RegistryItemView | null>(null);
  module = $state.raw<ModuleView | null>(null);

  constructor(bridge: FleetBridge, options: { stage?: StageFile } = {}) {
    this.#bridge = bridge;
    this.#stage = options.stage ?? stageWithFetch;
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

  /** Open the browser; with `orgId` (an organization's "Modules & registry"), filtered to that organization. */
  open(orgId?: string): void {
    this.page = { kind: 'list' };
    this.item = null;
    this.module = null;
    if (orgId !== undefined && orgId !== this.list.filter.orgId) void this.list.load({ orgId });
    else if (!this.list.loaded || this.list.stale) void this.list.load();
  }

  openItem(itemId: string): RegistryItemView {
    this.list.selectedId = itemId;
    const view = new RegistryItemView(this.#bridge, itemId, this.list.items.find((i) => i.id === itemId) ?? null, this.#stage);
    this.item = view;
    this.module = null;
    this.page = { kind: 'item', itemId };
    void view.load();
    return view;
  }

  openModule(moduleId: string): ModuleView {
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
      this.open();
    }
    return result;
  }

  /** Files from main's open dialog (Electron); false when there is none (browser mode: the page's own picker). */
  async pickFiles(view: UploadingView): Promise<Result<boolean>> {
    const result = await this.#bridge.invoke('registry.pickFiles', {});
    if (!result.ok) return result;
    if (result.value === null) return { ok: true, value: false };
    view.addCandidates(result.value);
    return { ok: true, value: true };
  }
}
