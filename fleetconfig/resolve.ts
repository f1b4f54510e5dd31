/**
 * Resolving a config to its effective config: what a machine part runs once its fragments are
 * brought in. The order (docs/PROTOCOL.md, "Fragments", "How a config resolves"):
 *
 * 1. The config's own keys, in their order (`fragments` and `fragment_mods` are consumed, not kept).
 * 2. Its fragments, depth-first in the order listed: a fragment's own keys, then the fragments it
 *    nests, before the next fragment of the list. Each brings its config at the version asked for
 *    (absent: its latest revision). A prefix is prepended to the name of every block the fragment
 *    brings (and to their `depends_on` entries); a nested fragment's prefix adds to its parent's.
 *    Keys holding arrays are sections of blocks (`components`, `services`, `modules`, …): blocks are
 *    appended, and a block whose name the section already has is dropped (what came first wins, so
 *    a machine overrides a fragment's block by defining one of the same name). Other keys are
 *    fields: the first to set one wins.
 * 3. Then `fragment_mods`, in order: each `$set`/`$unset` of a dotted path
 *    (`components.lidar.attributes.rate_hz`: section, block name, then keys) changes only what its
 *    fragment (or a fragment it nests) brought.
 *
 * Nesting is bounded ({@link MAX_NESTING} levels below a part's config); a fragment that names
 * itself, a cycle, an unknown or unreadable fragment or version, and nesting past the bound are
 * reported as blocking issues (a service refuses to store such a config). Name clashes and mods that
 * change nothing are reported but do not block: a later edit of a fragment can cause them, and the
 * config must still resolve.
 *
 * Provenance says where every block and field came from, and what each mod changed (and whose value
 * it replaced), so a client can mark them.
 */
import { copyJson, isObject, setKey, type JsonObject, type JsonValue } from './json';
import { parseFragmentMods, parseFragments, quote, type FragmentRef, type Mod, type ModEntry } from './refs';

/** Deepest nesting of fragments below a part's config: a fragment it names is at level 1. */
export const MAX_NESTING = 5;

/** What a lookup of a fragment at a version answers. */
export type LookupResult =
  | {
      readonly found: true;
      /** The revision the version resolved to (`"3"`). */
      readonly revision: string;
      /** The fragment's config at that revision. */
      readonly config: JsonObject;
      /** For messages and clients; the id is used when absent. */
      readonly name?: string;
    }
  | {
      readonly found: false;
      /** `unknown`: no such fragment (or none the asker may know of); `unreadable`: it exists but this config's organization may not use it; `unknown-version`: no such revision or tag. */
      readonly reason: 'unknown' | 'unreadable' | 'unknown-version';
      readonly name?: string;
    };

/** Finds a fragment's config at a version (undefined: the latest revision). Must be pure for the duration of one resolution. */
export type FragmentLookup = (id: string, version: string | undefined) => LookupResult;

/** What an issue is about. */
export type IssueKind =
  | 'malformed'
  | 'unknown-fragment'
  | 'unreadable-fragment'
  | 'unknown-version'
  | 'self-reference'
  | 'cycle'
  | 'too-deep'
  | 'conflict'
  | 'mod-unused-fragment'
  | 'mod-not-applied';

/** Issues that make a config unfit to store: it could not resolve as written. */
export const BLOCKING_ISSUES: ReadonlySet<IssueKind> = new Set<IssueKind>(['malformed', 'unknown-fragment', 'unreadable-fragment', 'unknown-version', 'self-reference', 'cycle', 'too-deep']);

/** A problem found while resolving. */
export interface ConfigIssue {
  readonly kind: IssueKind;
  /** Where: a config path (`fragments[1]`), nested ones joined by ` › ` (`fragments[0] › fragments[2]`). */
  readonly path: string;
  /** One sentence a person can act on. */
  readonly message: string;
  /** The fragment the issue is about, if any. */
  readonly fragmentId?: string;
}

/** Where a block or field of the effective config came from. */
export type Source =
  | { readonly kind: 'own' }
  | {
      readonly kind: 'fragment';
      readonly fragmentId: string;
      readonly revision: string;
      /** Fragment ids from the one the config names down to this one (inclusive). */
      readonly chain: readonly string[];
    };

/** A fragment the config uses, at the revision it resolved to. */
export interface ResolvedFragment {
  readonly id: string;
  readonly name?: string;
  readonly revision: string;
  /** The version as the config asked for it (absent: the latest). */
  readonly version?: string;
  /** The prefix its blocks got: its own added to its parents'. */
  readonly prefix: string;
  /** 1 for a fragment the config names, 2 for one that fragment nests, … */
  readonly depth: number;
  /** Fragment ids from the top-level one down to this one (inclusive). */
  readonly chain: readonly string[];
  /** Where it is named, as in {@link ConfigIssue.path}. */
  readonly path: string;
}

