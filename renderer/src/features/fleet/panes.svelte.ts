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
import { Latest } from '../../lib/state/latest';

/** A location's details and, once asked for, who has access to it. */
export class LocationView {
  readonly #bridge: FleetBridge;
  readonly #latest = new Latest();
  readonly #accessLatest = new Latest();
  #id: string | null = null;
  /** The service's answer; null until one came (the pane shows the cached location). */
  details = $state.raw<Location | null>(null);
  error = $state<string | null>(null);
  loading = $state(false);
  /** The organizations with access; null until asked for ("Show who has access"). */
  access = $state.raw<readonly OrganizationIdentity[] | null>(null);
  accessError = $state<string | null>(null);

  constructor(bridge: FleetBridge) {
    this.#bridge = bridge;
  }

  async load(locationId: string): Promise<void> {
    this.#show(locationId);
    const read = this.#latest.read();
    this.loading = true;
    const result = await this.#bridge.invoke('locations.get', { locationId });
    if (read.newest) this.loading = false;
    if (!read.current) return;
    if (result.ok) {
      this.details = result.value;
      this.error = null;
    } else this.error = result.error.message;
  }

  async loadAccess(locationId: string): Promise<void> {
    this.#show(locationId);
    const read = this.#accessLatest.read();
    const result = await this.#bridge.invoke('orgs.withAccessToLocation', { locationId });
    if (!read.current) return;
    if (result.ok) {
      this.access = result.value;
      this.accessError = null;
    } else this.accessError = result.error.message;
  }

  /** Another location: what was read of the previous one no longer applies. */
  #show(locationId: string): void {
    if (this.#id === locationId) return;
    this.#id = locationId;
    this.#latest.supersede();
    this.#accessLatest.supersede();
    this.details = null;
    this.error = null;
    this.access = null;
    this.accessError = null;
  }
}

/** A machine's details and its parts, read together. */
export class MachineView {
  readonly #bridge: FleetBridge;
  readonly #latest = new Latest();
  #id: string | null = null;
  details = $state.raw<Machine | null>(null);
  parts = $state.raw<readonly Part[] | null>(null);
  /** The first of the two reads' failures; each read that worked is still applied. */
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
export class PartView {
  readonly #bridge: FleetBridge;
  readonly #latest = new Latest();
  #id: string | null = null;
  details = $state.raw<PartDetails | null>(null);
  error = $state<string | null>(null);
  loading = $state(false);

  constructor(bridge: FleetBridge) {
    this.#bridge = bridge;
  }

  async load(partId: string): Promise<void> {
    if (this.#id !== partId) {
      this.#id = partId;
      this.#latest.supersede();
      this.details = null;
      this.error = null;
    }
    const read = this.#latest.read();
    this.loading = true;
    const result = await this.#bridge.invoke('machines.part', { partId });
    if (read.newest) this.loading = false;
    if (!read.current) return;
    if (result.ok) {
      this.details = result.value;
      this.error = null;
    } else this.error = result.error.message;
  }
}
