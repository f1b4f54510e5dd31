/**
 * The fleet tree's model, free of Svelte state: node references and keys, an organization's tree
 * indexed for drawing (children by parent, machines by location, machine counts), paths and
 * ancestors. Plain maps: they are built once per tree and never changed.
 */
import type { FleetTree, TreeLocation } from '../../../../common/locations';
import type { TreeMachine, TreePart } from '../../../../common/machines';
import type { IsoTime } from '../../../../common/schemas';

/** What a row of the fleet tree stands for. */
export type NodeKind = 'org' | 'location' | 'machine' | 'part';

/** A node of the fleet, by the organization whose tree shows it (a shared location is in two). */
export interface NodeRef {
  readonly kind: NodeKind;
  readonly orgId: string;
  readonly id: string;
}

/** One visible row of the tree. */
export interface FleetRow {
  readonly key: string;
  readonly ref: NodeRef;
  readonly label: string;
  readonly level: number;
  readonly parentKey: string | null;
  readonly expandable: boolean;
  readonly expanded: boolean;
  /** Position among its siblings (1-based) and how many they are, for aria-posinset/setsize. */
  readonly posinset: number;
  readonly setsize: number;
  /** Locations: machines inside, at any depth; organizations: all their machines. */
  readonly count?: number;
  /** A location shared into this organization by another one. */
  readonly shared?: boolean;
  /** Machines: their parts; parts: themselves (for liveness). */
  readonly parts?: readonly TreePart[];
  /** Parts: the main part of their machine. */
  readonly main?: boolean;
  /** Where the search query matches the label: [start, end). */
  readonly match?: readonly [number, number];
}

export const nodeKey = (ref: NodeRef): string => `${ref.kind}:${ref.orgId}:${ref.id}`;

export function parseKey(key: string): NodeRef | null {
  const [kind, orgId, ...rest] = key.split(':');
  const id = rest.join(':');
  if ((kind === 'org' || kind === 'location' || kind === 'machine' || kind === 'part') && orgId && id) return { kind, orgId, id };
  return null;
}

/** An organization's tree, indexed for drawing. */
export interface TreeIndex {
  readonly tree: FleetTree;
  readonly locations: ReadonlyMap<string, TreeLocation>;
  readonly machines: ReadonlyMap<string, TreeMachine>;
  /** Part id → its machine. */
  readonly partMachine: ReadonlyMap<string, TreeMachine>;
  /** Locations by parent ('' for the top level, which also takes locations whose parent is not in this tree). */
  readonly children: ReadonlyMap<string, readonly TreeLocation[]>;
  readonly machinesIn: ReadonlyMap<string, readonly TreeMachine[]>;
  /** Machines inside each location, at any depth. */
  readonly counts: ReadonlyMap<string, number>;
  /**
   * Every location, machine and part in drawing order (depth first, locations before machines, by
   * name), built once per tree: drawing rows and searching walk this array instead of the maps.
   */
  readonly flat: readonly FlatNode[];
  /**
   * The same order as parallel arrays of plain values, for the loops that visit every node on each
   * keystroke (search): no object to load, one shape.
   */
  readonly lowers: readonly string[];
  /** Parent index per node (-1 at the top level). */
  readonly parents: Int32Array;
  /** Index just past each node's subtree. */
  readonly ends: Int32Array;
  /** Per node: EXPANDABLE | MACHINE bits. */
  readonly flags: Uint8Array;
}

/** Bits of `TreeIndex.flags`. */
export const EXPANDABLE = 1;
export const MACHINE = 2;

/** A node of an organization's tree in drawing order: what its row shows whatever the view, and where it is. */
export interface FlatNode extends Pick<FleetRow, 'ref' | 'key' | 'label' | 'expandable' | 'posinset' | 'setsize' | 'count' | 'shared' | 'parts' | 'main'> {
  /** The label lower-cased, for search. */
  readonly lower: string;
  /** 0 for a top-level location; +1 per level down. */
  readonly depth: number;
  /** Index of the parent in `flat`, -1 at the top level. */
  readonly parent: number;
  /** Index just past this node's subtree. */
  readonly end: number;
}

/** Names in the order people expect: "amr-9" before "amr-10", case and accents aside. */
export const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });
export const byName = (a: { name: string }, b: { name: string }): number => collator.compare(a.name, b.name);

