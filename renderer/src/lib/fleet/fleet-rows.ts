/**
 * The fleet tree's visible rows without an object per row: a search that shows 38,000 of 40,000
 * nodes records them in typed arrays (which node, its position among its siblings, whether it is
 * open) in one pass, and a row object is made only when something reads that row — the few dozen
 * the virtualized tree draws. Free of Svelte state, like fleet-index.
 */
import { EXPANDABLE, MACHINE, matchOf, Shown, type FlatNode, type FleetRow, type NodeRef, type TreeIndex } from './fleet-index';
import type { TreePart } from '../../../../common/machines';

/** A row for a node of an organization's drawing order; the rest is read from the node. */
class NodeRow implements FleetRow {
  constructor(
    readonly node: FlatNode,
    readonly parentKey: string,
    readonly expanded: boolean,
    readonly posinset: number,
    readonly setsize: number,
    /** The search query (lower-cased), '' when browsing. */
    readonly query: string,
  ) {}
  get key(): string {
    return this.node.key;
  }
  get ref(): NodeRef {
    return this.node.ref;
  }
  get label(): string {
    return this.node.label;
  }
  get level(): number {
    return this.node.depth + 2;
  }
  get expandable(): boolean {
    return this.node.expandable;
  }
  get count(): number | undefined {
    return this.node.count;
  }
  get shared(): boolean | undefined {
    return this.node.shared;
  }
  get parts(): readonly TreePart[] | undefined {
    return this.node.parts;
  }
  get main(): boolean | undefined {
    return this.node.main;
  }
  get match(): FleetRow['match'] {
    return this.query === '' ? undefined : matchOf(this.node.label, this.query, this.node.lower);
  }
}

/** One organization's rows: its own row, then the shown nodes of its tree. */
export interface OrgRows {
  readonly row: FleetRow;
  readonly index?: TreeIndex;
  /** Indexes into `index.flat` of the nodes shown under the organization, in order. */
  readonly nodes: Int32Array;
  /** Per shown node: its position among its shown siblings. */
  readonly positions: Int32Array;
  /** Per parent (flat index + 1; 0 is the top level): how many of its children show. */
  readonly setsizes: Int32Array | null;
  /** Per shown node: 1 if it is drawn open. */
  readonly open: Uint8Array;
  readonly query: string;
}

/** The visible rows of the whole tree, read by position (`at`), by key, or in order. */
export class FleetRows implements Iterable<FleetRow> {
  readonly length: number;
  readonly #orgs: readonly OrgRows[];
  /** Row position where each organization starts. */
  readonly #starts: Int32Array;
  readonly #made: (FleetRow | undefined)[];
  #byKey: Map<string, number> | null = null;

  constructor(orgs: readonly OrgRows[]) {
    this.#orgs = orgs;
    this.#starts = new Int32Array(orgs.length);
    let length = 0;
    orgs.forEach((o, i) => {
      this.#starts[i] = length;
      length += 1 + o.nodes.length;
    });
    this.length = length;
    this.#made = new Array<FleetRow | undefined>(length);
  }

