/**
 * What the location, machine and part panes read beyond the cached tree: each one's details from
 * the service, and a location's organizations with access. The pane draws the cached entity from
 * the tree meanwhile, so a failed read keeps what was shown and says why (`error`). The pane reads
 * again when its cached entity changes (a write, a sync), so answers may cross: the newest read
 * wins (`Latest`), and an answer for another entity than the one now shown is dropped.
 */
import type { FleetBridge } from '../../../../common/bridge';
import type { Location } from '../../../../common/locations';
import type { Machine, Part, PartDetails } from '../../../../common/machines';
import type { OrganizationIdentity } from '../../../../common/orgs';
import type { Result } from '../../../../common/result';
import { Latest } from '../../lib/state/latest';

/** What the name dialog (`nameDialog`, feature.svelte.ts) asks, and what it does with the answer. */
export interface NameAsk {
  readonly title: string;
  readonly description?: string;
  readonly label: string;
  readonly initial?: string;
  readonly placeholder?: string;
  readonly submitLabel: string;
  readonly onsubmit: (name: string) => Promise<Result<unknown>>;
}

/**
 * One entity's details, read by id. A read for another id than the last drops what was read of the
 * previous one (`switched`), so a pane never shows one entity's answer under another's name.
 */
class DetailsRead<T> {
  readonly #fetch: (id: string) => Promise<Result<T>>;
  readonly #latest = new Latest();
  #id: string | null = null;
  /** The service's answer; null until one came (the pane shows the cached entity). */
  details = $state.raw<T | null>(null);
  error = $state<string | null>(null);
  loading = $state(false);

  constructor(fetch: (id: string) => Promise<Result<T>>) {
    this.#fetch = fetch;
  }

  async load(id: string): Promise<void> {
    this.show(id);
    const read = this.#latest.read();
    this.loading = true;
    const result = await this.#fetch(id);
    if (read.newest) this.loading = false;
    if (!read.current) return;
    if (result.ok) {
      this.details = result.value;
      this.error = null;
    } else this.error = result.error.message;
  }

  /** Make `id` the entity shown; true when it was another one. */
  protected show(id: string): boolean {
    if (this.#id === id) return false;
    this.#id = id;
    this.#latest.supersede();
    this.details = null;
    this.error = null;
    return true;
  }
}

/** A location's details and, once asked for, who has access to it. */
export class LocationView extends DetailsRead<Location> {
  readonly #bridge: FleetBridge;
  readonly #accessLatest = new Latest();
  /** The organizations with access; null until asked for ("Show who has access"). */
  access = $state.raw<readonly OrganizationIdentity[] | null>(null);
  accessError = $state<string | null>(null);

  constructor(bridge: FleetBridge) {
    super((locationId) => bridge.invoke('locations.get', { locationId }));
    this.#bridge = bridge;
  }

  async loadAccess(locationId: string): Promise<void> {
    this.show(locationId);
    const read = this.#accessLatest.read();
    const result = await this.#bridge.invoke('orgs.withAccessToLocation', { locationId });
    if (!read.current) return;
    if (result.ok) {
      this.access = result.value;
      this.accessError = null;
    } else this.accessError = result.error.message;
  }

  protected override show(locationId: string): boolean {
    if (!super.show(locationId)) return false;
    this.#accessLatest.supersede();
    this.access = null;
    this.accessError = null;
    return true;
  }
}

/**
 * A machine's details and its parts, read together. Not a DetailsRead: each of the two reads that
 * worked is applied on its own (a failed parts read keeps the parts shown), the first failure said.
 */
export class MachineView {
  readonly #bridge: FleetBridge;
  readonly #latest = new Latest();
  #id: string | null = null;
  details = $state.raw<Machine | null>(null);
  parts = $state.raw<readonly Part[] | null>(null);
  error = $state<string | null>(null);
  loading = $state(false);

  constructor(bridge: FleetBridge) {
    this.#bridge = bridge;
  }

  async load(machineId: string): Promise<void> {
    if (this.#id !== machineId) {
      this.#id = machineId;
      this.#latest.supersede();
      this.details = null;
      this.parts = null;
      this.error = null;
    }
    const read = this.#latest.read();
    this.loading = true;
    const [machine, parts] = await Promise.all([this.#bridge.invoke('machines.get', { machineId }), this.#bridge.invoke('machines.parts', { machineId })]);
    if (read.newest) this.loading = false;
    if (!read.current) return;
    if (machine.ok) this.details = machine.value;
    if (parts.ok) this.parts = parts.value;
    this.error = !machine.ok ? machine.error.message : !parts.ok ? parts.error.message : null;
  }
}

/** A part's details (its config, secrets count, addresses). */
export class PartView extends DetailsRead<PartDetails> {
  constructor(bridge: FleetBridge) {
    super((partId) => bridge.invoke('machines.part', { partId }));
  }
}