export function indexTree(tree: FleetTree): TreeIndex {
  const locations = new Map(tree.locations.map((l) => [l.id, l]));
  const machines = new Map(tree.machines.map((m) => [m.id, m]));
  const partMachine = new Map<string, TreeMachine>();
  for (const m of tree.machines) for (const p of m.parts) partMachine.set(p.id, m);
  const children = new Map<string, TreeLocation[]>();
  for (const l of tree.locations) {
    const parent = l.parentLocationId !== '' && locations.has(l.parentLocationId) ? l.parentLocationId : '';
    let list = children.get(parent);
    if (!list) children.set(parent, (list = []));
    list.push(l);
  }
  const machinesIn = new Map<string, TreeMachine[]>();
  for (const m of tree.machines) {
    let list = machinesIn.get(m.locationId);
    if (!list) machinesIn.set(m.locationId, (list = []));
    list.push(m);
  }
  const counts = new Map<string, number>();
  const count = (id: string): number => {
    const known = counts.get(id);
    if (known !== undefined) return known;
    counts.set(id, 0); // a cycle (never from a well-behaved service) counts once
    const n = (machinesIn.get(id)?.length ?? 0) + (children.get(id) ?? []).reduce((sum, c) => sum + count(c.id), 0);
    counts.set(id, n);
    return n;
  };
  for (const l of tree.locations) count(l.id);
  // Sorted once here: drawing the tree and every keystroke of a search read them in this order.
  for (const list of children.values()) list.sort(byName);
  for (const list of machinesIn.values()) list.sort(byName);
  return drawingOrder(tree, locations, machines, partMachine, children, machinesIn, counts);
}

/**
 * The index of the whole tree that `head` (the index of the same tree without parts) stands for,
 * given each machine's parts in the order of `head.tree.machines`: what {@link indexTree} of the
 * whole tree gives, built from the head's maps and sorted lists instead of from scratch (sorting
 * 10,000 machines by name is most of an index), with only the drawing order walked again.
 */
export function withParts(head: TreeIndex, parts: readonly (readonly TreePart[])[], syncedAt: IsoTime | null): TreeIndex {
  const whole = new Map<TreeMachine, TreeMachine>();
  const list = head.tree.machines.map((m, i): TreeMachine => {
    const machine: TreeMachine = { id: m.id, name: m.name, locationId: m.locationId, parts: parts[i] ?? [] };
    whole.set(m, machine);
    return machine;
  });
  const tree: FleetTree = { orgId: head.tree.orgId, syncedAt, locations: head.tree.locations, machines: list };
  const machines = new Map(list.map((m) => [m.id, m]));
  const partMachine = new Map<string, TreeMachine>();
  for (const m of list) for (const p of m.parts) partMachine.set(p.id, m);
  const machinesIn = new Map<string, TreeMachine[]>();
  for (const [at, here] of head.machinesIn) machinesIn.set(at, here.map((m) => whole.get(m) ?? m));
  return drawingOrder(tree, head.locations, machines, partMachine, head.children, machinesIn, head.counts);
}

/** The rest of an index from its maps, children and machines sorted by name: every node in drawing order. */
function drawingOrder(
  tree: FleetTree,
  locations: ReadonlyMap<string, TreeLocation>,
  machines: ReadonlyMap<string, TreeMachine>,
  partMachine: ReadonlyMap<string, TreeMachine>,
  children: ReadonlyMap<string, readonly TreeLocation[]>,
  machinesIn: ReadonlyMap<string, readonly TreeMachine[]>,
  counts: ReadonlyMap<string, number>,
): TreeIndex {
  const orgId = tree.orgId;
  type Building = { -readonly [K in keyof FlatNode]: FlatNode[K] };
  const flat: Building[] = [];
  const seen = new Set<string>();
  const add = (node: Omit<Building, 'end' | 'lower' | 'key' | 'count' | 'shared' | 'parts' | 'main'> & Partial<Pick<Building, 'count' | 'shared' | 'parts' | 'main'>>): Building => {
    // Every node with the same fields in the same order: one hidden class for the loops over them.
    const built: Building = {
      ref: node.ref,
      key: nodeKey(node.ref),
      label: node.label,
      lower: node.label.toLocaleLowerCase(),
      depth: node.depth,
      parent: node.parent,
      end: 0,
      expandable: node.expandable,
      posinset: node.posinset,
      setsize: node.setsize,
      count: node.count,
      shared: node.shared,
      parts: node.parts,
      main: node.main,
    };
    flat.push(built);
    return built;
  };
  const walk = (parentId: string, parent: number, depth: number): void => {
    const subLocations = (children.get(parentId) ?? []).filter((l) => !seen.has(l.id));
    const here = parentId === '' ? [] : (machinesIn.get(parentId) ?? []);
    const setsize = subLocations.length + here.length;
    subLocations.forEach((l, i) => {
      seen.add(l.id);
      const at = flat.length;
      const expandable = (children.get(l.id)?.length ?? 0) > 0 || (machinesIn.get(l.id)?.length ?? 0) > 0;
      const node = add({ ref: { kind: 'location', orgId, id: l.id }, label: l.name, depth, parent, expandable, posinset: i + 1, setsize, count: counts.get(l.id) ?? 0, shared: l.ownerOrgId !== orgId });
      walk(l.id, at, depth + 1);
      node.end = flat.length;
    });
    here.forEach((m, i) => {
      const at = flat.length;
      const node = add({ ref: { kind: 'machine', orgId, id: m.id }, label: m.name, depth, parent, expandable: m.parts.length > 0, posinset: subLocations.length + i + 1, setsize, parts: m.parts });
      m.parts.forEach((p, j) => {
        add({ ref: { kind: 'part', orgId, id: p.id }, label: p.name, depth: depth + 1, parent: at, expandable: false, posinset: j + 1, setsize: m.parts.length, parts: [p], main: p.mainPart }).end = flat.length;
      });
      node.end = flat.length;
    });
  };
  walk('', -1, 0);
  const parents = new Int32Array(flat.length);
  const ends = new Int32Array(flat.length);
  const flags = new Uint8Array(flat.length);
  flat.forEach((n, i) => {
    parents[i] = n.parent;
    ends[i] = n.end;
    flags[i] = (n.expandable ? EXPANDABLE : 0) | (n.ref.kind === 'machine' ? MACHINE : 0);
  });
  return { tree, locations, machines, partMachine, children, machinesIn, counts, flat, lowers: flat.map((n) => n.lower), parents, ends, flags };
}

