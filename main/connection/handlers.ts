import type { DomainHandlers } from '../backend/router';
import type { BackendContext } from '../backend/context';

export function connectionHandlers(ctx: BackendContext): DomainHandlers<'connection.get' | 'connection.retry'> {
  return {
    'connection.get': () => ctx.connection.state,
    'connection.retry': async () => {
      const active = ctx.profiles.activeId;
      // A stopped local service cannot answer a retry: starting it is the retry.
      if (active && ctx.profiles.get(active)?.kind === 'local' && ctx.localService.state.status !== 'running') {
        await ctx.activate(active);
        return ctx.connection.state;
      }
      return ctx.connection.retry();
    },
  };
}
