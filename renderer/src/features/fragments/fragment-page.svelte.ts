/**
 * A fragment's page: its latest revision in the editor, a conflict-checked save (the three-way
 * merge when someone else saved meanwhile) weighed first by its blast radius, rename and
 * visibility, revisions shown read-only, tags set, moved (weighed too) and deleted, the history
 * with restore, the machines that use it, delete (refused while used), and drafts of edits that
 * could not reach the service. Every failure is kept to show, never thrown.
 */
import type { FleetBridge } from '../../../../common/bridge';
import { configTextProblem, type FragmentTag, type FragmentVisibility } from '../../../../common/config';
import type { FragmentDraft, FragmentHistoryEntry, FragmentUsage, FragmentView } from '../../../../common/fragments';
import type { BridgeError, Result } from '../../../../common/result';
import { ConfigDocument } from '../../lib/config/document.svelte';
import { ConflictResolution } from '../../lib/config/conflicts.svelte';
import { mergeConfigs } from '../../lib/config/merge-result';
import { Latest } from '../../lib/state/latest';
import type { Notices } from '../../lib/state/notices.svelte';
import { formatDateTime } from '../../lib/time';
import { BlastRadius } from './blast-radius.svelte';

/** How many history entries a page of the list reads. */
const HISTORY_PAGE = 20;

/** A conflict being merged by hand: the fragment as the service has it now, and the hunks to settle. */
export interface FragmentConflict {
  readonly theirs: FragmentView;
  readonly resolution: ConflictResolution;
}

/** Where a delete stands: checking who uses it, refused because machines do, or waiting for the user's yes. */
export type DeleteStep = 'checking' | 'refused' | 'confirm';

/** What the page needs of the app besides the bridge. */
export interface FragmentPageOptions {
  readonly notices?: Notices | null;
  /** The service cannot be reached now: a save is kept as a draft instead of tried. */
  readonly offline?: () => boolean;
}

export class FragmentPage {
  readonly fragmentId: string;
  readonly #bridge: FleetBridge;
  readonly #notices: Notices | null;
  readonly #offline: () => boolean;
  readonly #read = new Latest();
  readonly #versionRead = new Latest();
  readonly #historyRead = new Latest();
  readonly #usageRead = new Latest();
  #autosave: ReturnType<typeof setInterval> | null = null;
  /** The latest revision's config being edited. */
  readonly document = new ConfigDocument();
  /** The latest revision as last read or saved; null until the first answer. */
  view = $state.raw<FragmentView | null>(null);
  /** The conflict token of the text the edit started from (a merge moves it to the service's). */
  lastUpdated = $state<string | null>(null);
  loading = $state(true);
  error = $state.raw<BridgeError | null>(null);
  saving = $state(false);
  /** Why the last save failed (not a conflict: that opens the merge). */
  saveError = $state<string | null>(null);
  conflict = $state.raw<FragmentConflict | null>(null);
  /** What happened to the edit that the user should know (merged, restored, kept as a draft). */
  note = $state<string | null>(null);
  /** The draft the edit in the editor is (restored from the cache, or kept just now); null when none. */
  draft = $state.raw<FragmentDraft | null>(null);
  /** A change being weighed before it is made; null when none. */
  blast = $state.raw<BlastRadius | null>(null);

  /** The revision or tag shown read-only (`?version=`); null shows only the editor. */
  version = $state<string | null>(null);
  versionView = $state.raw<FragmentView | null>(null);
  versionLoading = $state(false);
  versionError = $state.raw<BridgeError | null>(null);
  /** The shown version's config, for a read-only editor. */
  readonly versionDocument = new ConfigDocument();

  history = $state.raw<readonly FragmentHistoryEntry[]>([]);
  historyToken = $state('');
  historyLoading = $state(false);
  historyError = $state.raw<BridgeError | null>(null);
  historyFromCache = $state(false);

  usage = $state.raw<FragmentUsage | null>(null);
  usageLoading = $state(false);
  usageError = $state.raw<BridgeError | null>(null);

