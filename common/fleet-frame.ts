/**
 * The fleet tree's top rows as the window last drew them, which main draws into the window's frame
 * (index.html) at the next launch: the tree shows from the HTML and the stylesheet alone, before
 * the app's code has loaded, and the app takes the window over once its own tree is drawn.
 * In a module that imports nothing at run time: the window keeps it on its boot path, which loads
 * no zod (common/ui.ts holds the schema main checks it with).
 *
 * Only what the frame shows, and nothing that goes stale between runs: no liveness (the cache's
 * last accesses are older than the live window by the time the app starts again, so the app's own
 * first view shows them offline too), no restart marks, no search.
 */

/** Rows kept: a viewport of the tallest screen (2160 px) at the tree's 28 px a row, with some to spare. */
export const FLEET_FRAME_ROWS = 80;
/** Levels the frame indents; deeper rows are drawn at this depth (locations nest, the frame stays bounded). */
export const FLEET_FRAME_LEVELS = 32;
/** A name longer than any the service accepts is cut to this in the frame. */
export const FLEET_FRAME_LABEL = 256;

/** The kinds of node a frame row is, as the tree names them. */
export const fleetFrameKinds = ['org', 'location', 'machine', 'part'] as const;
export type FleetFrameKind = (typeof fleetFrameKinds)[number];

/** One row of the tree, from the top. (Types, not interfaces: the bridge's `ui.set` takes JSON values.) */
export type FleetFrameRow = {
  /** 1 for an organization, +1 for each node it is under. */
  readonly level: number;
  readonly kind: FleetFrameKind;
  /** An organization's id: main draws a frame only when each one is in the profile's cache. */
  readonly orgId?: string;
  readonly label: string;
  readonly expandable: boolean;
  readonly expanded: boolean;
  /** The row the tree had selected. */
  readonly selected?: boolean;
  /** An organization's or location's machine count, as its badge shows it. */
  readonly count?: number;
  /** A machine's main part. */
  readonly main?: boolean;
  /** A location shared with the organization by its owner. */
  readonly shared?: boolean;
};

/** The tree's first `FLEET_FRAME_ROWS` rows, in drawing order. */
export type FleetFrame = {
  /**
   * The profile whose tree the rows are: main keeps them only while that profile is active, so a
   * save that crosses a profile switch never lands in the other profile's cache.
   */
  readonly profileId: string;
  readonly rows: FleetFrameRow[];
};
