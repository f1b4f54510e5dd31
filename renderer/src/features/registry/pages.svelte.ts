/**
 * The pages that take uploads: an item's page (its documentation and, for a training script or an
 * ML model, its versions) and a module's page (its versions and files), each with the files being
 * readied for upload. Page loads are "the newest read wins" (`Latest`).
 */
import type { FleetBridge } from '../../../../common/bridge';
import type { Module, ModuleApp, ModuleModel, ModuleVersion, RegistryItem, Upload, UploadCandidate, UploadSource, Visibility } from '../../../../common/registry';
import type { BridgeError, Result } from '../../../../common/result';
import { Latest } from '../../lib/state/latest';
import type { draftErrors } from './draft-checks';
import { type StageFile, stageWithFetch, UPLOAD_TYPES, type UploadDraft } from './staging';

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
  /**
   * The draft checks (the schemas main applies, zod), loaded with the first files given: this state
   * is on the window's boot path, the checks are not. Until they are in, no draft can be queued.
   */
  #check = $state.raw<typeof draftErrors | null>(null);
  /** Why the checks could not be loaded (tried again with the next files). */
  #checkError = $state.raw<string | null>(null);
  #checkLoading: Promise<void> | null = null;

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
    if (this.#check) return this.#check(draft, this.drafts, this.uploadedVersions);
    if (this.#checkError) return { version: `Can't be checked: ${this.#checkError}. Check that the app is still running, then remove this file and add it again.`, platform: null };
    return { version: null, platform: null };
  }

  /** Load the draft checks once (again after a failure). */
  #loadChecks(): Promise<void> {
    if (this.#check) return Promise.resolve();
    this.#checkLoading ??= import('./draft-checks').then(
      (module) => {
        this.#check = module.draftErrors;
        this.#checkError = null;
      },
      (e: unknown) => {
        this.#checkError = `the checks could not be loaded (${e instanceof Error ? e.message : String(e)})`;
        this.#checkLoading = null;
      },
    );
    return this.#checkLoading;
  }

  /**
   * Files dropped or chosen: each is shown at once as being prepared, handed over (its path in
   * Electron, staged in browser mode), inspected by main, then offered with the version and
   * platform its meta.json (or name) proposes.
   */
  async addFiles(files: readonly File[], pathForFile: (file: File) => string | null): Promise<void> {
    if (files.length === 0) return;
    const checks = this.#loadChecks();
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
    await checks;
    result.value.forEach((candidate, i) => {
      const key = sources[i]?.key;
      if (key !== undefined) this.#patch(key, this.#fromCandidate(candidate));
    });
  }

  /** Candidates main's open dialog chose (Electron). */
  async addCandidates(candidates: readonly UploadCandidate[]): Promise<void> {
    await this.#loadChecks();
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
      if (d.state !== 'ready' || d.problem !== null || d.source === null || this.#check === null) return false;
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
