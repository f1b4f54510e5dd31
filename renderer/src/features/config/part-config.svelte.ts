/**
 * A part's config page: the config as the service keeps it (text verbatim, key order included),
 * the user's edit of it (the kernel's EditedConfig: conflict-checked save, three-way merge,
 * drafts kept offline), and the part's history with restore.
 */
import type { FleetBridge } from '../../../../common/bridge';
import type { ConfigDraft, PartConfig, PartHistoryEntry } from '../../../../common/config';
import type { Result } from '../../../../common/result';
import { EditedConfig } from '../../lib/config/edited-config.svelte';
import { PagedHistory } from '../../lib/config/paged-history.svelte';
import type { Notices } from '../../lib/state/notices.svelte';
import { formatDateTime } from '../../lib/time';

export class PartConfigPage {
  readonly partId: string;
  /** The edit of the part's config, its save, merge and draft. */
  readonly edit: EditedConfig<PartConfig, ConfigDraft>;
  /** The part's changes, newest first. */
  readonly history: PagedHistory<PartHistoryEntry>;

  /** `draftsChanged` hears of every draft kept, saved or discarded here (the drafts list reads again). */
  constructor(bridge: FleetBridge, partId: string, notices: Notices | null = null, draftsChanged: () => void = () => undefined) {
    this.partId = partId;
    this.edit = new EditedConfig({
      what: 'config',
      read: () => bridge.invoke('config.part', { partId }),
      save: (configJson, lastUpdated) => bridge.invoke('config.save', { partId, configJson, lastUpdated }),
      keep: (draft) => bridge.invoke('config.saveDraft', { partId, ...draft }),
      drop: () => bridge.invoke('config.dropDraft', { partId }),
      version: (config) => config,
      saved: (config) => {
        notices?.push('success', `Saved the config of “${config.name}”.`);
        void this.history.load();
      },
      draftsChanged,
    });
    this.history = new PagedHistory(
      (pageSize, pageToken) => bridge.invoke('config.history', { partId, pageSize, ...(pageToken ? { pageToken } : {}) }),
      (entry) => entry.previous.configJson,
    );
  }

  /** The text being edited (the editor's document). */
  get document() {
    return this.edit.document;
  }

  /** The config as last read or saved; null until the first answer. */
  get config(): PartConfig | null {
    return this.edit.current;
  }

  /** Read the config (and the first page of history); an edit under way is kept. */
  async load(): Promise<void> {
    const result = await this.edit.load();
    if (result?.ok) void this.history.load();
  }

  /** Save the edit, checked against what it started from; someone else's save meanwhile is merged. */
  save(): Promise<Result<PartConfig> | null> {
    return this.edit.save();
  }

  /**
   * The config after `entry`'s change: the previous state of the entry just newer than it, or the
   * config now for the newest. Entries that changed no config (a flag) show the same text.
   */
  after(entry: PartHistoryEntry): string {
    return this.history.after(entry, this.config?.configJson ?? '');
  }

  /** Put an older config in the editor as an edit (saved like any other, conflict-checked). */
  restore(entry: PartHistoryEntry): void {
    this.edit.restore(entry.previous.configJson, `The config from before the change of ${entry.when ? formatDateTime(entry.when) : 'that entry'} is in the editor: review, then save to restore it.`);
  }

  /** Another page is shown: nothing of this one answers any more. */
  close(): void {
    this.edit.close();
    this.history.close();
  }
}