  /** A tag being set, moved or deleted. */
  tagBusy = $state(false);
  tagError = $state<string | null>(null);

  deleteStep = $state<DeleteStep | null>(null);
  /** The machines using it, as the delete found them. */
  deleteUsage = $state.raw<FragmentUsage | null>(null);
  /** Why the delete cannot go on: the count could not be read, or the service refused. */
  deleteError = $state<string | null>(null);

  constructor(bridge: FleetBridge, fragmentId: string, options: FragmentPageOptions = {}) {
    this.#bridge = bridge;
    this.fragmentId = fragmentId;
    this.#notices = options.notices ?? null;
    this.#offline = options.offline ?? (() => false);
  }

  /** The fragment's name as last read, for sentences. */
  get name(): string {
    return this.view?.fragment.name ?? 'this fragment';
  }

  /** Read the latest revision, then its history and users; an edit under way is kept. A kept draft is restored into the editor. */
  async load(): Promise<void> {
    const read = this.#read.read();
    this.loading = true;
    const result = await this.#bridge.invoke('fragments.get', { fragmentId: this.fragmentId });
    if (!read.current) return;
    this.loading = false;
    if (!result.ok) {
      this.error = result.error;
      return;
    }
    this.error = null;
    this.view = result.value;
    if (!this.document.dirty) {
      const draft = result.value.draft;
      if (draft) this.#restoreDraft(draft);
      else {
        this.document.load(result.value.configJson);
        this.lastUpdated = result.value.fragment.lastUpdated;
      }
    }
    void this.loadHistory();
    void this.loadUsage();
    if (this.version !== null) void this.#loadVersion(this.version);
  }

