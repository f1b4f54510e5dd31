/**
 * Resolving configs against the stored fragments (fleetconfig does the resolving; this answers its
 * lookups): which fragments an organization's configs may use, at which revision a version is, and
 * what a config that does not resolve is told.
 */
import { blockingIssues, resolveConfig, type ConfigIssue, type FragmentLookup, type JsonObject, type LookupResult } from '../../fleetconfig';
import { FragmentVisibility } from '../../proto/gen/fleet/app/v1/fragments';
import type { Grant } from '../permissions/engine';
import type { FragmentStore } from './store';

/**
 * Lookups for configs of organization `orgId` (a part's, whose organization owns its location; or a
 * fragment's), as told to a caller holding `grants`. A config may use public fragments and its
 * organization's own. A private fragment of another organization is "unreadable" when the caller has
 * a role on that organization (it sees the fragment anyway) and "unknown" otherwise, exactly as a
 * fragment that does not exist: an id's existence never leaks to a caller who may not see it.
 */
export function fragmentLookup(store: FragmentStore, orgId: string, grants: readonly Grant[], options: { readonly alsoReadable?: ReadonlySet<string> } = {}): FragmentLookup {
  const memo = new Map<string, LookupResult>();
  return (id, version) => {
    const key = `${id}\u0000${version ?? ''}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    const answer = lookup(store, orgId, grants, id, version, options.alsoReadable?.has(id) ?? false);
    memo.set(key, answer);
    return answer;
  };
}

/** Whether a caller holding `grants` sees fragment `row`: public, or a role on its organization itself. */
export function callerSees(grants: readonly Grant[], row: { readonly visibility: number; readonly organization_id: string }): boolean {
  return row.visibility === FragmentVisibility.FRAGMENT_VISIBILITY_PUBLIC || grants.some((g) => g.resourceType === 'organization' && g.resourceId === row.organization_id);
}

function lookup(store: FragmentStore, orgId: string, grants: readonly Grant[], id: string, version: string | undefined, readable: boolean): LookupResult {
  const row = store.get(id);
  if (row === undefined) return { found: false, reason: 'unknown' };
  if (!readable && row.visibility !== FragmentVisibility.FRAGMENT_VISIBILITY_PUBLIC && row.organization_id !== orgId) {
    return callerSees(grants, row) ? { found: false, reason: 'unreadable', name: row.name } : { found: false, reason: 'unknown' };
  }
  const revision = store.revisionOf(id, version);
  const stored = revision === undefined ? undefined : store.revision(id, revision);
  if (stored === undefined) return { found: false, reason: 'unknown-version', name: row.name };
  return { found: true, revision: String(stored.revision), config: JSON.parse(stored.config_json) as JsonObject, name: row.name };
}

/**
 * The blocking issues of `config` stored for organization `orgId`: a part's (level 0) or, with `self`,
 * fragment `self.id`'s own (level 1: what it nests counts from there).
 */
export function configIssues(store: FragmentStore, config: JsonObject, orgId: string, grants: readonly Grant[], self?: { readonly id?: string; readonly name: string }): ConfigIssue[] {
  const options = self === undefined ? {} : { ...(self.id === undefined ? {} : { selfId: self.id }), selfName: self.name, level: 1 };
  return blockingIssues(resolveConfig(config, fragmentLookup(store, orgId, grants), options));
}