/** A search's mark on a node: not shown, shown because its name matches, shown because something under it does. */
export const Shown = { No: 0, Match: 1, Ancestor: 2 } as const;

/**
 * Which nodes of `index.flat` a search shows (`Shown` per index): those whose name contains `query`
 * (lower-cased) and every node on the way to one. `within`, the matches of a shorter query this one
 * extends (ascending), narrows the scan. Each ancestor chain is walked only as far as the first
 * node already marked as an ancestor, so a query matching everything still costs one pass.
 */
export function searchFlat(index: TreeIndex, query: string, within?: readonly number[]): { shown: Uint8Array; matches: number[] } {
  const { lowers, parents } = index;
  const shown = new Uint8Array(lowers.length);
  const matches: number[] = [];
  const visit = (i: number) => {
    if (!lowers[i]?.includes(query)) return;
    matches.push(i);
    // Drawing order puts ancestors first, so a node visited now is not yet anyone's ancestor.
    shown[i] = Shown.Match;
    for (let at = parents[i] ?? -1; at >= 0; at = parents[at] ?? -1) {
      const was = shown[at];
      if (was === Shown.Ancestor) break;
      shown[at] = Shown.Ancestor;
      if (was === Shown.Match) break; // its own ancestors were marked when it matched
    }
  };
  if (within) for (const i of within) visit(i);
  else for (let i = 0; i < lowers.length; i++) visit(i);
  return { shown, matches };
}

/** The locations from the top down to `locationId` (inclusive), in one tree. */
export function locationPath(index: TreeIndex, locationId: string): TreeLocation[] {
  const path: TreeLocation[] = [];
  const seen = new Set<string>();
  for (let at = index.locations.get(locationId); at && !seen.has(at.id); at = index.locations.get(at.parentLocationId)) {
    seen.add(at.id);
    path.unshift(at);
  }
  return path;
}

/** A node's ancestors' keys, nearest last (the organization first). */
export function ancestorKeys(index: TreeIndex, ref: NodeRef): string[] {
  const orgKey = nodeKey({ kind: 'org', orgId: ref.orgId, id: ref.orgId });
  const loc = (id: string) => locationPath(index, id).map((l) => nodeKey({ kind: 'location', orgId: ref.orgId, id: l.id }));
  switch (ref.kind) {
    case 'org':
      return [];
    case 'location':
      return [orgKey, ...loc(ref.id).slice(0, -1)];
    case 'machine': {
      const m = index.machines.get(ref.id);
      return m ? [orgKey, ...loc(m.locationId)] : [orgKey];
    }
    case 'part': {
      const m = index.partMachine.get(ref.id);
      return m ? [orgKey, ...loc(m.locationId), nodeKey({ kind: 'machine', orgId: ref.orgId, id: m.id })] : [orgKey];
    }
  }
}


/** Where `query` (lower-cased) matches `label`: [start, end), or undefined. `lower` is the label lower-cased, when known. */
export function matchOf(label: string, query: string, lower = label.toLocaleLowerCase()): readonly [number, number] | undefined {
  if (query === '') return undefined;
  const at = lower.indexOf(query);
  return at < 0 ? undefined : [at, at + query.length];
}
