/**
 * What a config says about fragments: its top-level `fragments` (the fragments it imports) and
 * `fragment_mods` (machine-level changes to what they bring), and the names of fragment versions
 * (revisions and tags). Parsing reports every problem with the config path it is at; nothing here
 * looks a fragment up.
 */
import { describe, isObject, type JsonObject, type JsonValue } from './json';

/** Longest fragment id a config may name (as the protocol bounds ids). */
export const MAX_FRAGMENT_ID_LENGTH = 200;
/** Longest prefix; a prefix is prepended to block names, which people read and type. */
export const MAX_PREFIX_LENGTH = 100;
/** Longest version (a revision number or a tag) a config may name. */
export const MAX_VERSION_LENGTH = 60;
/** Longest tag name. */
export const MAX_TAG_LENGTH = 60;

/** One entry of a config's `fragments`: an id, or an object with `id` and optional `version` and `prefix`. */
export interface FragmentRef {
  readonly id: string;
  /** A revision (`"3"`) or a tag (`"stable"`); absent tracks the latest revision. An empty string is absent. */
  readonly version?: string;
  /** Prepended to the name of every block the fragment brings (and to its `depends_on` entries); empty when absent. */
  readonly prefix: string;
  /** Where in the config it is: `fragments[2]`. */
  readonly path: string;
  /** Its position in the list (2 for `fragments[2]`). */
  readonly index: number;
}

/** One change of `fragment_mods`: `$set` a dotted path to a value, or `$unset` it. */
export type Mod =
  | { readonly op: '$set'; readonly path: string; readonly value: JsonValue; readonly at: string }
  | { readonly op: '$unset'; readonly path: string; readonly at: string };

/** One entry of `fragment_mods`: the changes a machine makes to what one fragment brings. */
export interface ModEntry {
  readonly fragmentId: string;
  readonly mods: readonly Mod[];
  /** Where in the config it is: `fragment_mods[0]`. */
  readonly path: string;
}

/** A problem found in the shape of a config, with the config path it is at. */
export interface ShapeProblem {
  readonly path: string;
  readonly message: string;
}

const CONTROL = /\p{Cc}/u;

/**
 * The `fragments` of a config, in order. An entry that is neither a non-empty id string nor an object
 * with `id` (and only `id`, `version`, `prefix`), a prefix with a dot (block names must stay
 * addressable by `fragment_mods` paths), or the same fragment named twice with the same prefix is a
 * problem; well-formed entries are returned even when others are not.
 */
export function parseFragments(config: JsonObject): { refs: FragmentRef[]; problems: ShapeProblem[] } {
  const refs: FragmentRef[] = [];
  const problems: ShapeProblem[] = [];
  if (!Object.hasOwn(config, 'fragments')) return { refs, problems };
  const list = config.fragments;
  if (!Array.isArray(list)) {
    problems.push({ path: 'fragments', message: `fragments must be an array of fragment ids or of objects {id, version?, prefix?}, not ${describe(list)}` });
    return { refs, problems };
  }
  const seen = new Map<string, string>();
  list.forEach((entry, i) => {
    const path = `fragments[${i}]`;
    const ref = parseRef(entry, path, i, problems);
    if (ref === undefined) return;
    const key = `${ref.id}\u0000${ref.prefix}`;
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      problems.push({ path, message: `${path} names fragment ${quote(ref.id)} again${ref.prefix === '' ? '' : ` with prefix ${quote(ref.prefix)}`}, as ${earlier} does; give one of them another prefix, or remove it` });
      return;
    }
    seen.set(key, path);
    refs.push(ref);
  });
  return { refs, problems };
}

