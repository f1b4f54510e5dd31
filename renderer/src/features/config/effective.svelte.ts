/**
 * A part's effective config as the page shows it: resolved in main (the stored config, or the
 * user's unsaved edit), laid out with its provenance found in the text. Failures are kept to show.
 */
import type { FleetBridge } from '../../../../common/bridge';
import type { EffectiveConfig } from '../../../../common/config';
import type { BridgeError } from '../../../../common/result';
import { Latest } from '../../lib/state/latest';
import { markConfig, type MarkedConfig } from './provenance';

export class EffectiveConfigView {
  readonly partId: string;
  readonly #bridge: FleetBridge;
  readonly #read = new Latest();
  config = $state.raw<EffectiveConfig | null>(null);
  marked = $state.raw<MarkedConfig | null>(null);
  /** Whether what is shown resolves an unsaved edit rather than the stored config. */
  ofEdit = $state(false);
  loading = $state(false);
  error = $state.raw<BridgeError | null>(null);

  constructor(bridge: FleetBridge, partId: string) {
    this.#bridge = bridge;
    this.partId = partId;
  }

  /** Resolve the stored config, or `edit` (the editor's unsaved text) when given. */
  async load(edit?: string): Promise<void> {
    const read = this.#read.read();
    this.loading = true;
    const result = await this.#bridge.invoke('config.effective', { partId: this.partId, ...(edit !== undefined ? { configJson: edit } : {}) });
    if (!read.current) return;
    this.loading = false;
    if (!result.ok) {
      this.error = result.error;
      return;
    }
    this.error = null;
    this.config = result.value;
    this.marked = markConfig(result.value);
    this.ofEdit = edit !== undefined;
  }

  /** Another page is shown: an answer on the way is dropped. */
  close(): void {
    this.#read.supersede();
  }
}