/** Where one block of the effective config came from. */
export interface BlockProvenance {
  /** Its section (`components`) and index there. */
  readonly section: string;
  readonly index: number;
  /** Its name in the effective config (prefix applied), when it has one. */
  readonly name?: string;
  /** Its name in the config it came from, when a prefix changed it. */
  readonly originalName?: string;
  readonly source: Source;
}

/** Where one top-level field (a key that is not a section) came from. */
export interface FieldProvenance {
  readonly key: string;
  readonly source: Source;
}

/** What one `$set`/`$unset` of `fragment_mods` did. */
export interface ModOutcome {
  /** Index of its entry in `fragment_mods`. */
  readonly entry: number;
  readonly fragmentId: string;
  readonly op: Mod['op'];
  /** The dotted path it changes. */
  readonly path: string;
  /** Where it is in the config: `fragment_mods[0].mods[1]`. */
  readonly at: string;
  readonly applied: boolean;
  /** Why it was not applied. */
  readonly reason?: string;
  /** Whose value it replaced or removed (the block's or field's source), when applied. */
  readonly overrode?: Source;
  /** The value it replaced or removed; absent when there was none. */
  readonly previous?: JsonValue;
}

/** A resolved config: the effective config and how it came to be. */
export interface Resolution {
  readonly effective: JsonObject;
  /** Every fragment used, in resolution order (depth-first), each (id, revision, prefix) once. */
  readonly fragments: readonly ResolvedFragment[];
  readonly blocks: readonly BlockProvenance[];
  readonly fields: readonly FieldProvenance[];
  readonly mods: readonly ModOutcome[];
  readonly issues: readonly ConfigIssue[];
}

export interface ResolveOptions {
  /** The id of the fragment whose config this is: naming it is a self-reference, reaching it again a cycle. */
  readonly selfId?: string;
  /** That fragment's name, for messages. */
  readonly selfName?: string;
  /** The nesting level of the config itself: 0 for a part's config (the default), 1 for a fragment's. */
  readonly level?: number;
  /** Default {@link MAX_NESTING}. */
  readonly maxNesting?: number;
}

/** The keys a config uses to name fragments; they are consumed, not part of the effective config. */
const CONSUMED = new Set(['fragments', 'fragment_mods']);

interface Entry {
  source: Source;
  name?: string;
  originalName?: string;
}

