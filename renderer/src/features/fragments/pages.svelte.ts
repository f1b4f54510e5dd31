/**
 * The fragment pages the router shows (one at a time: an organization's browser, or one fragment),
 * and the drafts of fragment edits waiting for the service.
 */
import type { FragmentDraft } from '../../../../common/fragments';
import type { ConfigChoices } from '../../lib/config/completion';
import { param, type RouteMatch } from '../../lib/router/router.svelte';
import type { Shell } from '../../lib/shell/feature';
import { FragmentBrowser } from './browser.svelte';
import type { FragmentPage } from './fragment-page.svelte';
import { fragmentPath, fragmentsPath } from './routes';

export class FragmentPages {
  readonly #shell: Shell;
  browser = $state.raw<FragmentBrowser | null>(null);
  page = $state.raw<FragmentPage | null>(null);
  /** The organization whose fragments are shown. */
  orgId = $state<string | null>(null);
  /** Fragment edits kept while the service could not be reached, most recent first. */
  drafts = $state.raw<readonly FragmentDraft[]>([]);
  /** What completion offers in the editor: the organization's other fragments. */
  choices = $state.raw<ConfigChoices>({ modules: [], fragments: [] });

  constructor(shell: Shell) {
    this.#shell = shell;
  }

  enterList(match: RouteMatch): void {
    const orgId = param(match, 'orgId');
    this.#closePage();
    if (this.browser?.orgId === orgId) {
      void this.browser.load();
      return;
    }
    this.browser?.close();
    this.orgId = orgId;
    const browser = new FragmentBrowser(this.#shell.bridge, orgId);
    this.browser = browser;
    void browser.load();
    void this.loadDrafts();
  }

  /**
   * Open a fragment's page. Its state (and with it the config kit's document model) is imported
   * here, on the first visit, not at boot; `signal` says another route was entered meanwhile.
   */
  async enterFragment(match: RouteMatch, signal?: AbortSignal): Promise<void> {
    const orgId = param(match, 'orgId');
    const id = param(match, 'id');
    const version = match.query.get('version');
    this.browser?.close();
    this.browser = null;
    this.orgId = orgId;
    // The same fragment at another version keeps its page (and the edit in it).
    if (this.page?.fragmentId === id) {
      this.page.showVersion(version);
      return;
    }
    this.#closePage();
    const { FragmentPage } = await import('./fragment-page.svelte');
    if (signal?.aborted || this.orgId !== orgId) return;
    // Entered again meanwhile (another version of it): that entry's page is this one.
    if (this.page !== null) {
      if (this.page.fragmentId === id) this.page.showVersion(version);
      return;
    }
    const page = new FragmentPage(this.#shell.bridge, id, { notices: this.#shell.notices, offline: () => this.#shell.offline });
    page.showVersion(version);
    this.page = page;
    page.edit.keepWhileOffline(() => this.#shell.offline);
    void page.load();
    void this.#loadChoices(orgId, id);
  }

  /** Fragment ids completion offers: the organization's others (a fragment may nest them). */
  async #loadChoices(orgId: string, except: string): Promise<void> {
    const result = await this.#shell.bridge.invoke('fragments.list', { orgId });
    if (!result.ok || this.orgId !== orgId) return;
    this.choices = { modules: [], fragments: result.value.fragments.filter((f) => f.id !== except).map((f) => ({ id: f.id, name: f.name })) };
  }

  /** Open a fragment's page (optionally a revision or tag of it). */
  open(orgId: string, fragmentId: string, version?: string): void {
    this.#shell.router.go(fragmentPath(orgId, fragmentId, version));
  }

  /** Back to the organization's browser (after a delete: in place of the deleted fragment's page). */
  openBrowser(orgId: string, options: { readonly replace?: boolean } = {}): void {
    if (options.replace) this.#shell.router.replace(fragmentsPath(orgId));
    else this.#shell.router.go(fragmentsPath(orgId));
  }

  /** Whether leaving would lose an edit: the message to confirm, or null. Nothing is lost when the edit is its kept draft, nor offline, where it is kept as a draft instead. */
  unsaved(): string | null {
    const page = this.page;
    if (!page?.edit.unkept || this.#shell.offline) return null;
    return `The fragment “${page.name}” has unsaved changes. Leave and lose them?`;
  }

  /** Read the drafts kept; `announce` says so in a notice (the service just came back). */
  async loadDrafts(announce = false): Promise<void> {
    const result = await this.#shell.bridge.invoke('fragments.drafts', {});
    if (!result.ok) return;
    this.drafts = result.value;
    if (!announce || result.value.length === 0) return;
    const [first] = result.value;
    this.#shell.notices.push(
      'info',
      result.value.length === 1 && first
        ? `The service can be reached: your unsaved edit of the fragment “${first.name}” is kept. Open it (Go to… “Unsaved edit of ${first.name}”) to save it.`
        : `The service can be reached: ${result.value.length} unsaved fragment edits are kept. Open them from Go to… (“Unsaved edit of …”) or the fragment browser to save them.`,
      15_000,
    );
  }

  /** The link came back: read what is shown again, and the drafts (offered when the service becomes reachable: `effects`). */
  reload(): void {
    if (this.browser) void this.browser.load();
    if (this.page && !this.page.document.dirty) void this.page.load();
    else if (this.page) {
      void this.page.loadUsage();
      void this.page.loadHistory();
    }
    void this.loadDrafts();
  }

  /** Offer the drafts whenever the service becomes reachable (start included); a `$effect`, so called where effects may be made. */
  effects(): void {
    let wasOffline: boolean | null = null;
    $effect(() => {
      const offline = this.#shell.offline;
      if (wasOffline !== false && !offline) void this.loadDrafts(true);
      wasOffline = offline;
    });
  }

  #closePage(): void {
    const page = this.page;
    if (!page) return;
    void page.leaving().then(() => this.loadDrafts());
    page.close();
    this.page = null;
  }

  leave(): void {
    this.#closePage();
    this.browser?.close();
    this.browser = null;
    this.orgId = null;
  }

  /** Another profile: nothing of the last one applies. */
  reset(): void {
    this.leave();
    this.drafts = [];
  }
}
