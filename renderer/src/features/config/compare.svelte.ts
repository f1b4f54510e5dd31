/**
 * Two parts' configs side by side: as stored (own) or as they resolve (effective, written out as
 * two-space JSON so both sides have the same layout). Each side's failure is kept to show.
 */
import type { FleetBridge } from '../../../../common/bridge';
import type { BridgeError } from '../../../../common/result';
import { Latest } from '../../lib/state/latest';

/** Which config of each part is compared. */
export type CompareView = 'own' | 'effective';

/** One side: the part's name and the text compared. */
export interface CompareSide {
  readonly partId: string;
  readonly name: string;
  readonly text: string;
  readonly fromCache: boolean;
}

export class PartsComparison {
  readonly #bridge: FleetBridge;
  readonly #read = new Latest();
  a = $state('');
  b = $state('');
  view = $state<CompareView>('own');
  left = $state.raw<CompareSide | null>(null);
  right = $state.raw<CompareSide | null>(null);
  leftError = $state.raw<BridgeError | null>(null);
  rightError = $state.raw<BridgeError | null>(null);
  loading = $state(false);

  constructor(bridge: FleetBridge) {
    this.#bridge = bridge;
  }

  /** Compare `a` with `b` (either may be empty: not chosen yet). */
  async load(a: string, b: string, view: CompareView): Promise<void> {
    const read = this.#read.read();
    [this.a, this.b, this.view] = [a, b, view];
    this.loading = true;
    const [left, right] = await Promise.all([this.#side(a, view), this.#side(b, view)]);
    if (!read.current) return;
    this.loading = false;
    [this.left, this.leftError] = left;
    [this.right, this.rightError] = right;
  }

  async #side(partId: string, view: CompareView): Promise<[CompareSide | null, BridgeError | null]> {
    if (partId === '') return [null, null];
    const part = await this.#bridge.invoke('config.part', { partId });
    if (!part.ok) return [null, part.error];
    if (view === 'own') return [{ partId, name: part.value.name, text: part.value.configJson, fromCache: part.value.fromCache }, null];
    const effective = await this.#bridge.invoke('config.effective', { partId });
    if (!effective.ok) return [null, effective.error];
    return [{ partId, name: part.value.name, text: JSON.stringify(effective.value.effective, null, 2), fromCache: effective.value.fromCache }, null];
  }

  /** Another page is shown: an answer on the way is dropped. */
  close(): void {
    this.#read.supersede();
  }
}