  /** The draft's edit over its base: saving it is conflict-checked against what it started from. */
  #restoreDraft(draft: FragmentDraft): void {
    this.draft = draft;
    this.document.rebase(draft.baseConfigJson, draft.configJson);
    this.lastUpdated = draft.baseLastUpdated;
    this.note = `Your unsaved edit from ${formatDateTime(draft.savedAt)} is restored; save to send it, or discard it.`;
  }

  /** Show a revision or tag read-only (null: none). */
  showVersion(version: string | null): void {
    if (version === this.version) return;
    this.version = version;
    this.versionView = null;
    this.versionError = null;
    this.#versionRead.supersede();
    if (version !== null) void this.#loadVersion(version);
  }

  async #loadVersion(version: string): Promise<void> {
    const read = this.#versionRead.read();
    this.versionLoading = true;
    const result = await this.#bridge.invoke('fragments.get', { fragmentId: this.fragmentId, version });
    if (!read.current) return;
    this.versionLoading = false;
    if (!result.ok) {
      this.versionError = result.error;
      return;
    }
    this.versionError = null;
    this.versionView = result.value;
    this.versionDocument.load(result.value.configJson);
  }

  /** Why the edit cannot be saved as it is (errors in the text), or null. */
  #unsaveable(): string | null {
    // Checked now, not as of the editor's last pause: the text may have changed since.
    const errors = this.document.check().filter((p) => p.severity === 'error').length;
    return errors > 0 ? `Fix the ${errors === 1 ? 'error' : `${errors} errors`} marked in the config first.` : null;
  }

  /**
   * Save, weighed first: offline the edit is kept as a draft; else the machines it reaches are
   * counted and, when there are any, the change waits in `blast` for `confirmBlast()`. None: saved
   * straight on.
   */
  async requestSave(): Promise<void> {
    if (this.saving || this.lastUpdated === null || this.blast) return;
    const problem = this.#unsaveable();
    this.saveError = problem;
    if (problem) return;
    if (this.#offline()) {
      await this.keepDraft();
      return;
    }
    const blast = new BlastRadius(this.#bridge, this.fragmentId, { kind: 'save', configJson: this.document.text });
    this.blast = blast;
    await blast.load();
    if (this.blast !== blast) return;
    if (blast.error?.kind === 'offline') {
      this.blast = null;
      await this.keepDraft();
    } else if (!blast.error && blast.machineCount === 0 && blast.usage?.partCount === 0) {
      this.blast = null;
      await this.save();
    }
  }

  /** The user weighed the change and goes ahead. */
  async confirmBlast(): Promise<void> {
    const blast = this.blast;
    if (!blast) return;
    blast.close();
    this.blast = null;
    if (blast.change.kind === 'save') await this.save(blast.change.configJson);
    else await this.#setTag(blast.change.tag, blast.change.revision);
  }

  /** The user does not make the change after all. */
  cancelBlast(): void {
    this.blast?.close();
    this.blast = null;
  }

  /** Save the edit (`sent`, default the editor's text) checked against what it started from; someone else's save meanwhile is merged. */
  async save(sent = this.document.text): Promise<Result<FragmentView> | null> {
    if (this.saving || this.lastUpdated === null) return null;
    const problem = this.#unsaveable();
    this.saveError = problem;
    if (problem) return null;
    this.saving = true;
    this.note = null;
    try {
      const result = await this.#bridge.invoke('fragments.update', { fragmentId: this.fragmentId, lastUpdated: this.lastUpdated, configJson: sent });
      if (result.ok) {
        this.#read.supersede();
        this.view = result.value;
        this.lastUpdated = result.value.fragment.lastUpdated;
        this.document.markSaved(sent);
        // A save drops the fragment's draft (main does): the one shown is gone too.
        this.draft = null;
        this.#notices?.push('success', `Saved “${result.value.fragment.name}” as revision ${result.value.revision}.`);
        void this.loadHistory();
        void this.loadUsage();
      } else if (result.error.kind === 'conflict') await this.#merge(sent);
      else if (result.error.kind === 'offline') await this.keepDraft();
      else this.saveError = result.error.message;
      return result;
    } finally {
      this.saving = false;
    }
  }

  /** Someone saved since the edit began: merge theirs with it (base: what the edit started from). */
  async #merge(yours: string): Promise<void> {
    const theirs = await this.#bridge.invoke('fragments.get', { fragmentId: this.fragmentId });
    if (!theirs.ok) {
      this.saveError = `Someone else changed this fragment, and reading their version failed: ${theirs.error.message}`;
      return;
    }
    this.#read.supersede();
    const merge = await mergeConfigs(this.document.saved, yours, theirs.value.configJson);
    this.view = theirs.value;
    if (merge.text !== null) {
      this.document.rebase(theirs.value.configJson, merge.text);
      this.lastUpdated = theirs.value.fragment.lastUpdated;
      this.note = 'Someone else saved this fragment meanwhile. Their changes and yours did not overlap and are merged: review, then save again.';
      return;
    }
    this.conflict = { theirs: theirs.value, resolution: new ConflictResolution(merge) };
  }

  /** The user settled every conflict: the merged text is their edit of the service's version. */
  resolve(merged: string): void {
    const conflict = this.conflict;
    if (!conflict) return;
    this.document.rebase(conflict.theirs.configJson, merged);
    this.lastUpdated = conflict.theirs.fragment.lastUpdated;
    this.conflict = null;
    this.note = 'Merged with the version on the service: review, then save.';
  }

  /** Leave the merge: the edit stays as it was; saving it conflicts again. */
  cancelMerge(): void {
    this.conflict = null;
  }

  /** Keep the edit in the cache (it outlives the app) to save once the service is back. */
  async keepDraft(): Promise<Result<FragmentDraft> | null> {
    if (this.lastUpdated === null || !this.document.dirty) return null;
    const result = await this.#bridge.invoke('fragments.saveDraft', {
      fragmentId: this.fragmentId,
      configJson: this.document.text,
      baseConfigJson: this.document.saved,
      baseLastUpdated: this.lastUpdated,
    });
    if (result.ok) {
      this.draft = result.value;
      this.note = 'The service cannot be reached: your edit is kept as a draft on this computer. Save it when the service is back (it is offered then).';
    } else this.saveError = `The service cannot be reached, and keeping your edit as a draft failed too: ${result.error.message}`;
    return result;
  }

  /** Forget the draft and go back to the latest revision as last read. */
  async discardDraft(): Promise<void> {
    const result = await this.#bridge.invoke('fragments.dropDraft', { fragmentId: this.fragmentId });
    if (!result.ok) {
      this.saveError = `Couldn't discard the draft: ${result.error.message}`;
      return;
    }
    this.draft = null;
    this.note = null;
    const view = this.view;
    if (view) {
      this.document.load(view.configJson);
      this.lastUpdated = view.fragment.lastUpdated;
    }
  }

  /** A change of name or visibility (the config stays): a new revision, checked against the fragment as last read. */
  async #updateMeta(change: { name?: string; visibility?: FragmentVisibility }): Promise<Result<FragmentView>> {
    const view = this.view;
    if (!view) return { ok: false, error: { kind: 'internal', message: 'The fragment is not read yet.' } };
    const before = view.fragment.lastUpdated;
    const result = await this.#bridge.invoke('fragments.update', { fragmentId: this.fragmentId, lastUpdated: before, ...change });
    if (!result.ok) {
      if (result.error.kind === 'conflict') void this.load();
      return result;
    }
    this.#read.supersede();
    this.view = result.value;
    // The config did not change: an edit that started from the fragment as read goes on from the new token.
    if (this.lastUpdated === before) this.lastUpdated = result.value.fragment.lastUpdated;
    if (!this.document.dirty) this.document.load(result.value.configJson);
    void this.loadHistory();
    return result;
  }

  /** Rename the fragment. */
  rename(name: string): Promise<Result<FragmentView>> {
    return this.#updateMeta({ name });
  }

  /** Make it private or public. */
  setVisibility(visibility: FragmentVisibility): Promise<Result<FragmentView>> {
    return this.#updateMeta({ visibility });
  }

  /**
   * Set `tag` on `revision`: a new tag is set at once (nothing asks for it yet); moving an existing
   * one is weighed first in `blast`, since every config asking for it changes with it.
   */
  async requestTag(tag: string, revision: string): Promise<void> {
    const existing = this.view?.fragment.tags.find((t) => t.tag === tag);
    if (existing?.revision === revision) return;
    if (!existing) {
      await this.#setTag(tag, revision);
      return;
    }
    const blast = new BlastRadius(this.#bridge, this.fragmentId, { kind: 'tag', tag, revision });
    this.blast = blast;
    await blast.load();
    if (this.blast === blast && !blast.error && blast.machineCount === 0 && blast.usage?.partCount === 0) {
      this.blast = null;
      await this.#setTag(tag, revision);
    }
  }

  async #setTag(tag: string, revision: string): Promise<void> {
    this.tagBusy = true;
    this.tagError = null;
    const result = await this.#bridge.invoke('fragments.setTag', { fragmentId: this.fragmentId, tag, revision });
    this.tagBusy = false;
    if (!result.ok) {
      this.tagError = `Couldn't set “${tag}”: ${result.error.message}`;
      return;
    }
    this.#setTags(result.value.tags);
    this.#notices?.push('success', `“${tag}” now names revision ${revision} of “${this.name}”.`);
  }

  /** Delete a tag; the service refuses while anything asks for it, and says so (kept in `tagError`). */
  async deleteTag(tag: string): Promise<Result<unknown>> {
    this.tagBusy = true;
    this.tagError = null;
    const result = await this.#bridge.invoke('fragments.deleteTag', { fragmentId: this.fragmentId, tag });
    this.tagBusy = false;
    if (!result.ok) {
      this.tagError = `Couldn't delete “${tag}”: ${result.error.message}`;
      return result;
    }
    this.#setTags(result.value.tags);
    return result;
  }

  #setTags(tags: readonly FragmentTag[]): void {
    const view = this.view;
    if (view) this.view = { ...view, fragment: { ...view.fragment, tags } };
  }

  /** Read the history's first page again, or the next one (`more`). */
  async loadHistory(more = false): Promise<void> {
    const read = this.#historyRead.read();
    this.historyLoading = true;
    const result = await this.#bridge.invoke('fragments.history', { fragmentId: this.fragmentId, pageSize: HISTORY_PAGE, ...(more && this.historyToken ? { pageToken: this.historyToken } : {}) });
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

  /** The config `entry`'s revision made: the previous state of the entry just newer, or the latest for the newest. */
  after(entry: FragmentHistoryEntry): string {
    const at = this.history.indexOf(entry);
    const newer = at > 0 ? this.history[at - 1] : undefined;
    return newer?.previous ? newer.previous.configJson : (this.view?.configJson ?? '');
  }

  /** The config before `entry`'s revision: `{}` before the creation. */
  before(entry: FragmentHistoryEntry): string {
    return entry.previous?.configJson ?? '{}';
  }

  /** Put a revision's config in the editor as an edit (saved like any other: weighed, conflict-checked). */
  restore(entry: FragmentHistoryEntry): void {
    this.document.replace(this.after(entry));
    this.note = `The config of revision ${entry.revision} is in the editor: review, then save to make it the latest again.`;
  }

  /** Read who uses the fragment (the "Used by" list). */
  async loadUsage(): Promise<void> {
    const read = this.#usageRead.read();
    this.usageLoading = true;
    const result = await this.#bridge.invoke('fragments.usage', { fragmentId: this.fragmentId });
    if (!read.current) return;
    this.usageLoading = false;
    this.usageError = result.ok ? null : result.error;
    if (result.ok) this.usage = result.value;
  }

  /** Begin a delete: first who still uses it. Used: refused (with them listed); unused: the user confirms. */
  async startDelete(): Promise<void> {
    this.deleteStep = 'checking';
    this.deleteError = null;
    const result = await this.#bridge.invoke('fragments.usage', { fragmentId: this.fragmentId });
    if (this.deleteStep !== 'checking') return;
    if (!result.ok) {
      this.deleteStep = 'refused';
      this.deleteError = `Couldn't check which machines use it: ${result.error.message}`;
      return;
    }
    this.deleteUsage = result.value;
    this.usage = result.value;
    this.deleteStep = result.value.partCount > 0 || result.value.machineCount > 0 ? 'refused' : 'confirm';
  }

  /** Delete it (after the user confirmed). The service refuses while it is used: its message is kept and answered. */
  async delete(): Promise<Result<unknown>> {
    const result = await this.#bridge.invoke('fragments.delete', { fragmentId: this.fragmentId });
    if (!result.ok && result.error.kind === 'conflict') {
      this.deleteStep = 'refused';
      this.deleteError = result.error.message;
      void this.loadUsage();
    }
    if (result.ok) {
      this.deleteStep = null;
      // Nothing is left to save the edit to: leaving the page must not ask to keep it.
      this.document.load(this.document.text);
    }
    return result;
  }

  /** Close the delete's dialog or explanation. */
  cancelDelete(): void {
    this.deleteStep = null;
    this.deleteError = null;
  }

  /** Whether leaving would lose typing: the edit differs from the latest revision and from the draft kept of it. */
  get unkept(): boolean {
    return this.document.dirty && this.draft?.configJson !== this.document.text;
  }

  /** The page is left: offline, an unsaved edit is kept as a draft rather than lost. */
  async leaving(): Promise<void> {
    if (this.#offline() && this.unkept && configTextProblem(this.document.text) === undefined) await this.keepDraft();
  }

  /**
   * While the service cannot be reached, keep the edit as the draft every `everyMs` (when it
   * changed and is a config): quitting or a crash then loses at most that much of an offline edit.
   */
  keepWhileOffline(everyMs = 2_000): void {
    this.#autosave ??= setInterval(() => {
      if (this.#offline() && this.unkept && !this.saving && configTextProblem(this.document.text) === undefined) void this.keepDraft();
    }, everyMs);
  }

  /** Another page is shown: nothing of this one answers any more. */
  close(): void {
    if (this.#autosave !== null) clearInterval(this.#autosave);
    this.#autosave = null;
    this.#read.supersede();
    this.#versionRead.supersede();
    this.#historyRead.supersede();
    this.#usageRead.supersede();
    this.blast?.close();
  }
}
