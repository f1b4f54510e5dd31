/**
 * A part's config page: the config as the service keeps it (text verbatim, key order included),
 * the user's edit of it, a conflict-checked save, the three-way merge when someone else saved
 * meanwhile, and the part's history with restore. Every failure is kept to show, never thrown.
 */
import type { FleetBridge } from '../../../../common/bridge';
import { configTextProblem, type ConfigDraft, type PartConfig, type PartHistoryEntry } from '../../../../common/config';
import type { BridgeError, Result } from '../../../../common/result';
import { ConfigDocument } from '../../lib/config/document.svelte';
import { ConflictResolution } from '../../lib/config/conflicts.svelte';
import { mergeConfigs } from '../../lib/config/merge-result';
import type { Notices } from '../../lib/state/notices.svelte';
import { Latest } from '../../lib/state/latest';
import { formatDateTime } from '../../lib/time';


/** How many history entries a page of the list reads. */
const HISTORY_PAGE = 20;

/** A conflict being merged by hand: what the service has now, and the hunks to settle. */
export interface ConfigConflict {
  readonly theirs: PartConfig;
  readonly resolution: ConflictResolution;
}

export class PartConfigPage {
  readonly partId: string;
  readonly #bridge: FleetBridge;
  readonly #notices: Notices | null;
  readonly #read = new Latest();
  readonly #historyRead = new Latest();
  /** The text being edited (the editor's document). */
  readonly document = new ConfigDocument();
  /** The config as last read or saved; null until the first answer. */
  config = $state.raw<PartConfig | null>(null);
  /** The conflict token of the text the edit started from (a merge moves it to the service's). */
  lastUpdated = $state<string | null>(null);
  loading = $state(true);
  error = $state.raw<BridgeError | null>(null);
  saving = $state(false);
  /** Why the last save failed (not a conflict: that opens the merge). */
  saveError = $state<string | null>(null);
  /** A merge that needs the user (overlapping changes); null when none. */
  conflict = $state.raw<ConfigConflict | null>(null);
  /** What happened to the edit that the user should know (merged by itself, restored from history). */
  note = $state<string | null>(null);
  history = $state.raw<readonly PartHistoryEntry[]>([]);
  historyToken = $state('');
  historyLoading = $state(false);
  historyError = $state.raw<BridgeError | null>(null);
  historyFromCache = $state(false);
  /** The edit kept in the cache for this part (it outlives the app), or null: what the editor shows was restored from it, or is kept in it now. */
  draft = $state.raw<ConfigDraft | null>(null);
  /** The text last kept as the draft, so an unchanged edit is not written again. */
  #keptText: string | null = null;
  #keeping: Promise<void> | null = null;
  #autosave: ReturnType<typeof setInterval> | null = null;

  readonly #draftsChanged: () => void;

  /** `draftsChanged` hears of every draft kept, saved or discarded here (the drafts list reads again). */
  constructor(bridge: FleetBridge, partId: string, notices: Notices | null = null, draftsChanged: () => void = () => undefined) {
    this.#bridge = bridge;
    this.#draftsChanged = draftsChanged;
    this.partId = partId;
    this.#notices = notices;
  }

  /** Read the config (and the first page of history); an edit under way is kept. */
  async load(): Promise<void> {
    const read = this.#read.read();
    this.loading = true;
    const result = await this.#bridge.invoke('config.part', { partId: this.partId });
    if (!read.current) return;
    this.loading = false;
    if (!result.ok) {
      this.error = result.error;
      return;
    }
    this.error = null;
    this.config = result.value;
    if (!this.document.dirty) {
      const draft = result.value.draft;
      if (draft) this.#restoreDraft(draft);
      else {
        this.document.load(result.value.configJson);
        this.lastUpdated = result.value.lastUpdated;
      }
    }
    void this.loadHistory();
  }

