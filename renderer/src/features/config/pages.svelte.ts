import type { ConfigDraft } from '../../../../common/config';
import type { BridgeError } from '../../../../common/result';
import type { ConfigChoices } from '../../lib/config/completion';
import type { NodeRef } from '../../lib/fleet/fleet-index';
import { param, type RouteMatch } from '../../lib/router/router.svelte';
import type { Shell } from '../../lib/shell/feature';
import { Latest } from '../../lib/state/latest';
import type { PartConfigPage } from './part-config.svelte';
import { partConfigPath } from './routes';
import { loadChoices } from './choices-source';
import type { EffectiveConfigView } from './effective.svelte';

/** The config page the router shows (one at a time), what completion offers in it, and the profile's drafts. */
export class ConfigPages {
  readonly #shell: Shell;
  readonly #draftsRead = new Latest();
  page = $state.raw<PartConfigPage | null>(null);
  ref = $state.raw<(NodeRef & { kind: 'part' }) | null>(null);
  /** Module and fragment ids offered by completion (filled as the registry and fragments become readable here). */
  choices = $state.raw<ConfigChoices>({ modules: [], fragments: [] });
  /** The drafts page is shown. */
  showingDrafts = $state(false);
  /** Every part config draft of the active profile, most recently kept first: edits waiting to be saved. */
  drafts = $state.raw<readonly ConfigDraft[]>([]);
  draftsError = $state.raw<BridgeError | null>(null);
  /** The effective config shown beside the editor (its route), or null. */
  effective = $state.raw<EffectiveConfigView | null>(null);
  /** The organization the choices were last read for (read again on entering another's part). */
  #choicesOrg: string | null = null;
  /** Set while the page switches between the own and the effective view: the edit stays, nothing to confirm. */
  #switching = false;

  constructor(shell: Shell) {
    this.#shell = shell;
  }

