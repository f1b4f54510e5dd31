import type { DomainHandlers } from '../backend/router';
import type { BackendContext } from '../backend/context';
import { AppError } from '../backend/errors';

export function localServiceHandlers(ctx: BackendContext): DomainHandlers<'localService.get' | 'localService.start' | 'localService.stop'> {
  return {
    'localService.get': () => ctx.localService.state,
    'localService.start': async () => {
      const active = ctx.profiles.activeId;
      if (active && ctx.profiles.get(active)?.kind === 'local') {
        // Reconnects the local profile too; a failure to start is in the state (and the banner).
        await ctx.activate(active, { wait: true });
      } else {
        await ctx.localService.start().catch((e: unknown) => {
          throw new AppError('internal', e instanceof Error ? e.message : String(e));
        });
      }
      return ctx.localService.state;
    },
    'localService.stop': async () => {
      await ctx.localService.stop();
      return ctx.localService.state;
    },
  };
}
