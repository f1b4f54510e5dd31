/**
 * A config being edited against the service's copy (a part's config, a fragment's latest
 * revision): the text with the conflict token it started from, a conflict-checked save, the
 * three-way merge when someone else saved meanwhile, and the edit kept as a draft (in main's
 * cache: it outlives the app) while the service cannot be reached. What differs between the
 * things edited (the bridge channels, the sentences' noun) comes in as a small source; every
 * failure is kept to show, never thrown.
 */
import { configTextProblem } from '../../../../common/config';
import type { BridgeError, Result } from '../../../../common/result';
import { Latest } from '../state/latest';
import { formatDateTime } from '../time';
import { ConflictResolution } from './conflicts.svelte';
import { ConfigDocument } from './document.svelte';
import { mergeConfigs } from './merge-result';

/** An edit kept in the cache, as the bridge answers it. */
export interface KeptDraft {
  readonly configJson: string;
  /** The text the edit started from: the base of a three-way merge. */
  readonly baseConfigJson: string;
  /** The conflict token of that text: saving the draft is checked against it. */
  readonly baseLastUpdated: string;
  readonly savedAt: string;
}

/** What a version read from the service says of its config. */
export interface EditedVersion<D extends KeptDraft> {
  readonly configJson: string;
  readonly lastUpdated: string;
  /** The edit of it kept as a draft, or null. */
  readonly draft: D | null;
}

/** The bridge behind one edited config, and what the page hears of. */
export interface EditedConfigSource<T, D extends KeptDraft> {
  /** The thing edited, for sentences: "config", "fragment". */
  readonly what: string;
  /** Read the service's version now. */
  read(): Promise<Result<T>>;
  /** Save `configJson`, refused (`conflict`) unless the service's token is still `lastUpdated`. */
  save(configJson: string, lastUpdated: string): Promise<Result<T>>;
  /** Keep the edit as the draft. */
  keep(draft: Omit<KeptDraft, 'savedAt'>): Promise<Result<D>>;
  /** Give the draft up. */
  drop(): Promise<Result<unknown>>;
  /** The config text, its token and the kept draft of a version read or saved. */
  version(value: T): EditedVersion<D>;
  /** A save went through (a notice, the history read again). */
  saved?(value: T): void;
  /** A draft appeared, was saved or was dropped: a list of drafts reads again. */
  draftsChanged?(): void;
}

/** A conflict being merged by hand: the version on the service now, and the hunks to settle. */
export interface EditConflict<T> {
  readonly theirs: T;
  readonly resolution: ConflictResolution;
}

export class EditedConfig<T, D extends KeptDraft> {
  readonly #source: EditedConfigSource<T, D>;
  readonly #read = new Latest();
  /** The text being edited (the editor's document). */
  readonly document = new ConfigDocument();
  /** The version as last read or saved; null until the first answer. */
  current = $state.raw<T | null>(null);
  /** The conflict token of the text the edit started from (a merge moves it to the service's). */
  lastUpdated = $state<string | null>(null);
  loading = $state(true);
  error = $state.raw<BridgeError | null>(null);
  saving = $state(false);
  /** Why the last save failed (not a conflict: that opens the merge). */
  saveError = $state<string | null>(null);
  /** A merge that needs the user (overlapping changes); null when none. */
  conflict = $state.raw<EditConflict<T> | null>(null);
  /** What happened to the edit that the user should know (merged, restored, kept as a draft). */
  note = $state<string | null>(null);
  /** The edit kept in the cache, or null: what the editor shows was restored from it, or is kept in it now. */
  draft = $state.raw<D | null>(null);
  /** The text last kept as the draft, so an unchanged edit is not written again. */
  #keptText: string | null = null;
  #keeping: Promise<Result<D> | null> | null = null;
  #autosave: ReturnType<typeof setInterval> | null = null;

  constructor(source: EditedConfigSource<T, D>) {
    this.#source = source;
  }

  /** Read the service's version; an edit under way is kept, a kept draft is restored. Null when a newer read or a save superseded it. */
  async load(): Promise<Result<T> | null> {
    const read = this.#read.read();
    this.loading = true;
    const result = await this.#source.read();
    if (!read.current) return null;
    this.loading = false;
    if (!result.ok) {
      this.error = result.error;
      return result;
    }
    this.error = null;
    this.current = result.value;
    if (!this.document.dirty) {
      const version = this.#source.version(result.value);
      if (version.draft) this.#restoreDraft(version.draft);
      else {
        this.document.load(version.configJson);
        this.lastUpdated = version.lastUpdated;
      }
    }
    return result;
  }

