import type { BackendContext } from '../backend/context';
import type { DomainHandlers } from '../backend/router';
import { getUiState } from '../cache/ui-state';

/** Small per-profile UI state (expanded tree nodes, the selection), kept in the profile's cache; and the window's word that its first view is drawn (a launch connects then). */
export function uiHandlers(ctx: BackendContext): DomainHandlers<'ui.get' | 'ui.set' | 'ui.restored'> {
  const { connection } = ctx;
  return {
    'ui.get': ({ key }) => ({ value: getUiState(connection.cache, key) }),
    'ui.set': async ({ key, value }) => {
      await connection.runCache('setUiState', key, value);
      return {};
    },
    'ui.restored': () => {
      ctx.firstViewDrawn();
      return {};
    },
  };
}