/** Resolve `config` with fragments found through `lookup` (see the file comment for the order). */
export function resolveConfig(config: JsonObject, lookup: FragmentLookup, options: ResolveOptions = {}): Resolution {
  const maxNesting = options.maxNesting ?? MAX_NESTING;
  const issues: ConfigIssue[] = [];
  const effective: JsonObject = {};
  // Per section, the provenance of each block, kept parallel to effective[section].
  const sections = new Map<string, Entry[]>();
  const fields = new Map<string, Source>();
  const names = new Map<string, string>();
  if (options.selfId !== undefined && options.selfName !== undefined) names.set(options.selfId, options.selfName);
  const fragments: ResolvedFragment[] = [];
  const visited = new Set<string>();
  const own: Source = { kind: 'own' };

  const label = (id: string) => {
    const name = names.get(id);
    return name === undefined ? `fragment ${quote(id)}` : `fragment ${quote(name)} (${id})`;
  };
  const from = (source: Source) => (source.kind === 'own' ? 'the config itself' : `${label(source.fragmentId)} at revision ${source.revision}`);

  function add(content: JsonObject, source: Source, prefix: string): void {
    for (const [key, value] of Object.entries(content)) {
      if (CONSUMED.has(key)) continue;
      if (Array.isArray(value)) {
        if (Object.hasOwn(effective, key) && !sections.has(key)) {
          issues.push({ kind: 'conflict', path: key, message: `${from(source)} has a list ${quote(key)}, which ${from(fields.get(key) ?? own)} sets to a value that is not a list; the first is kept`, ...about(source) });
          continue;
        }
        let entries = sections.get(key);
        if (entries === undefined) {
          setKey(effective, key, []);
          sections.set(key, (entries = []));
        }
        const blocks = effective[key] as JsonValue[];
        for (const element of value) {
          const block = copyJson(element);
          if (isObject(block) && typeof block.name === 'string') {
            const originalName = block.name;
            const name = prefix + originalName;
            const clash = entries.find((e) => e.name === name);
            if (clash !== undefined) {
              issues.push({
                kind: 'conflict',
                path: `${key}.${name}`,
                message: `${key} ${quote(name)} from ${from(source)} is already defined by ${from(clash.source)}; the first one is kept`,
                ...about(source),
              });
              continue;
            }
            if (prefix !== '') {
              block.name = name;
              if (Array.isArray(block.depends_on)) block.depends_on = block.depends_on.map((d) => (typeof d === 'string' ? prefix + d : d));
            }
            blocks.push(block);
            entries.push(prefix === '' ? { source, name } : { source, name, originalName });
          } else {
            blocks.push(block);
            entries.push({ source });
          }
        }
      } else if (!Object.hasOwn(effective, key)) {
        setKey(effective, key, copyJson(value));
        fields.set(key, source);
      } else if (!sameJson(effective[key] ?? null, value)) {
        const earlier = sections.has(key) ? 'is a list of blocks already' : `${from(fields.get(key) ?? own)} sets to another value`;
        issues.push({ kind: 'conflict', path: key, message: `${from(source)} sets ${quote(key)}, which ${earlier}; the first is kept`, ...about(source) });
      }
    }
  }

  function visit(refs: readonly FragmentRef[], ancestors: readonly string[], chain: readonly string[], level: number, prefix: string, parentPath: string): void {
    for (const ref of refs) {
      const path = parentPath === '' ? ref.path : `${parentPath} › ${ref.path}`;
      const depth = level + 1;
      if (ref.id === options.selfId && ancestors.length === 1) {
        issues.push({ kind: 'self-reference', path, message: `${path} names the fragment itself; a fragment cannot include itself`, fragmentId: ref.id });
        continue;
      }
      const loop = ancestors.indexOf(ref.id);
      if (loop >= 0) {
        const circle = [...ancestors.slice(loop), ref.id].map(label).join(' → ');
        issues.push({ kind: 'cycle', path, message: `${path} forms a cycle of fragments: ${circle}; a fragment cannot include itself, directly or through others`, fragmentId: ref.id });
        continue;
      }
      if (depth > maxNesting) {
        const through = [...chain, ref.id].map(label).join(' → ');
        issues.push({
          kind: 'too-deep',
          path,
          message: `${path} nests fragments ${depth} levels deep (${through}); at most ${maxNesting} levels are allowed below a machine part's config`,
          fragmentId: ref.id,
        });
        continue;
      }
      const found = lookup(ref.id, ref.version);
      if (found.name !== undefined) names.set(ref.id, found.name);
      if (!found.found) {
        issues.push(missing(ref, path, found.reason, label(ref.id)));
        continue;
      }
      const key = `${ref.id}\u0000${found.revision}\u0000${prefix + ref.prefix}`;
      // A fragment reached twice (a diamond) at the same revision and prefix brings its blocks once.
      if (visited.has(key)) continue;
      visited.add(key);
      const here = [...chain, ref.id];
      const fragmentPrefix = prefix + ref.prefix;
      const resolved: ResolvedFragment = {
        id: ref.id,
        ...(found.name === undefined ? {} : { name: found.name }),
        revision: found.revision,
        ...(ref.version === undefined ? {} : { version: ref.version }),
        prefix: fragmentPrefix,
        depth,
        chain: here,
        path,
      };
      fragments.push(resolved);
      const source: Source = { kind: 'fragment', fragmentId: ref.id, revision: found.revision, chain: here };
      add(found.config, source, fragmentPrefix);
      const nested = parseFragments(found.config);
      for (const p of nested.problems) issues.push({ kind: 'malformed', path: `${path} › ${p.path}`, message: `${label(ref.id)} at revision ${found.revision}: ${p.message}`, fragmentId: ref.id });
      visit(nested.refs, [...ancestors, ref.id], here, depth, fragmentPrefix, path);
    }
  }

  add(config, own, '');
  const top = parseFragments(config);
  for (const p of top.problems) issues.push({ kind: 'malformed', path: p.path, message: p.message });
  const root = options.selfId === undefined ? [] : [options.selfId];
  visit(top.refs, root, [], options.level ?? 0, '', '');

  const parsedMods = parseFragmentMods(config);
  for (const p of parsedMods.problems) issues.push({ kind: 'malformed', path: p.path, message: p.message });
  const mods: ModOutcome[] = [];
  parsedMods.entries.forEach((entry, index) => applyEntry(entry, index));

  function applyEntry(entry: ModEntry, index: number): void {
    if (!fragments.some((f) => f.id === entry.fragmentId)) {
      const why = `${entry.path} changes ${label(entry.fragmentId)}, which this config does not use (directly or nested)`;
      issues.push({ kind: 'mod-unused-fragment', path: entry.path, message: `${why}; its mods are not applied`, fragmentId: entry.fragmentId });
      for (const mod of entry.mods) mods.push({ entry: index, fragmentId: entry.fragmentId, op: mod.op, path: mod.path, at: mod.at, applied: false, reason: why });
      return;
    }
    for (const mod of entry.mods) {
      const outcome = applyMod(mod, entry.fragmentId);
      const base = { entry: index, fragmentId: entry.fragmentId, op: mod.op, path: mod.path, at: mod.at };
      if (typeof outcome === 'string') {
        issues.push({ kind: 'mod-not-applied', path: mod.at, message: `${mod.at} (${mod.op} ${quote(mod.path)}) is not applied: ${outcome}`, fragmentId: entry.fragmentId });
        mods.push({ ...base, applied: false, reason: outcome });
      } else {
        mods.push({ ...base, applied: true, overrode: outcome.overrode, ...(outcome.previous === undefined ? {} : { previous: outcome.previous }) });
      }
    }
  }

  /** Apply one mod; a string says why it cannot be. */
  function applyMod(mod: Mod, fragmentId: string): string | { overrode: Source; previous?: JsonValue } {
    const [head = '', blockName = '', ...inside] = mod.path.split('.');
    const segments = mod.path.split('.');
    if (!Object.hasOwn(effective, head)) return `the effective config has no ${quote(head)}`;
    const owns = (source: Source) => source.kind === 'fragment' && source.chain.includes(fragmentId);
    const notFromFragment = (what: string, source: Source) => `${what} comes from ${from(source)}, not from ${label(fragmentId)} or a fragment it nests; a mod changes only what its fragment brings`;

    const entries = sections.get(head);
    if (entries !== undefined) {
      const blocks = effective[head] as JsonValue[];
      if (segments.length < 2) return `${quote(head)} is a list of blocks: name a block (${head}.<name>) and the key to change in it`;
      let at = entries.findIndex((e) => e.name === blockName);
      if (at < 0 && /^(0|[1-9][0-9]*)$/.test(blockName) && Number(blockName) < blocks.length) at = Number(blockName);
      const entry = entries[at];
      const block = blocks[at];
      if (entry === undefined || block === undefined) return `${head} has no block named ${quote(blockName)}`;
      if (!owns(entry.source)) return notFromFragment(`${head} ${quote(blockName)}`, entry.source);
      if (inside.length === 0) {
        if (mod.op === '$set') return `a mod changes keys inside a block (${head}.${blockName}.<key>); replace a whole block by defining one of the same name in the config itself`;
        blocks.splice(at, 1);
        entries.splice(at, 1);
        return { overrode: entry.source, previous: block };
      }
      return change(block, inside, `${head}.${blockName}`, mod, entry.source);
    }
    const source = fields.get(head) ?? own;
    if (!owns(source)) return notFromFragment(quote(head), source);
    const value = effective[head] ?? null;
    if (segments.length === 1) {
      if (mod.op === '$set') setKey(effective, head, copyJson(mod.value));
      else {
        Reflect.deleteProperty(effective, head);
        fields.delete(head);
      }
      return { overrode: source, previous: value };
    }
    return change(value, segments.slice(1), head, mod, source);
  }

  /** Set or unset `rest` inside `container` (reached by `where`). */
  function change(container: JsonValue, rest: readonly string[], where: string, mod: Mod, source: Source): string | { overrode: Source; previous?: JsonValue } {
    let node = container;
    let reached = where;
    for (const segment of rest.slice(0, -1)) {
      let next = child(node, segment);
      if (next === undefined) {
        if (mod.op === '$unset') return `there is nothing at ${quote(mod.path)} to unset`;
        if (Array.isArray(node)) return `${quote(reached)} is a list, and ${quote(segment)} is not an index of it`;
        if (!isObject(node)) return `${quote(reached)} is not an object, so nothing inside it can be changed`;
        next = {};
        setKey(node, segment, next);
      }
      if (typeof next !== 'object' || next === null) return `${quote(`${reached}.${segment}`)} is not an object, so nothing inside it can be changed`;
      node = next;
      reached = `${reached}.${segment}`;
    }
    const last = rest.at(-1) ?? '';
    const previous = child(node, last);
    if (Array.isArray(node)) {
      if (previous === undefined) return `${quote(reached)} is a list, and ${quote(last)} is not an index of it`;
      if (mod.op === '$set') node[Number(last)] = copyJson(mod.value);
      else node.splice(Number(last), 1);
      return { overrode: source, previous };
    }
    if (typeof node !== 'object' || node === null) return `${quote(reached)} is not an object`;
    if (mod.op === '$unset') {
      if (previous === undefined) return `there is nothing at ${quote(mod.path)} to unset`;
      Reflect.deleteProperty(node, last);
      return { overrode: source, previous };
    }
    setKey(node, last, copyJson(mod.value));
    return previous === undefined ? { overrode: source } : { overrode: source, previous };
  }

  const blocks: BlockProvenance[] = [];
  for (const [section, entries] of sections) {
    entries.forEach((e, index) => blocks.push({ section, index, ...(e.name === undefined ? {} : { name: e.name }), ...(e.originalName === undefined ? {} : { originalName: e.originalName }), source: e.source }));
  }
  return {
    effective,
    fragments,
    blocks,
    fields: [...fields].map(([key, source]) => ({ key, source })),
    mods,
    issues,
  };
}