  /**
   * An edit kept while the service could not be reached: shown as the edit of the text it started
   * from, with that text's conflict token, so saving it is checked (and merged) against whatever
   * was saved since.
   */
  #restoreDraft(draft: D): void {
    this.document.load(draft.baseConfigJson);
    this.document.replace(draft.configJson);
    this.lastUpdated = draft.baseLastUpdated;
    this.draft = draft;
    this.#keptText = draft.configJson;
    this.note = `Your edit of ${formatDateTime(draft.savedAt)}, kept as a draft because it could not be saved then, is in the editor. Save it (it is checked against changes made since) or discard it.`;
  }

  /**
   * The service's version changed but not its config (a rename): an edit that started from the
   * version as read goes on from the new token; no edit shows the new version.
   */
  changed(value: T): void {
    this.#read.supersede();
    const before = this.current ? this.#source.version(this.current).lastUpdated : null;
    const version = this.#source.version(value);
    this.current = value;
    if (this.lastUpdated === before) this.lastUpdated = version.lastUpdated;
    if (!this.document.dirty) this.document.load(version.configJson);
  }

  /**
   * Keep the edit as the draft (in the cache: it survives a restart), so an edit made offline is
   * never lost. Null when there is nothing to keep: no edit, the same edit kept already, or a
   * text that is no config yet (mid-typing: the draft keeps the last one that was).
   */
  async keepDraft(): Promise<Result<D> | null> {
    while (this.#keeping) await this.#keeping;
    const text = this.document.text;
    const baseLastUpdated = this.lastUpdated;
    if (!this.document.dirty || baseLastUpdated === null || text === this.#keptText || configTextProblem(text) !== undefined) return null;
    const keep = async (): Promise<Result<D>> => {
      const result = await this.#source.keep({ configJson: text, baseConfigJson: this.document.saved, baseLastUpdated });
      if (result.ok) {
        const first = this.draft === null;
        this.draft = result.value;
        this.#keptText = text;
        if (first) this.#source.draftsChanged?.();
      } else this.saveError = `Couldn't keep your edit as a draft: ${result.error.message}`;
      return result;
    };
    this.#keeping = keep();
    try {
      return await this.#keeping;
    } finally {
      this.#keeping = null;
    }
  }

  /** The service cannot be reached: keep the edit as the draft, and say so. */
  async keepOffline(): Promise<void> {
    this.saveError = null;
    await this.keepDraft();
    if (this.draft && this.document.text === this.#keptText) {
      this.note = `The service cannot be reached, so the ${this.#source.what} was not saved. Your edit is kept as a draft on this computer (it survives a restart): save it once the service is back.`;
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
      if (offline() && this.unkept && !this.saving) void this.keepDraft();
    }, everyMs);
  }

  /** Give the draft up: the editor shows the version as last read again. */
  async discardDraft(): Promise<void> {
    const result = await this.#source.drop();
    if (!result.ok) {
      this.saveError = `Couldn't discard the draft: ${result.error.message}`;
      return;
    }
    this.draft = null;
    this.#keptText = null;
    this.note = null;
    this.#source.draftsChanged?.();
    if (this.current) {
      const version = this.#source.version(this.current);
      this.document.load(version.configJson);
      this.lastUpdated = version.lastUpdated;
    }
  }

  /** Why the edit cannot be saved as it is (errors in the text), or null. */
  unsaveable(): string | null {
    // Checked now, not as of the editor's last pause: the text may have changed since.
    const errors = this.document.check().filter((p) => p.severity === 'error').length;
    return errors > 0 ? `Fix the ${errors === 1 ? 'error' : `${errors} errors`} marked in the config first.` : null;
  }

  /**
   * Save the edit (`sent`, default the editor's text) checked against what it started from:
   * someone else's save meanwhile is merged, and an unreachable service keeps it as a draft.
   * Null when nothing was sent.
   */
  async save(sent = this.document.text): Promise<Result<T> | null> {
    if (this.saving || this.lastUpdated === null) return null;
    const problem = this.unsaveable();
    this.saveError = problem;
    if (problem) return null;
    this.saving = true;
    this.note = null;
    try {
      const result = await this.#source.save(sent, this.lastUpdated);
      if (result.ok) {
        this.#read.supersede();
        // Main drops a saved edit's draft.
        const hadDraft = this.draft !== null;
        this.draft = null;
        this.#keptText = null;
        this.current = result.value;
        this.lastUpdated = this.#source.version(result.value).lastUpdated;
        this.document.markSaved(sent);
        if (hadDraft) this.#source.draftsChanged?.();
        this.#source.saved?.(result.value);
      } else if (result.error.kind === 'conflict') await this.#merge(sent);
      else if (result.error.kind === 'offline') await this.keepOffline();
      else this.saveError = result.error.message;
      return result;
    } finally {
      this.saving = false;
    }
  }

  /** Someone saved since the edit began: merge theirs with it (base: what the edit started from). */
  async #merge(yours: string): Promise<void> {
    const theirs = await this.#source.read();
    if (!theirs.ok) {
      this.saveError = `Someone else changed this ${this.#source.what}, and reading their version failed: ${theirs.error.message}`;
      return;
    }
    this.#read.supersede();
    const version = this.#source.version(theirs.value);
    const merge = await mergeConfigs(this.document.saved, yours, version.configJson);
    this.current = theirs.value;
    if (merge.text !== null) {
      this.document.rebase(version.configJson, merge.text);
      this.lastUpdated = version.lastUpdated;
      this.note = `Someone else saved this ${this.#source.what} meanwhile. Their changes and yours did not overlap and are merged: review, then save again.`;
      return;
    }
    this.conflict = { theirs: theirs.value, resolution: new ConflictResolution(merge) };
  }

  /** The user settled every conflict: the merged text is their edit of the service's version. */
  resolve(merged: string): void {
    const conflict = this.conflict;
    if (!conflict) return;
    const version = this.#source.version(conflict.theirs);
    this.document.rebase(version.configJson, merged);
    this.lastUpdated = version.lastUpdated;
    this.conflict = null;
    this.note = 'Merged with the version on the service: review, then save.';
  }

  /** Leave the merge: the edit stays as it was; saving it conflicts again. */
  cancelMerge(): void {
    this.conflict = null;
  }

  /** Put an older config in the editor as an edit (saved like any other, conflict-checked); `note` says which. */
  restore(configJson: string, note: string): void {
    this.document.replace(configJson);
    this.note = note;
  }

  /** Another page is shown: nothing of this one answers any more. */
  close(): void {
    if (this.#autosave !== null) clearInterval(this.#autosave);
    this.#autosave = null;
    this.#read.supersede();
  }
}
