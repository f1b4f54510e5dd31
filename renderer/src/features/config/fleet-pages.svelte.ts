import type { TreeIndex } from '../../lib/fleet/fleet-index';
import { param, type RouteMatch } from '../../lib/router/router.svelte';
import type { Shell } from '../../lib/shell/feature';
import { PartsComparison, type CompareView } from './compare.svelte';
import type { MachineFragmentsPage } from './machine-fragments.svelte';
import { comparePath } from './routes';

/** The config pages over more than one part: a machine's fragments, and two parts compared. */
export class FleetConfigPages {
  readonly #shell: Shell;
  machine = $state.raw<MachineFragmentsPage | null>(null);
  /** Why the machine's page shows nothing (not in the cached fleet), or null. */
  machineMissing = $state<string | null>(null);
  compare = $state.raw<PartsComparison | null>(null);
  /** The organization compared in. */
  compareOrg = $state('');
  /** The side the comparison asks the user to choose (a side not chosen yet), or null. */
  picking = $state<'a' | 'b' | null>(null);

  constructor(shell: Shell) {
    this.#shell = shell;
  }

  async #tree(orgId: string, signal: AbortSignal): Promise<TreeIndex | undefined> {
    return this.#shell.fleet.tree(orgId) ?? (await this.#shell.fleet.whenTree(orgId, { signal, orgsKnown: this.#shell.fleet.orgs.length > 0 }));
  }

  /** Open a machine's fragments: its main part's, found in the fleet tree. */
  async enterMachine(match: RouteMatch, signal: AbortSignal): Promise<void> {
    const orgId = param(match, 'orgId');
    const id = param(match, 'id');
    this.machineMissing = null;
    if (this.machine?.machineId === id) {
      void this.machine.load();
      return;
    }
    this.machine?.close();
    this.machine = null;
    // The page's state (with the JSON parser its edits use) loads with the page, not at boot.
    const { MachineFragmentsPage } = await import('./machine-fragments.svelte');
    if (signal.aborted || this.machine !== null) return;
    const page = new MachineFragmentsPage(this.#shell.bridge, orgId, id, this.#shell.notices);
    this.machine = page;
    const index = await this.#tree(orgId, signal);
    if (signal.aborted || this.machine !== page) return;
    const machine = index?.machines.get(id);
    if (!machine) {
      this.machineMissing = index ? 'The machine is not in the cached fleet any more (deleted, or moved to another organization).' : 'Its organization is not in the cached fleet.';
      return;
    }
    await page.load(machine.parts.find((p) => p.mainPart)?.id ?? null);
  }

  /** Open the comparison the address asks for; a side not chosen yet is asked for. */
  async enterCompare(match: RouteMatch, signal: AbortSignal): Promise<void> {
    const orgId = param(match, 'orgId');
    const a = match.query.get('a') ?? '';
    const b = match.query.get('b') ?? '';
    const view: CompareView = match.query.get('view') === 'effective' ? 'effective' : 'own';
    this.compareOrg = orgId;
    const compare = this.compare ?? new PartsComparison(this.#shell.bridge);
    this.compare = compare;
    this.picking = a === '' ? 'a' : b === '' ? 'b' : null;
    // The tree gives the parts' names to pick from; the comparison itself needs only the ids.
    void this.#tree(orgId, signal);
    await compare.load(a, b, view);
  }

  /** The parts of the compared organization, as "machine / part", for the picker. */
  partOptions(): { id: string; label: string }[] {
    const index = this.#shell.fleet.tree(this.compareOrg);
    if (!index) return [];
    return [...index.machines.values()].flatMap((m) => m.parts.map((p) => ({ id: p.id, label: `${m.name} / ${p.name}` }))).sort((x, y) => x.label.localeCompare(y.label));
  }

  /** Show another comparison: a new address, so Back returns to this one. */
  show(a: string, b: string, view: CompareView): void {
    this.#shell.router.go(comparePath(this.compareOrg, a, b, view));
  }

  leave(): void {
    this.machine?.close();
    this.machine = null;
    this.machineMissing = null;
    this.compare?.close();
    this.compare = null;
    this.picking = null;
  }
}
