/**
 * The resource a call's rule resolved, as the kind the rule names. In the kernel because several
 * domains act on the same kinds (organizations, locations, machines, parts, fragments), and a domain may not
 * import another domain's handlers for them. A mismatch is a bug in a rule table, not the caller's.
 */
import type { CallContext } from '../rpc';
import type { FragmentTarget, LocationTarget, OrgTarget, PartTarget, RobotTarget } from './engine';

function mismatch(ctx: CallContext, kind: string): Error {
  return new Error(`${ctx.method}: the permission table resolved ${ctx.target?.kind ?? 'nothing'}, not ${kind}`);
}

export function targetOf<K extends 'organization' | 'location'>(ctx: CallContext, kind: K): K extends 'organization' ? OrgTarget : LocationTarget {
  if (ctx.target?.kind !== kind) throw mismatch(ctx, kind);
  return ctx.target as K extends 'organization' ? OrgTarget : LocationTarget;
}

export function robotOf(ctx: CallContext): RobotTarget {
  if (ctx.target?.kind !== 'robot') throw mismatch(ctx, 'robot');
  return ctx.target;
}

export function partOf(ctx: CallContext): PartTarget {
  if (ctx.target?.kind !== 'part') throw mismatch(ctx, 'part');
  return ctx.target;
}

export function fragmentOf(ctx: CallContext): FragmentTarget {
  if (ctx.target?.kind !== 'fragment') throw mismatch(ctx, 'fragment');
  return ctx.target;
}
