/**
 * The fleet tree's model, free of Svelte state: node references and keys, an organization's tree
 * indexed for drawing (children by parent, machines by location, machine counts), paths and
 * ancestors. Plain maps: they are built once per tree and never changed.
 */
import type { FleetTree, TreeLocation } from '../../../common/locations';
import type { TreeMachine, TreePart } from '../../../common/machines';

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
}

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
  return { tree, locations, machines, partMachine, children, machinesIn, counts };
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


/** Where `query` (lower-cased) matches `label`: [start, end), or undefined. */
export function matchOf(label: string, query: string): readonly [number, number] | undefined {
  if (query === '') return undefined;
  const at = label.toLocaleLowerCase().indexOf(query);
  return at < 0 ? undefined : [at, at + query.length];
}