  /** The row at `i` (negative counts from the end), made on first read. */
  at(i: number): FleetRow | undefined {
    if (i < 0) i += this.length;
    if (i < 0 || i >= this.length) return undefined;
    const made = this.#made[i];
    if (made) return made;
    // Few organizations: a linear search for the one holding row i.
    let o = this.#orgs.length - 1;
    while ((this.#starts[o] ?? 0) > i) o -= 1;
    const org = this.#orgs[o];
    if (!org) return undefined;
    const offset = i - (this.#starts[o] ?? 0) - 1;
    let row: FleetRow;
    const flat = org.index?.flat ?? [];
    const n = offset < 0 ? undefined : flat[org.nodes[offset] ?? -1];
    if (!n) row = org.row;
    else {
      const parentKey = flat[n.parent]?.key ?? org.row.key;
      const setsize = org.setsizes ? (org.setsizes[n.parent + 1] ?? 0) : n.setsize;
      row = new NodeRow(n, parentKey, org.open[offset] === 1, org.positions[offset] ?? 0, setsize, org.query);
    }
    this.#made[i] = row;
    return row;
  }

  /**
   * Position of the row for `key`, or -1. A scan of the node keys (no allocation) answers the first
   * few lookups; a lookup table is built only for a rows value asked many times (keyboard, drag).
   */
  indexOfKey(key: string): number {
    if (this.#byKey) return this.#byKey.get(key) ?? -1;
    if (++this.#lookups > 4) {
      this.#byKey = new Map();
      let i = 0;
      for (const org of this.#orgs) {
        this.#byKey.set(org.row.key, i++);
        const flat = org.index?.flat ?? [];
        for (const at of org.nodes) this.#byKey.set(flat[at]?.key ?? '', i++);
      }
      return this.#byKey.get(key) ?? -1;
    }
    let i = 0;
    for (const org of this.#orgs) {
      if (org.row.key === key) return i;
      i += 1;
      const flat = org.index?.flat ?? [];
      for (let j = 0; j < org.nodes.length; j++, i++) if (flat[org.nodes[j] ?? -1]?.key === key) return i;
    }
    return -1;
  }
  #lookups = 0;

  *[Symbol.iterator](): Iterator<FleetRow> {
    for (let i = 0; i < this.length; i++) {
      const row = this.at(i);
      if (row) yield row;
    }
  }
}

/**
 * An organization's rows while browsing: down the drawing order, stepping over the subtree of
 * every node that is not expanded.
 */
export function browseOrg(row: FleetRow, index: TreeIndex | undefined, expanded: ReadonlySet<string>): OrgRows {
  const flat = index?.flat ?? [];
  const nodes = new Int32Array(row.expanded ? flat.length : 0);
  const open = new Uint8Array(nodes.length);
  const positions = new Int32Array(nodes.length);
  let count = 0;
  if (row.expanded) {
    for (let at = 0; at < flat.length; ) {
      const n = flat[at] as FlatNode;
      const isOpen = n.expandable && expanded.has(n.key);
      nodes[count] = at;
      positions[count] = n.posinset;
      open[count] = isOpen ? 1 : 0;
      count += 1;
      at = isOpen ? at + 1 : n.end;
    }
  }
  return { row, index, nodes: nodes.subarray(0, count), positions: positions.subarray(0, count), open: open.subarray(0, count), setsizes: null, query: '' };
}

/**
 * An organization's rows while searching: only the branches that lead to a match (`shown`, from
 * searchFlat), opened; the parts of a shown machine the user had expanded show, matching or not.
 */
export function searchOrg(row: FleetRow, index: TreeIndex, shown: Uint8Array, expanded: ReadonlySet<string>, query: string): OrgRows {
  const { flat, parents, ends, flags } = index;
  const nodes = new Int32Array(flat.length);
  const open = new Uint8Array(flat.length);
  const positions = new Int32Array(flat.length);
  const setsizes = new Int32Array(flat.length + 1);
  // Whether the user had a machine expanded: asked once per shown machine, not per part.
  const userOpen = new Uint8Array(flat.length);
  let count = 0;
  for (let at = 0; at < flat.length; ) {
    const parent = parents[at] ?? -1;
    const mark = shown[at] ?? Shown.No;
    const partOfOpen = parent >= 0 && userOpen[parent] === 1;
    if (mark === Shown.No && !partOfOpen) {
      at = ends[at] ?? flat.length;
      continue;
    }
    const bits = flags[at] ?? 0;
    const machineOpen = (bits & MACHINE) !== 0 && expanded.has(flat[at]?.key ?? '');
    if (machineOpen) userOpen[at] = 1;
    nodes[count] = at;
    const position = (setsizes[parent + 1] ?? 0) + 1;
    setsizes[parent + 1] = position;
    positions[count] = position;
    // Open when something under it matches, or a machine the user had open.
    open[count] = (bits & EXPANDABLE) !== 0 && (mark === Shown.Ancestor || machineOpen) ? 1 : 0;
    count += 1;
    at += 1;
  }
  return { row, index, nodes: nodes.subarray(0, count), positions: positions.subarray(0, count), open: open.subarray(0, count), setsizes, query };
}
