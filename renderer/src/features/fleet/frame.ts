/**
 * The fleet tree's top rows, kept for the window's next launch: main draws them into index.html's
 * frame (main/ui/fleet-frame.ts), so the tree shows before the app's code has loaded. Saved a while
 * after the rows change — an expand, a select, a tree that changed — and only when they are what a
 * launch would draw: the organizations known, no search typed, every organization's whole tree in.
 */
import type { FleetBridge } from '../../../../common/bridge';
import { FLEET_FRAME_LABEL, FLEET_FRAME_LEVELS, FLEET_FRAME_ROWS, type FleetFrame, type FleetFrameRow } from '../../../../common/fleet-frame';
import type { FleetRow } from '../../lib/fleet/fleet-index';

/** Quiet time after a change before the rows are saved: a burst of expands is one write. */
export const FRAME_SAVE_MS = 1_000;

/** What the frame is taken from (the fleet store). */
export interface FrameSource {
  readonly query: string;
  readonly selectedKey: string | null;
  readonly orgs: readonly { readonly id: string }[];
  readonly rows: { readonly length: number; at(index: number): FleetRow | undefined };
  tree(orgId: string): unknown;
}

/** Whose tree it is, and whether its organizations are known yet (before, no organizations is not an empty fleet). */
export interface FrameContext {
  readonly profileId: string | null;
  readonly loaded: boolean;
}

/** The tree's first FLEET_FRAME_ROWS rows as the frame draws them, or null when they are not what a launch would show. */
export function fleetFrameOf(source: FrameSource, context: FrameContext): FleetFrame | null {
  if (context.profileId === null || !context.loaded || source.query.trim() !== '') return null;
  // A head (locations and machines, parts on their way) draws fewer rows under an open machine than the tree will.
  if (source.orgs.some((org) => source.tree(org.id) === undefined)) return null;
  const rows: FleetFrameRow[] = [];
  for (let i = 0; i < Math.min(source.rows.length, FLEET_FRAME_ROWS); i++) {
    const row = source.rows.at(i);
    if (!row) break;
    rows.push({
      level: Math.min(row.level, FLEET_FRAME_LEVELS),
      kind: row.ref.kind,
      ...(row.ref.kind === 'org' ? { orgId: row.ref.orgId } : {}),
      label: row.label.slice(0, FLEET_FRAME_LABEL),
      expandable: row.expandable,
      expanded: row.expanded,
      ...(row.key === source.selectedKey ? { selected: true } : {}),
      ...(row.count !== undefined && (row.ref.kind === 'org' || row.ref.kind === 'location') ? { count: row.count } : {}),
      ...(row.main ? { main: true } : {}),
      ...(row.shared ? { shared: true } : {}),
    });
  }
  return { profileId: context.profileId, rows };
}

/** Saves the frame FRAME_SAVE_MS after the last change it is told of. */
export class FleetFrameKeeper {
  readonly #bridge: FleetBridge;
  readonly #source: FrameSource;
  readonly #context: () => FrameContext;
  readonly #delayMs: number;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(bridge: FleetBridge, source: FrameSource, context: () => FrameContext, delayMs = FRAME_SAVE_MS) {
    this.#bridge = bridge;
    this.#source = source;
    this.#context = context;
    this.#delayMs = delayMs;
  }

  /** The rows may have changed. */
  changed(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#save(), this.#delayMs);
  }

  stop(): void {
    clearTimeout(this.#timer);
  }

  #save(): void {
    // Read when saved, not when scheduled, and tagged with the profile the window believes active:
    // main drops rows of a profile that is no longer (a switch that crossed the save), and draws
    // none whose organizations the profile's cache does not hold.
    const frame = fleetFrameOf(this.#source, this.#context());
    // Main skips a value already stored; a write it refuses loses only a faster next launch.
    if (frame) void this.#bridge.invoke('ui.set', { key: 'fleet.frame', value: frame });
  }
}
