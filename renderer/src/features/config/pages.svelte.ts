import type { ConfigChoices } from '../../lib/config/completion';
import type { NodeRef } from '../../lib/fleet/fleet-index';
import { param, type RouteMatch } from '../../lib/router/router.svelte';
import type { Shell } from '../../lib/shell/feature';
import { PartConfigPage } from './part-config.svelte';

/** The config page the router shows (one at a time), and what completion offers in it. */
export class ConfigPages {
  readonly #shell: Shell;
  page = $state.raw<PartConfigPage | null>(null);
  ref = $state.raw<(NodeRef & { kind: 'part' }) | null>(null);
  /** Module and fragment ids offered by completion (filled as the registry and fragments become readable here). */
  choices = $state.raw<ConfigChoices>({ modules: [], fragments: [] });

  constructor(shell: Shell) {
    this.#shell = shell;
  }

  enterPart(match: RouteMatch): void {
    const orgId = param(match, 'orgId');
    const id = param(match, 'id');
    if (this.page?.partId === id) return;
    this.page?.close();
    this.ref = { kind: 'part', orgId, id };
    const page = new PartConfigPage(this.#shell.bridge, id, this.#shell.notices);
    this.page = page;
    void page.load();
  }

  /** Whether leaving would lose an edit: the message to confirm, or null. */
  unsaved(): string | null {
    const page = this.page;
    if (!page?.document.dirty) return null;
    return `The config of “${page.config?.name ?? 'this part'}” has unsaved changes. Leave and lose them?`;
  }

  leave(): void {
    this.page?.close();
    this.page = null;
    this.ref = null;
  }
}
