/**
 * A fragment's page: its latest revision in the editor, a conflict-checked save (the three-way
 * merge when someone else saved meanwhile) weighed first by its blast radius, rename and
 * visibility, revisions shown read-only, tags set, moved (weighed too) and deleted, the history
 * with restore, the machines that use it, delete (refused while used), and drafts of edits that
 * could not reach the service. Every failure is kept to show, never thrown.
 */
import type { FleetBridge } from '../../../../common/bridge';
import type { FragmentTag, FragmentVisibility } from '../../../../common/config';
import type { FragmentDraft, FragmentHistoryEntry, FragmentUsage, FragmentView } from '../../../../common/fragments';
import type { BridgeError, Result } from '../../../../common/result';
import { ConfigDocument } from '../../lib/config/document.svelte';
import { EditedConfig } from '../../lib/config/edited-config.svelte';
import { PagedHistory } from '../../lib/config/paged-history.svelte';
import { Latest } from '../../lib/state/latest';
import type { Notices } from '../../lib/state/notices.svelte';
import { BlastRadius } from './blast-radius.svelte';

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
  readonly #versionRead = new Latest();
  readonly #usageRead = new Latest();
  /** The edit of the latest revision's config, its save, merge and draft. */
  readonly edit: EditedConfig<FragmentView, FragmentDraft>;
  /** The fragment's revisions, newest first. */
  readonly history: PagedHistory<FragmentHistoryEntry>;
  /** A change being weighed before it is made; null when none. */
  blast = $state.raw<BlastRadius | null>(null);

  /** The revision or tag shown read-only (`?version=`); null shows only the editor. */
  version = $state<string | null>(null);
  versionView = $state.raw<FragmentView | null>(null);
  versionLoading = $state(false);
  versionError = $state.raw<BridgeError | null>(null);
  /** The shown version's config, for a read-only editor. */
  readonly versionDocument = new ConfigDocument();

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
    this.edit = new EditedConfig({
      what: 'fragment',
      read: () => bridge.invoke('fragments.get', { fragmentId }),
      save: (configJson, lastUpdated) => bridge.invoke('fragments.update', { fragmentId, lastUpdated, configJson }),
      keep: (draft) => bridge.invoke('fragments.saveDraft', { fragmentId, ...draft }),
      drop: () => bridge.invoke('fragments.dropDraft', { fragmentId }),
      version: (view) => ({ configJson: view.configJson, lastUpdated: view.fragment.lastUpdated, draft: view.draft }),
      saved: (view) => {
        this.#notices?.push('success', `Saved “${view.fragment.name}” as revision ${view.revision}.`);
        void this.loadHistory();
        void this.loadUsage();
      },
    });
    this.history = new PagedHistory(
      (pageSize, pageToken) => bridge.invoke('fragments.history', { fragmentId, pageSize, ...(pageToken ? { pageToken } : {}) }),
      (entry) => entry.previous?.configJson ?? null,
    );
  }

  /** The latest revision's config being edited. */
  get document(): ConfigDocument {
    return this.edit.document;
  }

  /** The latest revision as last read or saved; null until the first answer. */
  get view(): FragmentView | null {
    return this.edit.current;
  }

  /** The fragment's name as last read, for sentences. */
  get name(): string {
    return this.view?.fragment.name ?? 'this fragment';
  }

  /** Read the latest revision, then its history and users; an edit under way is kept. A kept draft is restored into the editor. */
  async load(): Promise<void> {
    const result = await this.edit.load();
    if (!result?.ok) return;
    void this.loadHistory();
    void this.loadUsage();
    if (this.version !== null) void this.#loadVersion(this.version);
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

  /**
   * Save, weighed first: offline the edit is kept as a draft; else the machines it reaches are
   * counted and, when there are any, the change waits in `blast` for `confirmBlast()`. None: saved
   * straight on.
   */
  async requestSave(): Promise<void> {
    if (this.edit.saving || this.edit.lastUpdated === null || this.blast) return;
    const problem = this.edit.unsaveable();
    this.edit.saveError = problem;
    if (problem) return;
    if (this.#offline()) {
      await this.edit.keepOffline();
      return;
    }
    const blast = new BlastRadius(this.#bridge, this.fragmentId, { kind: 'save', configJson: this.document.text });
    this.blast = blast;
    await blast.load();
    if (this.blast !== blast) return;
    if (blast.error?.kind === 'offline') {
      this.blast = null;
      await this.edit.keepOffline();
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
  save(sent?: string): Promise<Result<FragmentView> | null> {
    return this.edit.save(sent);
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
    this.edit.changed(result.value);
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
    if (view) this.edit.current = { ...view, fragment: { ...view.fragment, tags } };
  }

  /** Read the history's first page again, or the next one (`more`). */
  loadHistory(more = false): Promise<void> {
    return this.history.load(more);
  }

  /** The config `entry`'s revision made: the previous state of the entry just newer, or the latest for the newest. */
  after(entry: FragmentHistoryEntry): string {
    return this.history.after(entry, this.view?.configJson ?? '');
  }

  /** The config before `entry`'s revision: `{}` before the creation. */
  before(entry: FragmentHistoryEntry): string {
    return entry.previous?.configJson ?? '{}';
  }

  /** Put a revision's config in the editor as an edit (saved like any other: weighed, conflict-checked). */
  restore(entry: FragmentHistoryEntry): void {
    this.edit.restore(this.after(entry), `The config of revision ${entry.revision} is in the editor: review, then save to make it the latest again.`);
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

  /** The page is left: offline, an unsaved edit is kept as a draft rather than lost. */
  async leaving(): Promise<void> {
    if (this.#offline() && this.edit.unkept) await this.edit.keepDraft();
  }

  /** Another page is shown: nothing of this one answers any more. */
  close(): void {
    this.edit.close();
    this.history.close();
    this.#versionRead.supersede();
    this.#usageRead.supersede();
    this.blast?.close();
  }
}
