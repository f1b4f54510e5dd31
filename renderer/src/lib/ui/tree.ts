/**
 * The model behind `Tree.svelte` (a WAI-ARIA tree): typed nodes, which rows are visible, and what a
 * key does. Kept free of the DOM so it can be tested and reused as the tree grows
 * (organizations → locations → machines → parts).
 */

export interface TreeNode<T> {
  readonly id: string;
  /** The item's accessible name, and what typeahead matches. */
  readonly label: string;
  readonly data: T;
  /** Undefined for a leaf; an array (possibly empty, e.g. not loaded yet) makes the node expandable. */
  readonly children?: readonly TreeNode<T>[];
}

export interface TreeRow<T> {
  readonly node: TreeNode<T>;
  readonly level: number;
  readonly parentId: string | null;
  readonly expandable: boolean;
  readonly expanded: boolean;
}

/** The rows a user can reach with the arrow keys, in order. */
export function visibleRows<T>(nodes: readonly TreeNode<T>[], expanded: ReadonlySet<string>): TreeRow<T>[] {
  const rows: TreeRow<T>[] = [];
  const walk = (list: readonly TreeNode<T>[], level: number, parentId: string | null): void => {
    for (const node of list) {
      const expandable = node.children !== undefined;
      const open = expandable && expanded.has(node.id);
      rows.push({ node, level, parentId, expandable, expanded: open });
      if (open && node.children) walk(node.children, level + 1, node.id);
    }
  };
  walk(nodes, 1, null);
  return rows;
}

export type TreeAction =
  | { readonly type: 'focus'; readonly id: string }
  | { readonly type: 'select'; readonly id: string }
  | { readonly type: 'expand'; readonly id: string }
  | { readonly type: 'collapse'; readonly id: string };

/** What a key press on the focused row does (null: not a tree key). */
export function keyAction<T>(rows: readonly TreeRow<T>[], focusedId: string | null, key: string): TreeAction | null {
  if (rows.length === 0) return null;
  const index = rows.findIndex((r) => r.node.id === focusedId);
  const current = index >= 0 ? rows[index] : undefined;
  const at = (i: number): TreeAction | null => {
    const row = rows[Math.max(0, Math.min(rows.length - 1, i))];
    return row ? { type: 'focus', id: row.node.id } : null;
  };
  switch (key) {
    case 'ArrowDown':
      return at(index < 0 ? 0 : index + 1);
    case 'ArrowUp':
      return at(index < 0 ? 0 : index - 1);
    case 'Home':
      return at(0);
    case 'End':
      return at(rows.length - 1);
    case 'Enter':
    case ' ':
      return current ? { type: 'select', id: current.node.id } : null;
    case 'ArrowRight':
      if (!current || !current.expandable) return null;
      if (!current.expanded) return { type: 'expand', id: current.node.id };
      return rows[index + 1]?.parentId === current.node.id ? at(index + 1) : null;
    case 'ArrowLeft':
      if (!current) return null;
      if (current.expanded) return { type: 'collapse', id: current.node.id };
      return current.parentId !== null ? { type: 'focus', id: current.parentId } : null;
    default:
      return null;
  }
}

/**
 * Typeahead: the next row after `fromId` (wrapping) whose label starts with `query`.
 * A query of one repeated letter cycles through the rows starting with that letter.
 */
export function typeahead<T>(rows: readonly TreeRow<T>[], fromId: string | null, query: string): string | null {
  if (rows.length === 0 || query === '') return null;
  const q = query.toLocaleLowerCase();
  const single = [...q].every((c) => c === q[0]) ? (q[0] ?? q) : q;
  const start = rows.findIndex((r) => r.node.id === fromId);
  // A longer query may still match the current row; a single letter moves on.
  const offset = single === q && q.length > 1 ? 0 : 1;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[(start + offset + i + rows.length) % rows.length];
    if (row && row.node.label.toLocaleLowerCase().startsWith(single)) return row.node.id;
  }
  return null;
}
