import { z } from 'zod';
import { FLEET_FRAME_LABEL, FLEET_FRAME_LEVELS, FLEET_FRAME_ROWS, fleetFrameKinds, type FleetFrame } from './fleet-frame';

export * from './fleet-frame';

/**
 * What the UI remembers per profile between runs (expanded tree nodes, the selection, the page shown
 * as its route, e.g. `/orgs/o1/training`): small JSON
 * values under a few known keys, kept in the profile's cache by main. Nothing secret goes here.
 */
export const uiStateKeys = ['tree.expanded', 'tree.selected', 'app.route', 'fleet.frame'] as const;
export type UiStateKey = (typeof uiStateKeys)[number];

const key = z.enum(uiStateKeys);

/**
 * `fleet.frame`'s value: main draws it into the window's HTML at the next launch, so it is held to
 * this shape when written and checked again when read (a cache written by another version).
 */
export const fleetFrameSchema: z.ZodType<FleetFrame> = z
  .object({
    profileId: z.string().min(1).max(200),
    rows: z
      .array(
        z
          .object({
            level: z.number().int().min(1).max(FLEET_FRAME_LEVELS),
            kind: z.enum(fleetFrameKinds),
            orgId: z.string().min(1).max(200).optional(),
            label: z.string().max(FLEET_FRAME_LABEL),
            expandable: z.boolean(),
            expanded: z.boolean(),
            selected: z.boolean().optional(),
            count: z.number().int().min(0).optional(),
            main: z.boolean().optional(),
            shared: z.boolean().optional(),
          })
          .strict(),
      )
      .max(FLEET_FRAME_ROWS),
  })
  .strict();

export const uiRequests = {
  /** The remembered value of `key` for the active profile, or null. */
  'ui.get': z.object({ key }).strict(),
  /** Remember `value` (JSON, at most 256 KiB) under `key` for the active profile. */
  'ui.set': z
    .object({ key, value: z.json() })
    .strict()
    .refine((v) => JSON.stringify(v.value).length <= 256 * 1024, 'value must be at most 256 KiB as JSON')
    .superRefine((v, ctx) => {
      if (v.key !== 'fleet.frame') return;
      const frame = fleetFrameSchema.safeParse(v.value);
      for (const issue of frame.success ? [] : frame.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: ['value', ...issue.path] });
    }),
  /**
   * The window drew its first view from the cache (the tree of every organization, the page of the
   * last run). At launch main reaches the service only after this (or after a grace period without
   * it), so starting the local service and the first sync do not share the machine with the boot.
   * Said once per page load; later calls change nothing.
   */
  'ui.restored': z.object({}).strict(),
};

export interface UiResponses {
  'ui.get': { readonly value: unknown };
  'ui.set': Record<string, never>;
  'ui.restored': Record<string, never>;
}
