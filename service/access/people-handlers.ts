/**
 * The people operations of AppService, together: members and invites (members-handlers.ts) and
 * roles (roles-handlers.ts). server.ts spreads them next to the other domains' handlers.
 */
import type { AppServiceService } from '../../proto/gen/fleet/app/v1/app';
import type { CallContext, UnaryHandlers } from '../rpc';
import { createMemberHandlers, type PeopleDeps } from './members-handlers';
import { createRoleHandlers, type RoleDeps } from './roles-handlers';

export { createAcceptHandler, signedIn, type PeopleDeps } from './members-handlers';
export { peopleRules } from './people-rules';

/** Every authenticated people operation. */
export function createPeopleHandlers(deps: PeopleDeps & RoleDeps): UnaryHandlers<typeof AppServiceService, CallContext> {
  return { ...createMemberHandlers(deps), ...createRoleHandlers(deps) };
}
