import type { FleetBridge } from '../../../../common/bridge';
import type { FleetStore } from '../../lib/fleet/fleet.svelte';

/** At most this many machines are watched at once (main's bound). */
const MAX_WATCHED = 500;
/** Scrolling and selecting settle before main is told. */
const SETTLE_MS = 250;

/**
 * Which machines' liveness main should keep fresh: those with a row on screen, and the selected
 * node's (a location's machines, a part's machine). Told once the view settles, and only when the
 * set changed.
 */
export class LivenessWatch {
  readonly #bridge: FleetBridge;
  readonly #fleet: FleetStore;
  #visible: readonly string[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #watched = '';

  constructor(bridge: FleetBridge, fleet: FleetStore) {
    this.#bridge = bridge;
    this.#fleet = fleet;
  }

  /** The tree's rows on screen changed. */
  visible(machineIds: readonly string[]): void {
    this.#visible = machineIds;
    this.changed();
  }

  /** Something the set depends on changed (the selection). */
  changed(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#tell(), SETTLE_MS);
  }

  stop(): void {
    clearTimeout(this.#timer);
  }

  #tell(): void {
    const ids = new Set(this.#visible);
    const selected = this.#fleet.selected;
    const index = selected ? this.#fleet.tree(selected.orgId) : undefined;
    if (selected?.kind === 'machine') ids.add(selected.id);
    if (selected?.kind === 'part') {
      const machine = index?.partMachine.get(selected.id);
      if (machine) ids.add(machine.id);
    }
    if (selected?.kind === 'location') for (const m of index?.machinesIn.get(selected.id) ?? []) ids.add(m.id);
    const list = [...ids].sort().slice(0, MAX_WATCHED);
    const key = list.join(',');
    if (key === this.#watched) return;
    this.#watched = key;
    void this.#bridge.invoke('machines.watch', { machineIds: list }).then((r) => {
      if (r.ok) this.#fleet.applyLiveness(r.value);
    });
  }
}