  /**
   * Open the part's config page. Its state (and with it the config kit's document model: the
   * validator, the JSON parser, the schema) is imported here, on the first visit, not at boot;
   * `signal` says another route was entered meanwhile.
   */
  async enterPart(match: RouteMatch, signal?: AbortSignal): Promise<void> {
    this.showingDrafts = false;
    const orgId = param(match, 'orgId');
    const id = param(match, 'id');
    if (this.#choicesOrg !== orgId) {
      this.#choicesOrg = orgId;
      void loadChoices(this.#shell.bridge, orgId, this.#shell.fleet.orgs).then((choices) => {
        if (choices && this.#choicesOrg === orgId) this.choices = choices;
      });
    }
    if (this.page?.partId === id) return;
    this.#closePage();
    this.ref = { kind: 'part', orgId, id };
    const { PartConfigPage } = await import('./part-config.svelte');
    // Entered again meanwhile (own and effective view of the same part), or left: the page is that entry's.
    if (signal?.aborted || this.ref?.id !== id || this.page?.partId === id) return;
    const page = new PartConfigPage(this.#shell.bridge, id, this.#shell.notices, () => void this.loadDrafts());
    this.page = page;
    page.edit.keepWhileOffline(() => this.#shell.offline);
    void page.load();
  }

  enterDrafts(): void {
    this.#closePage();
    this.showingDrafts = true;
    // Each draft's page address needs its part's organization: from the trees.
    this.#shell.fleet.ensureTrees();
    void this.loadDrafts();
  }

  /** Show the part's effective config: the unsaved edit resolved when there is one. */
  async enterEffective(match: RouteMatch, signal?: AbortSignal): Promise<void> {
    const [, { EffectiveConfigView }] = await Promise.all([this.enterPart(match, signal), import('./effective.svelte')]);
    const page = this.page;
    if (!page || signal?.aborted) return;
    if (this.effective?.partId !== page.partId) this.effective = new EffectiveConfigView(this.#shell.bridge, page.partId);
    void this.effective.load(page.document.dirty ? page.document.text : undefined);
  }

  /** Go to the own or the effective view of the part shown, keeping the edit (nothing is left, so nothing to confirm). */
  switchView(path: string): void {
    this.#switching = true;
    try {
      this.#shell.router.go(path);
    } finally {
      this.#switching = false;
    }
  }

  /**
   * Whether leaving would lose an edit: the message to confirm, or null. Nothing is lost when the
   * edit is the draft kept of it, nor offline, where leaving keeps the edit as a draft, nor when
   * switching between the part's own and effective views (the page stays open).
   */
  unsaved(): string | null {
    const page = this.page;
    if (!page?.edit.unkept || this.#shell.offline || this.#switching) return null;
    return `The config of “${page.config?.name ?? 'this part'}” has unsaved changes. Leave and lose them?`;
  }

  /** Read the profile's drafts again (after one was kept, saved or dropped; when the service is back). */
  async loadDrafts(): Promise<readonly ConfigDraft[]> {
    const read = this.#draftsRead.read();
    const result = await this.#shell.bridge.invoke('config.drafts', {});
    if (!read.current) return this.drafts;
    this.draftsError = result.ok ? null : result.error;
    if (result.ok) this.drafts = result.value;
    return this.drafts;
  }

  /** The config page of a draft's part: its organization comes from the fleet tree that holds the part; null while no loaded tree does. */
  draftRoute(draft: ConfigDraft): string | null {
    for (const tree of this.#shell.fleet.trees) {
      if (tree.partMachine.has(draft.partId)) return partConfigPath({ kind: 'part', orgId: tree.tree.orgId, id: draft.partId });
    }
    return null;
  }

  /** Give a draft up from the drafts page. */
  async dropDraft(draft: ConfigDraft): Promise<void> {
    const result = await this.#shell.bridge.invoke('config.dropDraft', { partId: draft.partId });
    if (!result.ok) this.#shell.notices.push('error', `Couldn't discard the draft of “${draft.partName || draft.partId}”: ${result.error.message}`);
    await this.loadDrafts();
  }

  /**
   * The service can be reached (again, or at start): drafts kept while it could not are offered
   * for saving, once per coming back.
   */
  async offerDrafts(): Promise<void> {
    const drafts = await this.loadDrafts();
    if (drafts.length === 0 || this.#shell.offline) return;
    const names = drafts.slice(0, 3).map((d) => `“${d.partName || d.partId}”`);
    const more = drafts.length > 3 ? ` and ${drafts.length - 3} more` : '';
    this.#shell.notices.push(
      'info',
      `${drafts.length === 1 ? 'A config edit' : `${drafts.length} config edits`} kept while the service could not be reached ${drafts.length === 1 ? 'waits' : 'wait'} to be saved: ${names.join(', ')}${more}. Open “Config drafts” in the sidebar to save or discard ${drafts.length === 1 ? 'it' : 'them'}.`,
      15_000,
    );
  }

  /** Offer the drafts whenever the service becomes reachable (start included); a `$effect`, so called where effects may be made. */
  effects(): void {
    let wasOffline: boolean | null = null;
    $effect(() => {
      const offline = this.#shell.offline;
      if (wasOffline !== false && !offline) void this.offerDrafts();
      else if (offline) void this.loadDrafts();
      wasOffline = offline;
    });
  }

  /** Another profile is active: its drafts are other ones. */
  reset(): void {
    this.leave();
    this.drafts = [];
    void this.loadDrafts();
  }

  leave(): void {
    this.#closePage();
    this.showingDrafts = false;
    this.#choicesOrg = null;
  }

  #closePage(): void {
    const page = this.page;
    if (page) {
      // Offline, leaving keeps the edit (the guard did not ask): it is offered once the service is back.
      if (page.document.dirty && this.#shell.offline) {
        void page.edit.keepDraft().then(() => {
          if (page.edit.draft) this.#shell.notices.push('info', `Your edit of “${page.config?.name ?? 'the part'}” is kept as a draft; save it once the service is back.`);
        });
      }
      page.close();
    }
    this.page = null;
    this.effective?.close();
    this.effective = null;
    this.ref = null;
  }
}