function parseRef(entry: JsonValue | undefined, path: string, index: number, problems: ShapeProblem[]): FragmentRef | undefined {
  if (typeof entry === 'string') {
    const id = checkId(entry, path, problems);
    return id === undefined ? undefined : { id, prefix: '', path, index };
  }
  if (!isObject(entry)) {
    problems.push({ path, message: `${path} must be a fragment id or an object {id, version?, prefix?}, not ${describe(entry)}` });
    return undefined;
  }
  const unknown = Object.keys(entry).filter((k) => k !== 'id' && k !== 'version' && k !== 'prefix');
  if (unknown.length > 0) {
    problems.push({ path, message: `${path} has ${unknown.length === 1 ? 'an unknown key' : 'unknown keys'} ${unknown.map(quote).join(', ')}; a fragment entry has only id, version and prefix` });
    return undefined;
  }
  if (!Object.hasOwn(entry, 'id')) {
    problems.push({ path, message: `${path} has no id` });
    return undefined;
  }
  if (typeof entry.id !== 'string') {
    problems.push({ path: `${path}.id`, message: `${path}.id must be a string, not ${describe(entry.id)}` });
    return undefined;
  }
  const id = checkId(entry.id, `${path}.id`, problems);
  let version: string | undefined;
  if (Object.hasOwn(entry, 'version') && entry.version !== null) {
    if (typeof entry.version !== 'string') {
      problems.push({ path: `${path}.version`, message: `${path}.version must be a string (a revision such as "3", or a tag), not ${describe(entry.version)}` });
      return undefined;
    }
    if (entry.version.length > MAX_VERSION_LENGTH || CONTROL.test(entry.version)) {
      problems.push({ path: `${path}.version`, message: `${path}.version must be a revision or a tag of at most ${MAX_VERSION_LENGTH} characters` });
      return undefined;
    }
    if (entry.version !== '') version = entry.version;
  }
  let prefix = '';
  if (Object.hasOwn(entry, 'prefix') && entry.prefix !== null) {
    if (typeof entry.prefix !== 'string') {
      problems.push({ path: `${path}.prefix`, message: `${path}.prefix must be a string, not ${describe(entry.prefix)}` });
      return undefined;
    }
    if (entry.prefix.length > MAX_PREFIX_LENGTH || entry.prefix.includes('.') || CONTROL.test(entry.prefix)) {
      problems.push({ path: `${path}.prefix`, message: `${path}.prefix must be at most ${MAX_PREFIX_LENGTH} characters without dots or control characters (it becomes part of block names, which fragment_mods paths separate with dots)` });
      return undefined;
    }
    prefix = entry.prefix;
  }
  if (id === undefined) return undefined;
  return version === undefined ? { id, prefix, path, index } : { id, version, prefix, path, index };
}

function checkId(id: string, path: string, problems: ShapeProblem[]): string | undefined {
  if (id === '') {
    problems.push({ path, message: `${path} is an empty fragment id` });
    return undefined;
  }
  if (id.length > MAX_FRAGMENT_ID_LENGTH || CONTROL.test(id)) {
    problems.push({ path, message: `${path} is not a fragment id (at most ${MAX_FRAGMENT_ID_LENGTH} characters, no control characters)` });
    return undefined;
  }
  return id;
}

/**
 * The `fragment_mods` of a config: `[{fragment_id, mods: [{"$set": {path: value, …}}, {"$unset":
 * {path: "", …}}]}]`, each path dotted (`components.lidar.attributes.rate_hz`).
 */
