import { ensureSyntaxTree, syntaxTree } from '@codemirror/language';
import type { EditorState } from '@codemirror/state';
import type { JsonPath, Locator, Span } from './check';

/**
 * Reading the editor's own JSON syntax tree (lang-json's lezer tree): where a path's value is, and
 * where in the config the cursor is. The editor keeps this tree up to date incrementally, so these
 * cost a walk down a few nodes instead of parsing 1 MiB again on every lint or completion.
 */

type Tree = ReturnType<typeof syntaxTree>;
type SyntaxNode = Tree['topNode'];

const VALUES = new Set(['Object', 'Array', 'String', 'Number', 'True', 'False', 'Null']);

function values(node: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (let child = node.firstChild; child; child = child.nextSibling) if (VALUES.has(child.name)) out.push(child);
  return out;
}

/** The key a PropertyName node spells (quotes and escapes undone). */
function keyText(state: EditorState, name: SyntaxNode): string {
  const raw = state.doc.sliceString(name.from, name.to);
  if (!raw.includes('\\')) return raw.slice(1, raw.endsWith('"') && raw.length > 1 ? -1 : undefined);
  try {
    return JSON.parse(raw) as string;
  } catch {
    return raw.slice(1, -1);
  }
}

/** The value node of a Property (the one after its colon), if it has one. */
function propertyValue(property: SyntaxNode): SyntaxNode | null {
  for (let child = property.lastChild; child; child = child.prevSibling) if (VALUES.has(child.name)) return child;
  return null;
}

function valueAt(state: EditorState, tree: Tree, path: JsonPath): Span | null {
  let node: SyntaxNode | null = values(tree.topNode)[0] ?? null;
  let key: SyntaxNode | null = null;
  for (const step of path) {
    if (!node) return null;
    if (typeof step === 'number' && node.name === 'Array') {
      node = values(node)[step] ?? null;
      key = null;
    } else if (typeof step === 'string' && node.name === 'Object') {
      let found: SyntaxNode | null = null;
      let foundKey: SyntaxNode | null = null;
      // The last property of a name: JSON.parse keeps the last of duplicate keys, so the schema judged that one.
      for (const property of node.getChildren('Property')) {
        const name = property.getChild('PropertyName');
        if (name && keyText(state, name) === step) [found, foundKey] = [propertyValue(property), name];
      }
      [node, key] = [found, foundKey];
    } else return null;
  }
  if (!node) return null;
  return { from: node.from, to: node.to, ...(key ? { keyFrom: key.from, keyTo: key.to } : {}) };
}

/**
 * A locator over the editor's tree, parsed to the end first (within `budgetMs`; the lint runs
 * off the keystroke's frame, and the tree is usually complete by then). Without a complete tree
 * it answers nothing, and the problems are placed at the start instead of stalling the editor.
 */
export function treeLocator(state: EditorState, budgetMs = 200): Locator {
  let tree: Tree | null | undefined;
  const full = () => (tree === undefined ? (tree = ensureSyntaxTree(state, state.doc.length, budgetMs)) : tree);
  return {
    value(path) {
      const t = full();
      return t ? valueAt(state, t, path) : null;
    },
    syntaxError() {
      const t = full();
      if (!t) return null;
      let at: number | null = null;
      t.iterate({
        enter: (node) => {
          if (at !== null) return false;
          if (node.type.isError) at = node.from;
          return undefined;
        },
      });
      return at;
    },
  };
}

/** Where the cursor is in the config, for completion: writing a key of the object at `path`, or a value at `path`. */
export interface CursorPlace {
  readonly kind: 'key' | 'value';
  /** For a key: the object's path; for a value: the value's own path. */
  readonly path: JsonPath;
  /** The range completion replaces: inside the quotes when there are some, else the cursor. */
  readonly from: number;
  readonly to: number;
  /** Whether the range is inside quotes already (else the inserted text brings its own). */
  readonly quoted: boolean;
  /** The object holding the key or value, for reading its siblings (a model's `api`). */
  readonly siblings: (key: string) => string | null;
}

/** The path from the document's root to `node` (a value node). */
function pathTo(state: EditorState, node: SyntaxNode): (string | number)[] {
  const path: (string | number)[] = [];
  for (let at: SyntaxNode = node, parent = at.parent; parent; at = parent, parent = at.parent) {
    if (parent.name === 'Property') {
      const name = parent.getChild('PropertyName');
      if (name) path.unshift(keyText(state, name));
    } else if (parent.name === 'Array') {
      path.unshift(values(parent).findIndex((v) => v.from === at.from));
    }
  }
  return path;
}

/** A reader of an object's string-valued properties. */
function siblingsOf(state: EditorState, object: SyntaxNode | null): (key: string) => string | null {
  return (key) => {
    if (!object || object.name !== 'Object') return null;
    for (const property of object.getChildren('Property')) {
      const name = property.getChild('PropertyName');
      const value = propertyValue(property);
      if (name && value?.name === 'String' && keyText(state, name) === key) {
        try {
          return JSON.parse(state.doc.sliceString(value.from, value.to)) as string;
        } catch {
          return null;
        }
      }
    }
    return null;
  };
}

/** The inside of a string token's quotes (an unclosed one runs to its end). */
const inside = (node: SyntaxNode) => ({ from: node.from + 1, to: node.to - node.from >= 2 ? node.to - 1 : node.to, quoted: true });

/** What the cursor at `pos` is writing, read from the syntax tree; null outside anything completion knows. */
export function cursorPlace(state: EditorState, pos: number): CursorPlace | null {
  const tree = ensureSyntaxTree(state, pos, 50) ?? syntaxTree(state);
  const node = tree.resolveInner(pos, -1);
  // In a key's quotes.
  if (node.name === 'PropertyName' && pos > node.from) {
    const object = node.parent?.parent ?? null;
    if (!object) return null;
    const { from, to, quoted } = inside(node);
    return { kind: 'key', path: pathTo(state, object), from, to, quoted, siblings: siblingsOf(state, object) };
  }
  // In a string value's quotes: an object's property or an array's element.
  if (node.name === 'String' && pos > node.from) {
    const parent = node.parent;
    const object = parent?.name === 'Property' ? parent.parent : null;
    const { from, to, quoted } = inside(node);
    return { kind: 'value', path: pathTo(state, node), from, to, quoted, siblings: siblingsOf(state, object ?? null) };
  }
  // Between tokens: after a property's colon (a value comes), or where a key may start in an object.
  const container = node.name === 'Property' || node.name === 'Object' || node.name === 'Array' ? node : node.parent;
  if (!container) return null;
  if (container.name === 'Property') {
    const colon = container.getChild(':');
    if (colon && pos >= colon.to) {
      const name = container.getChild('PropertyName');
      const object = container.parent;
      if (!name || !object) return null;
      return { kind: 'value', path: [...pathTo(state, object), keyText(state, name)], from: pos, to: pos, quoted: false, siblings: siblingsOf(state, object) };
    }
    return null;
  }
  if (container.name === 'Object' && pos > container.from) {
    return { kind: 'key', path: pathTo(state, container), from: pos, to: pos, quoted: false, siblings: siblingsOf(state, container) };
  }
  if (container.name === 'Array' && pos > container.from) {
    const index = values(container).filter((v) => v.to <= pos).length;
    return { kind: 'value', path: [...pathTo(state, container), index], from: pos, to: pos, quoted: false, siblings: () => null };
  }
  return null;
}
