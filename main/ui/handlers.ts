import type { BackendContext } from '../backend/context';
import type { DomainHandlers } from '../backend/router';
import type { FleetFrame } from '../../common/ui';
import { getUiState } from '../cache/ui-state';

/** The longest `ui.get` waits for a write of its key under way before answering what the cache has. */
export const READ_WAIT_MS = 2_000;

/** `promise`, or nothing once `ms` have passed (the timer does not outlive it). */
async function withinMs(promise: Promise<void>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** Small per-profile UI state (expanded tree nodes, the selection), kept in the profile's cache; and the window's word that its first view is drawn (a launch connects then). */
export function uiHandlers(ctx: BackendContext): DomainHandlers<'ui.get' | 'ui.set' | 'ui.restored'> {
  const { connection } = ctx;
  /** Writes of each key (of a profile) not yet committed: while one is, the stored value is not the last one asked. */
  const writing = new Map<string, number>();
  /** The last write asked of each key (of a profile), while under way: a read waits for it (the cache's writer commits in order). */
  const lastWrite = new Map<string, Promise<void>>();
  /** A key of the maps above: the profile's cache is the one written. */
  const slot = (key: string) => `${connection.profileId ?? ''}\u0000${key}`;
  return {
    // Read your writes: a page that saves its route and is reloaded at once (Ctrl+R, a restart
    // right after a click) must come back on that route, not on the one before it. The wait is
    // bounded: the write queues behind whatever the writer has (a sync's rows), and a page's boot
    // is not held longer than READ_WAIT_MS for it.
    'ui.get': async ({ key }) => {
      const pending = lastWrite.get(slot(key));
      if (pending) await withinMs(pending, READ_WAIT_MS);
      return { value: getUiState(connection.cache, key) };
    },
    'ui.set': async ({ key, value }) => {
      // The window took these rows under another profile than the one active now (a switch
      // crossed the save): they are not this profile's tree.
      if (key === 'fleet.frame' && (value as FleetFrame).profileId !== connection.profileId) return {};
      const at = slot(key);
      // A page that comes back writes what it restored (the route it shows, the selection it drew).
      // Unchanged, that write would start the cache writer's thread in the middle of the page's boot
      // (0.3 s of CPU on 2 cores) for nothing.
      if (!writing.has(at) && JSON.stringify(getUiState(connection.cache, key)) === JSON.stringify(value)) return {};
      writing.set(at, (writing.get(at) ?? 0) + 1);
      // Called inside an async function: a job the writer refuses at once (its thread cannot start)
      // rejects like one that failed, so the bookkeeping below always runs.
      const write = (async () => connection.runCache('setUiState', key, value))();
      // A read after a failed write answers what the cache has; the failure is this call's to report.
      const settled = write.then(
        () => undefined,
        () => undefined,
      );
      lastWrite.set(at, settled);
      try {
        await write;
      } finally {
        const left = (writing.get(at) ?? 1) - 1;
        if (left > 0) writing.set(at, left);
        else writing.delete(at);
        if (lastWrite.get(at) === settled) lastWrite.delete(at);
      }
      return {};
    },
    'ui.restored': () => {
      ctx.firstViewDrawn();
      return {};
    },
  };
}
