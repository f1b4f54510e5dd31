/**
 * The spec's liveness rule, in a module that imports nothing at run time: the fleet tree shows each
 * part's liveness from its first frame, on the window's boot path, which does not load the machines
 * domain's request schemas (zod). common/machines.ts re-exports it.
 */
import type { IsoTime } from './schemas';

/** Clients count a part as live when its last access is at most this old (the spec's liveness rule). */
export const LIVE_WITHIN_MS = 10_000;

/** Whether a part that last contacted the service at `lastAccess` is live at `now` (epoch ms). */
export function isLive(lastAccess: IsoTime | null, now: number): boolean {
  if (lastAccess === null) return false;
  const at = Date.parse(lastAccess);
  return Number.isFinite(at) && now - at <= LIVE_WITHIN_MS;
}