/** The child of a JSON container at `segment` (a key, or an index of a list), if any. */
function child(node: JsonValue, segment: string): JsonValue | undefined {
  if (Array.isArray(node)) return /^(0|[1-9][0-9]*)$/.test(segment) ? node[Number(segment)] : undefined;
  if (isObject(node)) return Object.hasOwn(node, segment) ? node[segment] : undefined;
  return undefined;
}

function about(source: Source): { fragmentId?: string } {
  return source.kind === 'fragment' ? { fragmentId: source.fragmentId } : {};
}

function missing(ref: FragmentRef, path: string, reason: 'unknown' | 'unreadable' | 'unknown-version', label: string): ConfigIssue {
  switch (reason) {
    case 'unknown':
      return { kind: 'unknown-fragment', path, message: `${path} names ${label}, which does not exist or which this organization cannot read`, fragmentId: ref.id };
    case 'unreadable':
      return { kind: 'unreadable-fragment', path, message: `${path} names ${label}, which is private to another organization; only public fragments and the organization's own can be used`, fragmentId: ref.id };
    case 'unknown-version':
      return { kind: 'unknown-version', path, message: `${path} asks for version ${quote(ref.version ?? '')} of ${label}, which has no such revision or tag`, fragmentId: ref.id };
  }
}

