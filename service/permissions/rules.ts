/**
 * The machinery of the permission tables. Each domain declares the rows of its operations in its own
 * `rules.ts` (the shape checks of the request, the resource its role is checked on, the least role it
 * needs: docs/PROTOCOL.md sections 10–11), and server.ts spreads them into one table per service.
 * service/rpc.ts applies a method's row before its handler runs, in the protocol's order —
 * authentication, request shape (INVALID_ARGUMENT), existence and visibility (NOT_FOUND), role
 * (PERMISSION_DENIED) — so a handler starts with a valid request on a resource the caller may use,
 * and only checks the state. A handler without a row cannot be registered (rpc.ts), so a new
 * operation adds a row to its domain's rules.ts, not checks of its own.
 */
import { registryId, requiredId } from '../validate';
import type { Need, ResourceRef } from './engine';

type RequestOf<M> = M extends { requestDeserialize: (bytes: Buffer) => infer Req } ? Req : never;

export interface Rule<Req> {
  /** Shape checks, in the order of the request's fields; throw INVALID_ARGUMENT. */
  readonly validate?: (request: Req) => void;
  /** The resource the role is checked on; null for calls on nothing in particular. */
  readonly resource: (request: Req) => ResourceRef | null;
  readonly need: Need;
  /** Only roles held in the resource's owning organization count (deleting, moving, sharing a location). */
  readonly owningOrganizationOnly?: boolean;
}

export type Rules<D> = { readonly [K in keyof D]?: Rule<RequestOf<D[K]>> };

// What a row names, by the request field its id comes from (the id's shape is checked here, before any lookup).
export const org = (id: string, field = 'org_id'): ResourceRef => ({ kind: 'organization', id: requiredId(field, id), field });
export const location = (id: string, field = 'location_id'): ResourceRef => ({ kind: 'location', id: requiredId(field, id), field });
export const robot = (id: string, field = 'robot_id'): ResourceRef => ({ kind: 'robot', id: requiredId(field, id), field });
export const part = (id: string, field = 'robot_part_id'): ResourceRef => ({ kind: 'part', id: requiredId(field, id), field });
export const registry = (id: string, field: string, kind: 'registry' | 'module' | 'package' = 'registry'): ResourceRef => ({ kind, id: registryId(field, id), field });
export const trainingJob = (id: string, field = 'id'): ResourceRef => ({ kind: 'trainingJob', id: requiredId(field, id), field });
export const fragment = (id: string, field = 'fragment_id'): ResourceRef => ({ kind: 'fragment', id: requiredId(field, id), field });
/** For calls on nothing in particular. */
export const none = () => null;

/**
 * One service's table from its domains' rows. Two domains giving one operation a row is a mistake a
 * spread would hide (the later row would win without a word), so it throws at start instead.
 */
export function mergeRules<D>(...tables: readonly Rules<D>[]): Rules<D> {
  const merged: Record<string, unknown> = {};
  for (const table of tables) {
    for (const [name, rule] of Object.entries(table)) {
      if (name in merged) throw new Error(`"${name}" has a row in two domains' rules.ts: keep it in the domain that implements it`);
      merged[name] = rule;
    }
  }
  return merged as Rules<D>;
}
