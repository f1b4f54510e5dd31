/**
 * What a change of a fragment reaches before it is made: how many machines use the fragment
 * (`fragments.usage`), and what the change does to one of them, the effective config of its main
 * part resolved as it is and with the change previewed (`config.effective` with `preview`).
 */
import type { FleetBridge } from '../../../../common/bridge';
import type { ConfigPreview } from '../../../../common/config';
import type { FragmentUsage } from '../../../../common/fragments';
import type { BridgeError } from '../../../../common/result';
import { Latest } from '../../lib/state/latest';

/** The change to weigh: the fragment's next revision with this config, or a tag moved to a revision. */
export type FragmentChange = { readonly kind: 'save'; readonly configJson: string } | { readonly kind: 'tag'; readonly tag: string; readonly revision: string };

/** One machine's effective config (its main part's) before and after the change, as two-space JSON. */
export interface EffectiveDiff {
  readonly machineId: string;
  readonly partName: string;
  readonly before: string;
  readonly after: string;
}

const text = (value: unknown) => JSON.stringify(value, null, 2);

/** How many machines are looked at for one whose effective config the change alters. */
const PROBED_MACHINES = 5;

export class BlastRadius {
  readonly fragmentId: string;
  readonly change: FragmentChange;
  readonly #bridge: FleetBridge;
  readonly #pick = new Latest();
  usage = $state.raw<FragmentUsage | null>(null);
  loading = $state(true);
  /** Why the machines could not be counted (the change can still be made: the user decides). */
  error = $state.raw<BridgeError | null>(null);
  /** The machine whose effective config is compared. */
  machineId = $state<string | null>(null);
  diff = $state.raw<EffectiveDiff | null>(null);
  diffLoading = $state(false);
  diffError = $state<string | null>(null);

  constructor(bridge: FleetBridge, fragmentId: string, change: FragmentChange) {
    this.#bridge = bridge;
    this.fragmentId = fragmentId;
    this.change = change;
  }

  /** Machines reached (of the fragment's organization); 0 until counted. */
  get machineCount(): number {
    return this.usage?.machineCount ?? 0;
  }

  /** Count the machines, then compare the effective config of the first one the change alters. */
  async load(): Promise<void> {
    this.loading = true;
    const result = await this.#bridge.invoke('fragments.usage', { fragmentId: this.fragmentId });
    this.loading = false;
    if (!result.ok) {
      this.error = result.error;
      return;
    }
    this.usage = result.value;
    // A machine pinned to another version stays the same: show one the change does reach, looking
    // at a few (each look resolves two effective configs), else the first.
    const candidates = result.value.machines.slice(0, PROBED_MACHINES);
    for (const machine of candidates) {
      await this.pick(machine.machineId);
      if (this.machineId !== machine.machineId) return; // the user picked one meanwhile
      if (this.diff && this.diff.before !== this.diff.after) return;
    }
    const first = candidates[0];
    if (first && candidates.length > 1) await this.pick(first.machineId);
  }

  /** Compare this machine's effective config before and after the change (its main part's). */
  async pick(machineId: string): Promise<void> {
    const read = this.#pick.read();
    this.machineId = machineId;
    this.diffLoading = true;
    this.diffError = null;
    const done = (error: string | null, diff: EffectiveDiff | null = null) => {
      if (!read.current) return;
      this.diffLoading = false;
      this.diffError = error;
      this.diff = diff;
    };
    const parts = await this.#bridge.invoke('machines.parts', { machineId });
    if (!parts.ok) return done(`Couldn't read the machine's parts: ${parts.error.message}`);
    const part = parts.value.find((p) => p.mainPart) ?? parts.value[0];
    if (!part) return done('This machine has no part, so it runs no config to compare.');
    const preview: ConfigPreview =
      this.change.kind === 'save'
        ? { fragmentId: this.fragmentId, configJson: this.change.configJson }
        : { fragmentId: this.fragmentId, tag: this.change.tag, revision: this.change.revision };
    const [before, after] = await Promise.all([
      this.#bridge.invoke('config.effective', { partId: part.id }),
      this.#bridge.invoke('config.effective', { partId: part.id, preview }),
    ]);
    if (!before.ok) return done(`Couldn't resolve ${part.name}'s effective config: ${before.error.message}`);
    if (!after.ok) return done(`Couldn't resolve ${part.name}'s effective config with the change: ${after.error.message}`);
    done(null, { machineId, partName: part.name, before: text(before.value.effective), after: text(after.value.effective) });
  }

  /** The panel is closed: a comparison still under way no longer applies. */
  close(): void {
    this.#pick.supersede();
  }
}
