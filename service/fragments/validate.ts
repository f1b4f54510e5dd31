/**
 * The request-shape checks of the fragment operations beyond the shared ones (validate.ts): configs,
 * visibilities, page limits, tags and revisions. Shape only: whether a config's fragments resolve is
 * the handler's question (it needs the store).
 */
import { checkConfigValue, MAX_CONFIG_BYTES, tagProblem, type JsonObject } from '../../fleetconfig';
import { FragmentVisibility } from '../../proto/gen/fleet/app/v1/fragments';
import { invalidArgument, Reason } from '../errors';
import { pageSize } from '../paging';
import { idList, MAX_ID_LENGTH } from '../validate';

/** GetFragmentHistory pages: the spec's default of 10, at most 100 (PROTOCOL.md section 7). */
export const HISTORY_PAGE = { size: 10, max: 100 };

/** A fragment config to store (absent: an empty object): a JSON object within the config bounds, without `fragment_mods` (mods are a part's). */
export function fragmentConfig(field: string, config: { [key: string]: unknown } | undefined): { config: JsonObject; text: string } {
  const check = checkConfigValue(config ?? {});
  if (!check.ok) throw invalidArgument(field, Reason.CONFIG_INVALID, `${field} is not a config a fragment can have: ${check.message}`);
  if (Object.hasOwn(check.config, 'fragment_mods')) {
    throw invalidArgument(field, Reason.CONFIG_INVALID, `${field} has fragment_mods, which only a machine part's config may have (a fragment changes what it nests by its own content)`);
  }
  const text = JSON.stringify(check.config);
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_CONFIG_BYTES) throw invalidArgument(field, Reason.CONFIG_INVALID, `${field} is ${(bytes / 1048576).toFixed(2)} MiB as JSON; at most ${MAX_CONFIG_BYTES / 1048576} MiB may be stored`);
  return { config: check.config, text };
}

const KNOWN = new Set<number>([FragmentVisibility.FRAGMENT_VISIBILITY_PRIVATE, FragmentVisibility.FRAGMENT_VISIBILITY_PUBLIC]);

/** A visibility that must name one (filters, UpdateFragment's when present). */
export function knownVisibility(field: string, value: number): FragmentVisibility {
  if (!KNOWN.has(value)) throw invalidArgument(field, Reason.ENUM_VALUE_INVALID, `${field} must be FRAGMENT_VISIBILITY_PRIVATE (1) or FRAGMENT_VISIBILITY_PUBLIC (2), not ${value}`);
  return value;
}

/** CreateFragment's visibility: UNSPECIFIED makes a private fragment. */
export function newVisibility(value: number): FragmentVisibility {
  return value === FragmentVisibility.FRAGMENT_VISIBILITY_UNSPECIFIED ? FragmentVisibility.FRAGMENT_VISIBILITY_PRIVATE : knownVisibility('visibility', value);
}

/**
 * UpdateFragment's visibility: `visibility` when present; else the deprecated `public` when present
 * (true ↔ PUBLIC, false ↔ PRIVATE); both present must agree; neither leaves it unchanged (undefined).
 */
export function updatedVisibility(request: { readonly visibility?: number; readonly public?: boolean }): FragmentVisibility | undefined {
  const given = request.visibility === undefined ? undefined : knownVisibility('visibility', request.visibility);
  const legacy = request.public === undefined ? undefined : request.public ? FragmentVisibility.FRAGMENT_VISIBILITY_PUBLIC : FragmentVisibility.FRAGMENT_VISIBILITY_PRIVATE;
  if (given !== undefined && legacy !== undefined && given !== legacy) {
    throw invalidArgument('public', Reason.VISIBILITY_CONFLICT, `public (deprecated) is ${String(request.public)} but visibility is ${FragmentVisibility[given]}; send visibility alone`);
  }
  return given ?? legacy;
}

/** GetFragmentHistory's page_limit: 0 is the default of 10, at most 100; negative is refused. */
export function historyPageLimit(value: number): number {
  return pageSize('page_limit', value, HISTORY_PAGE);
}

/** A tag to set or delete (fleetconfig/refs.ts has the rule). */
export function tagName(value: string): string {
  const problem = tagProblem(value);
  if (problem === undefined) return value;
  const reason = value === '' ? Reason.REQUIRED_FIELD_MISSING : value.length > 60 ? Reason.FIELD_TOO_LONG : Reason.FIELD_INVALID;
  throw invalidArgument('tag', reason, `tag ${JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)} cannot name a revision: ${problem}`);
}

/** SetFragmentTag's revision: a revision number, or empty for the latest. */
export function revisionNumber(value: string): number | undefined {
  if (value === '') return undefined;
  if (!/^[1-9][0-9]{0,14}$/.test(value)) throw invalidArgument('revision', Reason.FIELD_INVALID, `revision must be a revision number such as "3" (or empty for the latest), not ${JSON.stringify(value.slice(0, 60))}`);
  return Number(value);
}

/** GetFragment's version: a revision or a tag, empty for the latest; bounded like an id. */
export function versionName(value: string): string {
  if ([...value].length > MAX_ID_LENGTH) throw invalidArgument('version', Reason.FIELD_TOO_LONG, `version must be at most ${MAX_ID_LENGTH} characters`);
  return value;
}

/** Most additional fragments ListMachineFragments resolves in one call (each is resolved with what it nests). */
export const MAX_ADDITIONAL_FRAGMENTS = 100;

/** ListMachineFragments' additional_fragment_ids: ids, at most {@link MAX_ADDITIONAL_FRAGMENTS}. */
export function additionalIds(ids: readonly string[]): string[] {
  if (ids.length > MAX_ADDITIONAL_FRAGMENTS) {
    throw invalidArgument('additional_fragment_ids', Reason.FIELD_INVALID, `additional_fragment_ids names ${ids.length} fragments; at most ${MAX_ADDITIONAL_FRAGMENTS} may be asked for at once`);
  }
  return idList('additional_fragment_ids', ids);
}
