import { create, type Delta } from 'jsondiffpatch';

/**
 * What changed between two configs, per section, for history lists: "components: +camera-2, ~base
 * (2 fields); fragments: -lidar". Resources are matched by name (components, services, modules,
 * packages), processes by id, fragments by id and fragment mods by fragment id, so a component
 * moved in its list or edited in place reads as itself, not as one removed and another added.
 *
 * The sections' lists are turned into objects keyed by name before jsondiffpatch compares them: its
 * array matching is a longest-common-subsequence over a full matrix, which for 5,000 components
 * would be 25 million cells; keyed objects compare in one pass.
 */

/** One item of a section that changed. */
export interface ItemChange {
  readonly kind: 'added' | 'removed' | 'changed';
  /** The resource's name (or id); `#3` for an entry without one, by its position. */
  readonly name: string;
  /** For a changed item: how many values in it changed (added, removed or replaced). */
  readonly fields?: number;
}

/** What happened to one top-level section. */
export interface SectionChange {
  readonly section: string;
  readonly kind: 'added' | 'removed' | 'changed';
  /** For list sections: the entries added, removed, changed. */
  readonly items: readonly ItemChange[];
  /** For other sections (network, auth, unknown keys): how many values in it changed. */
  readonly fields?: number;
  /** Whether the entries (the same ones) are in another order. */
  readonly reordered?: boolean;
}

/** How each list section's entries are told apart. */
const KEYS: Readonly<Record<string, (entry: unknown) => string | undefined>> = {
  components: (e) => field(e, 'name'),
  services: (e) => field(e, 'name'),
  modules: (e) => field(e, 'name') ?? field(e, 'module_id'),
  packages: (e) => field(e, 'name'),
  processes: (e) => field(e, 'id'),
  fragments: (e) => (typeof e === 'string' ? e : field(e, 'id')),
  fragment_mods: (e) => field(e, 'fragment_id'),
};

function field(entry: unknown, key: string): string | undefined {
  const value = entry !== null && typeof entry === 'object' && !Array.isArray(entry) ? (entry as Record<string, unknown>)[key] : undefined;
  return typeof value === 'string' ? value : undefined;
}

/** A list section as an object keyed by each entry's name (a repeated name gets " (2)"), and its names in order. */
function keyed(section: string, entries: readonly unknown[]): { byName: Record<string, unknown>; order: string[] } {
  const byName: Record<string, unknown> = {};
  const order: string[] = [];
  entries.forEach((entry, i) => {
    const base = KEYS[section]?.(entry) ?? `#${i}`;
    let name = base;
    for (let n = 2; Object.hasOwn(byName, name); n++) name = `${base} (${n})`;
    byName[name] = entry;
    order.push(name);
  });
  return { byName, order };
}

const differ = create({
  // Lists inside entries (depends_on, mods, handlers) are short: matched by content where they hold objects.
  objectHash: (item) => JSON.stringify(item),
  arrays: { detectMove: false },
});

/** How many values a delta adds, removes or replaces. */
function countFields(delta: Delta): number {
  if (delta === undefined) return 0;
  if (Array.isArray(delta)) return 1;
  let n = 0;
  for (const [key, value] of Object.entries(delta)) if (key !== '_t') n += countFields(value as Delta);
  return n;
}

const isList = (value: unknown): value is unknown[] => Array.isArray(value);

/** The sections' changes between two config values (parsed JSON objects). */
export function describeChanges(before: Record<string, unknown>, after: Record<string, unknown>): SectionChange[] {
  const changes: SectionChange[] = [];
  const sections = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  for (const section of sections) {
    const [was, now] = [before[section], after[section]];
    const had = Object.hasOwn(before, section);
    const has = Object.hasOwn(after, section);
    if (section in KEYS && (isList(was) || !had) && (isList(now) || !has)) {
      const old = keyed(section, isList(was) ? was : []);
      const fresh = keyed(section, isList(now) ? now : []);
      const delta = differ.diff(old.byName, fresh.byName) as Record<string, Delta> | undefined;
      const items: ItemChange[] = [];
      for (const [name, change] of Object.entries(delta ?? {})) {
        if (Array.isArray(change) && change.length === 1) items.push({ kind: 'added', name });
        else if (Array.isArray(change) && change.length === 3 && change[2] === 0) items.push({ kind: 'removed', name });
        else items.push({ kind: 'changed', name, fields: countFields(change) });
      }
      // In the order of the lists (a removed entry where it was), not jsondiffpatch's.
      const position = new Map([...old.order.map((name, i) => [name, i] as const), ...fresh.order.map((name, i) => [name, i] as const)]);
      items.sort((x, y) => (position.get(x.name) ?? 0) - (position.get(y.name) ?? 0));
      const common = new Set(fresh.order.filter((name) => Object.hasOwn(old.byName, name)));
      const reordered = old.order.filter((n) => common.has(n)).join('\n') !== fresh.order.filter((n) => common.has(n)).join('\n');
      if (items.length === 0 && !reordered && had === has) continue;
      changes.push({ section, kind: !had ? 'added' : !has ? 'removed' : 'changed', items, ...(reordered ? { reordered } : {}) });
      continue;
    }
    const delta = differ.diff(was, now);
    if (delta === undefined) continue;
    changes.push({ section, kind: !had ? 'added' : !has ? 'removed' : 'changed', items: [], fields: countFields(delta) });
  }
  return changes;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** One section's change as a phrase ("components: +camera-2, ~base (2 fields)"). */
export function sectionPhrase(change: SectionChange, maxItems = 4): string {
  if (change.items.length === 0) {
    if (change.kind === 'added') return `${change.section}: added`;
    if (change.kind === 'removed') return `${change.section}: removed`;
    if (change.reordered) return `${change.section}: reordered`;
    return `${change.section} (${plural(change.fields ?? 0, 'field')})`;
  }
  const sign = { added: '+', removed: '-', changed: '~' } as const;
  const shown = change.items.slice(0, maxItems).map((item) => `${sign[item.kind]}${item.name}${item.kind === 'changed' ? ` (${plural(item.fields ?? 0, 'field')})` : ''}`);
  const more = change.items.length - shown.length;
  return `${change.section}: ${shown.join(', ')}${more > 0 ? `, and ${more} more` : ''}${change.reordered ? ', reordered' : ''}`;
}

/**
 * The one-line summary of what changed from `before` to `after` (config texts). Says so when the
 * values are the same but the text is not (layout only), and when either is not a JSON object.
 */
export function summarizeChange(before: string, after: string, maxItems = 4): string {
  if (before === after) return 'No changes';
  const [was, now] = [parseObject(before), parseObject(after)];
  if (!was || !now) return now ? 'Config was not valid JSON; now it is' : 'Config is not valid JSON';
  const changes = describeChanges(was, now);
  if (changes.length === 0) return 'Layout only (the same values)';
  return changes.map((c) => sectionPhrase(c, maxItems)).join('; ');
}

/**
 * Whether two config texts hold the same values, whatever their layout: a history entry's config is
 * main's writing of a structure, so a change of the part's name or flags reads as a layout change of
 * its text, which is no change of the config.
 */
export function sameConfigValues(before: string, after: string): boolean {
  if (before === after) return true;
  const [was, now] = [parseObject(before), parseObject(after)];
  return was !== null && now !== null && describeChanges(was, now).length === 0;
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = text.trim() === '' ? {} : JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