/** Whether two JSON values are equal (key order does not matter). */
export function sameJson(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as JsonValue[];
    return a.length === other.length && a.every((v, i) => i in other && sameJson(v, other[i] ?? null));
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b as JsonObject);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && sameJson((a as JsonObject)[k] ?? null, (b as JsonObject)[k] ?? null));
}

/** The issues of a resolution that make its config unfit to store. */
export function blockingIssues(resolution: Pick<Resolution, 'issues'>): ConfigIssue[] {
  return resolution.issues.filter((i) => BLOCKING_ISSUES.has(i.kind));
}

/** A fragment as a client or a service holds it: enough to answer lookups. */
export interface KnownFragment {
  readonly id: string;
  readonly name?: string;
  /** The revision this entry holds. */
  readonly revision: string;
  readonly config: JsonObject;
  /** The fragment's latest revision. */
  readonly latestRevision: string;
  /** Its tags: name → revision. */
  readonly tags?: Readonly<Record<string, string>>;
}

/**
 * A lookup over fragments already at hand (e.g. what ListMachineFragments answers, which holds every
 * fragment a machine uses at the revision it resolves to, with the fragment's tags and latest
 * revision): a client resolves a machine's config with it, offline too. A version it cannot place is
 * `unknown-version`; an id it does not hold is `unknown`.
 */
export function lookupFrom(known: readonly KnownFragment[]): FragmentLookup {
  const byId = new Map<string, KnownFragment[]>();
  for (const f of known) byId.set(f.id, [...(byId.get(f.id) ?? []), f]);
  return (id, version) => {
    const all = byId.get(id);
    const any = all?.[0];
    if (all === undefined || any === undefined) return { found: false, reason: 'unknown' };
    const name = any.name === undefined ? {} : { name: any.name };
    let revision: string | undefined;
    if (version === undefined || version === '') revision = any.latestRevision;
    else if (/^[1-9][0-9]*$/.test(version)) revision = version;
    else revision = any.tags?.[version];
    const hit = revision === undefined ? undefined : all.find((f) => f.revision === revision);
    if (hit === undefined) return { found: false, reason: 'unknown-version', ...name };
    return { found: true, revision: hit.revision, config: hit.config, ...name };
  };
}
