import type { BackendContext } from '../backend/context';
import type { DomainHandlers } from '../backend/router';
import type { FleetFrame } from '../../common/ui';
import { getUiState } from '../cache/ui-state';

/** Small per-profile UI state (expanded tree nodes, the selection), kept in the profile's cache; and the window's word that its first view is drawn (a launch connects then). */
export function uiHandlers(ctx: BackendContext): DomainHandlers<'ui.get' | 'ui.set' | 'ui.restored'> {
  const { connection } = ctx;
  /** Writes of each key not yet committed: while one is, the stored value is not the last one asked. */
  const writing = new Map<string, number>();
  /** The last write asked of each key, while under way: a read waits for it (the cache's writer commits in order). */
  const lastWrite = new Map<string, Promise<unknown>>();
  return {
    // Read your writes: a page that saves its route and is reloaded at once (Ctrl+R, a restart
    // right after a click) must come back on that route, not on the one before it.
    'ui.get': async ({ key }) => {
      await lastWrite.get(key);
      return { value: getUiState(connection.cache, key) };
    },
    'ui.set': async ({ key, value }) => {
      // The window took these rows under another profile than the one active now (a switch
      // crossed the save): they are not this profile's tree.
      if (key === 'fleet.frame' && (value as FleetFrame).profileId !== connection.profileId) return {};
      // A page that comes back writes what it restored (the route it shows, the selection it drew).
      // Unchanged, that write would start the cache writer's thread in the middle of the page's boot
      // (0.3 s of CPU on 2 cores) for nothing.
      if (!writing.has(key) && JSON.stringify(getUiState(connection.cache, key)) === JSON.stringify(value)) return {};
      writing.set(key, (writing.get(key) ?? 0) + 1);
      const write = connection.runCache('setUiState', key, value);
      // A read after a failed write answers what the cache has; the failure is this call's to report.
      const settled = write.then(
        () => undefined,
        () => undefined,
      );
      lastWrite.set(key, settled);
      try {
        await write;
      } finally {
        const left = (writing.get(key) ?? 1) - 1;
        if (left > 0) writing.set(key, left);
        else writing.delete(key);
        if (lastWrite.get(key) === settled) lastWrite.delete(key);
      }
      return {};
    },
    'ui.restored': () => {
      ctx.firstViewDrawn();
      return {};
    },
  };
}
