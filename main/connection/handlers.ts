import type { DomainHandlers } from '../backend/router';
import type { BackendContext } from '../backend/context';

export function connectionHandlers(ctx: BackendContext): DomainHandlers<'connection.get' | 'connection.retry'> {
  return {
    'connection.get': () => ctx.connection.state,
    'connection.retry': async () => {
      const active = ctx.profiles.activeId;
      // Without a service to call (a stopped local service, a key that was missing) retrying means
      // connecting the profile again: starting its service, reading its key.
      if (active && !ctx.connection.hasService) {
        await ctx.activate(active, { wait: true });
        return ctx.connection.state;
      }
      return ctx.connection.retry();
    },
  };
}