export function parseFragmentMods(config: JsonObject): { entries: ModEntry[]; problems: ShapeProblem[] } {
  const entries: ModEntry[] = [];
  const problems: ShapeProblem[] = [];
  if (!Object.hasOwn(config, 'fragment_mods')) return { entries, problems };
  const list = config.fragment_mods;
  if (!Array.isArray(list)) {
    problems.push({ path: 'fragment_mods', message: `fragment_mods must be an array of {fragment_id, mods}, not ${describe(list)}` });
    return { entries, problems };
  }
  list.forEach((entry, i) => {
    const path = `fragment_mods[${i}]`;
    if (!isObject(entry)) {
      problems.push({ path, message: `${path} must be an object {fragment_id, mods}, not ${describe(entry)}` });
      return;
    }
    const unknown = Object.keys(entry).filter((k) => k !== 'fragment_id' && k !== 'mods');
    if (unknown.length > 0) {
      problems.push({ path, message: `${path} has ${unknown.length === 1 ? 'an unknown key' : 'unknown keys'} ${unknown.map(quote).join(', ')}; an entry has only fragment_id and mods` });
      return;
    }
    const fragmentId = entry.fragment_id;
    if (typeof fragmentId !== 'string' || fragmentId === '') {
      problems.push({ path: `${path}.fragment_id`, message: `${path}.fragment_id must name a fragment the config uses` });
      return;
    }
    if (!Array.isArray(entry.mods)) {
      problems.push({ path: `${path}.mods`, message: `${path}.mods must be an array of {"$set": {…}} and {"$unset": {…}}, not ${describe(entry.mods)}` });
      return;
    }
    const mods: Mod[] = [];
    let broken = false;
    entry.mods.forEach((mod, j) => {
      const at = `${path}.mods[${j}]`;
      const keys = isObject(mod) ? Object.keys(mod) : [];
      const op = keys[0];
      if (!isObject(mod) || keys.length !== 1 || (op !== '$set' && op !== '$unset')) {
        problems.push({ path: at, message: `${at} must be an object with one key, "$set" or "$unset"` });
        broken = true;
        return;
      }
      const changes = mod[op];
      if (!isObject(changes)) {
        problems.push({ path: `${at}.${op}`, message: `${at}.${op} must be an object of dotted paths, not ${describe(changes)}` });
        broken = true;
        return;
      }
      for (const [target, value] of Object.entries(changes)) {
        const problem = pathProblem(target);
        if (problem !== undefined) {
          problems.push({ path: `${at}.${op}`, message: `${at}.${op} has the path ${quote(target)}: ${problem}` });
          broken = true;
          continue;
        }
        mods.push(op === '$set' ? { op, path: target, value, at } : { op, path: target, at });
      }
    });
    if (!broken) entries.push({ fragmentId, mods, path });
  });
  return { entries, problems };
}

function pathProblem(path: string): string | undefined {
  if (path === '') return 'a path must not be empty';
  if (path.split('.').some((s) => s === '')) return 'a path is names joined by single dots, with none empty';
  if (CONTROL.test(path)) return 'a path must not contain control characters';
  return undefined;
}

/** How a version names a revision: absent or empty is the latest, digits a revision, anything else a tag. */
export type VersionKind = { readonly kind: 'latest' } | { readonly kind: 'revision'; readonly revision: number } | { readonly kind: 'tag'; readonly tag: string };

/** What a version string means (revisions are whole numbers from 1; tags never start with a digit). */
export function versionKind(version: string | undefined): VersionKind {
  if (version === undefined || version === '') return { kind: 'latest' };
  if (/^[1-9][0-9]{0,14}$/.test(version)) return { kind: 'revision', revision: Number(version) };
  return { kind: 'tag', tag: version };
}

const TAG = /^[a-uw-z_-][a-z0-9_-]*$/;

/**
 * Why `tag` cannot name a revision, or undefined when it can: lowercase letters, digits, `-` and `_`,
 * at most {@link MAX_TAG_LENGTH} characters, not starting with a digit (so it never reads as a
 * revision) or with `v` (so `v2` is never taken for revision 2).
 */
export function tagProblem(tag: string): string | undefined {
  if (tag === '') return 'a tag must not be empty';
  if (tag.length > MAX_TAG_LENGTH) return `a tag is at most ${MAX_TAG_LENGTH} characters`;
  if (!/^[a-z0-9_-]+$/.test(tag)) return 'a tag holds only lowercase letters, digits, "-" and "_"';
  if (!TAG.test(tag)) return 'a tag must not start with a digit or with "v" (so it never reads as a revision)';
  return undefined;
}

/** `value` in double quotes, shortened when long: for messages. */
export function quote(value: string): string {
  return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
}