  /**
   * An edit kept while the service could not be reached: shown as the edit of the text it started
   * from, with that text's conflict token, so saving it is checked (and merged) against whatever was
   * saved since.
   */
  #restoreDraft(draft: ConfigDraft): void {
    this.document.load(draft.baseConfigJson);
    this.document.replace(draft.configJson);
    this.lastUpdated = draft.baseLastUpdated;
    this.draft = draft;
    this.#keptText = draft.configJson;
    this.note = `Your edit of ${formatDateTime(draft.savedAt)}, kept as a draft because it could not be saved then, is in the editor. Save it (it is checked against changes made since) or discard it.`;
  }

  /**
   * Keep the edit as the part's draft (in the cache: it survives a restart). Done while the service
   * cannot be reached, so an edit made offline is never lost; an unchanged edit is not kept again.
   */
  async keepDraft(): Promise<void> {
    if (this.#keeping) await this.#keeping;
    const text = this.document.text;
    const baseLastUpdated = this.lastUpdated;
    if (!this.document.dirty || baseLastUpdated === null || text === this.#keptText) return;
    // A text that is no config yet (mid-typing) cannot be kept: the draft keeps the last one that was.
    if (configTextProblem(text) !== undefined) return;
    const keep = async () => {
      const result = await this.#bridge.invoke('config.saveDraft', { partId: this.partId, configJson: text, baseConfigJson: this.document.saved, baseLastUpdated });
      if (result.ok) {
        const first = this.draft === null;
        this.draft = result.value;
        this.#keptText = text;
        if (first) this.#draftsChanged();
      } else this.#notices?.push('error', `Couldn't keep your edit as a draft: ${result.error.message}`);
    };
    this.#keeping = keep();
    try {
      await this.#keeping;
    } finally {
      this.#keeping = null;
    }
  }

  /** Whether leaving would lose typing: the edit differs from what the service has and from the draft kept of it. */
  get unkept(): boolean {
    return this.document.dirty && !(this.draft !== null && this.document.text === this.#keptText);
  }

  /**
   * While `offline()` says the service cannot be reached, keep the edit as the draft every
   * `everyMs`: quitting, a crash or a power cut then loses at most that much of an offline edit.
   */
  keepWhileOffline(offline: () => boolean, everyMs = 2_000): void {
    this.#autosave ??= setInterval(() => {
      if (offline() && this.document.dirty) void this.keepDraft();
    }, everyMs);
  }

  /** Give the draft up: the editor shows the config as last read again. */
  async discardDraft(): Promise<void> {
    const result = await this.#bridge.invoke('config.dropDraft', { partId: this.partId });
    if (!result.ok) {
      this.saveError = `Couldn't discard the draft: ${result.error.message}`;
      return;
    }
    this.draft = null;
    this.#keptText = null;
    this.note = null;
    this.#draftsChanged();
    if (this.config) {
      this.document.load(this.config.configJson);
      this.lastUpdated = this.config.lastUpdated;
    }
  }

  /** Save the edit, checked against what it started from; someone else's save meanwhile is merged. */
  async save(): Promise<Result<PartConfig> | null> {
    if (this.saving || this.lastUpdated === null) return null;
    // Checked now, not as of the editor's last pause: the text may have changed since.
    const errors = this.document.check().filter((p) => p.severity === 'error').length;
    if (errors > 0) {
      this.saveError = `Fix the ${errors === 1 ? 'error' : `${errors} errors`} marked in the config first.`;
      return null;
    }
    const sent = this.document.text;
    this.saving = true;
    this.saveError = null;
    this.note = null;
    try {
      const result = await this.#bridge.invoke('config.save', { partId: this.partId, configJson: sent, lastUpdated: this.lastUpdated });
      if (result.ok) {
        this.#read.supersede();
        // Main drops a saved part's draft.
        if (this.draft !== null) this.#draftsChanged();
        this.draft = null;
        this.#keptText = null;
        this.config = result.value;
        this.lastUpdated = result.value.lastUpdated;
        this.document.markSaved(sent);
        this.#notices?.push('success', `Saved the config of “${result.value.name}”.`);
        void this.loadHistory();
      } else if (result.error.kind === 'conflict') await this.#merge(sent);
      else if (result.error.kind === 'offline') {
        await this.keepDraft();
        this.saveError = this.draft
          ? 'The service cannot be reached, so the config was not saved. Your edit is kept as a draft on this computer (it survives a restart): save it once the service is back.'
          : result.error.message;
      } else this.saveError = result.error.message;
      return result;
    } finally {
      this.saving = false;
    }
  }

  /** Someone saved since the edit began: merge theirs with it (base: what the edit started from). */
  async #merge(yours: string): Promise<void> {
    const theirs = await this.#bridge.invoke('config.part', { partId: this.partId });
    if (!theirs.ok) {
      this.saveError = `Someone else changed this config, and reading their version failed: ${theirs.error.message}`;
      return;
    }
    this.#read.supersede();
    const merge = await mergeConfigs(this.document.saved, yours, theirs.value.configJson);
    this.config = theirs.value;
    if (merge.text !== null) {
      this.document.rebase(theirs.value.configJson, merge.text);
      this.lastUpdated = theirs.value.lastUpdated;
      this.note = 'Someone else saved this config meanwhile. Their changes and yours did not overlap and are merged: review, then save again.';
      return;
    }
    this.conflict = { theirs: theirs.value, resolution: new ConflictResolution(merge) };
  }

  /** The user settled every conflict: the merged text is their edit of the service's version. */
  resolve(merged: string): void {
    const conflict = this.conflict;
    if (!conflict) return;
    this.document.rebase(conflict.theirs.configJson, merged);
    this.lastUpdated = conflict.theirs.lastUpdated;
    this.conflict = null;
    this.note = 'Merged with the version on the service: review, then save.';
  }

  /** Leave the merge: the edit stays as it was; saving it conflicts again. */
  cancelMerge(): void {
    this.conflict = null;
  }

  /** Read the history's first page again, or the next one (`more`). */
  async loadHistory(more = false): Promise<void> {
    const read = this.#historyRead.read();
    this.historyLoading = true;
    const result = await this.#bridge.invoke('config.history', { partId: this.partId, pageSize: HISTORY_PAGE, ...(more && this.historyToken ? { pageToken: this.historyToken } : {}) });
    if (!read.current) return;
    this.historyLoading = false;
    if (!result.ok) {
      this.historyError = result.error;
      return;
    }
    this.historyError = null;
    this.history = more ? [...this.history, ...result.value.entries] : result.value.entries;
    this.historyToken = result.value.nextPageToken;
    this.historyFromCache = result.value.fromCache;
  }

  /**
   * The config after `entry`'s change: the previous state of the entry just newer than it, or the
   * config now for the newest. Entries that changed no config (a flag) show the same text.
   */
  after(entry: PartHistoryEntry): string {
    const at = this.history.indexOf(entry);
    const newer = at > 0 ? this.history[at - 1] : undefined;
    return newer ? newer.previous.configJson : (this.config?.configJson ?? '');
  }

  /** Put an older config in the editor as an edit (saved like any other, conflict-checked). */
  restore(entry: PartHistoryEntry): void {
    this.document.replace(entry.previous.configJson);
    this.note = `The config from before the change of ${entry.when ? formatDateTime(entry.when) : 'that entry'} is in the editor: review, then save to restore it.`;
  }

  /** Another page is shown: nothing of this one answers any more. */
  close(): void {
    if (this.#autosave !== null) clearInterval(this.#autosave);
    this.#autosave = null;
    this.#read.supersede();
    this.#historyRead.supersede();
  }
}
