/**
 * A part's effective config, resolved in main with fleetconfig (the service answers none of its
 * own): from the fragments the machine uses as ListMachineFragments answered (what the service says
 * every stored config of the machine resolves with), plus what that list cannot hold — fragments an
 * unsaved edit names, a revision a previewed tag move points at — fetched one by one while online.
 */
import type { ConfigPreview, MachineFragment } from '../../common/config';
import { lookupFrom, resolveConfig, type FragmentLookup, type JsonObject, type KnownFragment, type LookupResult, type Resolution } from '../../fleetconfig';

/** Rounds of fetching what a resolution missed: each may reveal one more level of nesting, and nesting is at most 5 deep. */
const MAX_ROUNDS = 6;
/** Fragment versions fetched at most for one resolution. */
export const MAX_FETCHED = 100;

/** A fragment at one revision, as fleetconfig's lookup takes it. */
export function knownFrom(f: Pick<MachineFragment, 'id' | 'name' | 'revision' | 'config' | 'revisions' | 'tags'>): KnownFragment {
  return {
    id: f.id,
    name: f.name,
    revision: f.revision,
    config: f.config,
    latestRevision: f.revisions.at(-1)?.revision ?? f.revision,
    tags: Object.fromEntries(f.tags.map((t) => [t.tag, t.revision])),
  };
}

/**
 * The lookup with a previewed change applied: a config for the fragment's next revision, which
 * those tracking its latest get (a pinned revision or a tag stays where it is); or a tag moved to
 * another revision, which those asking for the tag get.
 */
export function previewing(lookup: FragmentLookup, preview: ConfigPreview | undefined, known: readonly KnownFragment[]): FragmentLookup {
  if (preview === undefined) return lookup;
  return (id, version) => {
    if (id !== preview.fragmentId) return lookup(id, version);
    if (preview.configJson !== undefined && (version === undefined || version === '')) {
      const latest = known.find((k) => k.id === id)?.latestRevision;
      const name = known.find((k) => k.id === id)?.name;
      return {
        found: true,
        // The revision the save will make, unless someone else saves first.
        revision: latest === undefined ? 'next' : String(Number(latest) + 1),
        config: JSON.parse(preview.configJson) as JsonObject,
        ...(name === undefined ? {} : { name }),
      };
    }
    if (preview.tag !== undefined && preview.revision !== undefined && version === preview.tag) return lookup(id, preview.revision);
    return lookup(id, version);
  };
}

/** Fetches one fragment at a version; null when the service has none the part may use (its resolution then says so). */
export type FetchFragment = (id: string, version: string | undefined) => Promise<KnownFragment | null>;

/** Resolve `config` with the fragments at hand only (offline). */
export function resolveKnown(config: JsonObject, known: readonly KnownFragment[], preview: ConfigPreview | undefined): Resolution {
  return resolveConfig(config, previewing(lookupFrom(known), preview, known));
}

/**
 * Resolve `config` with `known`, fetching (when `fetch` is given) the fragment versions it misses and
 * resolving again, until nothing new is missing or the bounds are reached. Answers the resolution
 * and every fragment version it was resolved with.
 */
export async function resolveWith(config: JsonObject, known: readonly KnownFragment[], preview: ConfigPreview | undefined, fetch?: FetchFragment): Promise<{ resolution: Resolution; known: KnownFragment[] }> {
  const all = [...known];
  const tried = new Set<string>();
  let fetched = 0;
  for (let round = 0; ; round++) {
    const missed = new Map<string, { id: string; version: string | undefined }>();
    const base = lookupFrom(all);
    const recording: FragmentLookup = (id, version): LookupResult => {
      const found = base(id, version);
      const key = `${id}\u0000${version ?? ''}`;
      if (!found.found && !tried.has(key)) missed.set(key, { id, version });
      return found;
    };
    const resolution = resolveConfig(config, previewing(recording, preview, all));
    if (fetch === undefined || missed.size === 0 || round + 1 >= MAX_ROUNDS || fetched >= MAX_FETCHED) return { resolution, known: all };
    for (const [key, { id, version }] of missed) {
      if (fetched >= MAX_FETCHED) break;
      tried.add(key);
      fetched += 1;
      const found = await fetch(id, version);
      if (found !== null) all.push(found);
    }
  }
}
