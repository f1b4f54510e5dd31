import { describe, expect, test } from 'vitest';
import { keyAction, typeahead, visibleRows, type TreeNode } from './tree';

const leaf = (id: string, label = id): TreeNode<null> => ({ id, label, data: null });
const nodes: TreeNode<null>[] = [
  { id: 'acme', label: 'Acme', data: null, children: [leaf('hq', 'HQ'), leaf('lab', 'Lab')] },
  leaf('beta', 'Beta'),
  leaf('bravo', 'Bravo'),
  { id: 'cobalt', label: 'Cobalt', data: null, children: [] },
];

describe('visibleRows', () => {
  test('children show only under expanded nodes, with levels and parents', () => {
    expect(visibleRows(nodes, new Set()).map((r) => r.node.id)).toEqual(['acme', 'beta', 'bravo', 'cobalt']);
    const rows = visibleRows(nodes, new Set(['acme']));
    expect(rows.map((r) => [r.node.id, r.level, r.parentId])).toEqual([
      ['acme', 1, null],
      ['hq', 2, 'acme'],
      ['lab', 2, 'acme'],
      ['beta', 1, null],
      ['bravo', 1, null],
      ['cobalt', 1, null],
    ]);
    expect(rows[0]?.expandable).toBe(true);
    expect(rows[3]?.expandable).toBe(false);
  });
});

describe('keyAction', () => {
  const flat = visibleRows(nodes, new Set());
  const open = visibleRows(nodes, new Set(['acme']));

  test('arrows move and stop at the ends; Home/End jump', () => {
    expect(keyAction(flat, 'beta', 'ArrowDown')).toEqual({ type: 'focus', id: 'bravo' });
    expect(keyAction(flat, 'beta', 'ArrowUp')).toEqual({ type: 'focus', id: 'acme' });
    expect(keyAction(flat, 'acme', 'ArrowUp')).toEqual({ type: 'focus', id: 'acme' });
    expect(keyAction(flat, 'cobalt', 'ArrowDown')).toEqual({ type: 'focus', id: 'cobalt' });
    expect(keyAction(flat, 'bravo', 'Home')).toEqual({ type: 'focus', id: 'acme' });
    expect(keyAction(flat, 'acme', 'End')).toEqual({ type: 'focus', id: 'cobalt' });
    expect(keyAction(open, 'acme', 'ArrowDown')).toEqual({ type: 'focus', id: 'hq' });
  });

  test('Enter and Space select the focused row', () => {
    expect(keyAction(flat, 'bravo', 'Enter')).toEqual({ type: 'select', id: 'bravo' });
    expect(keyAction(flat, 'bravo', ' ')).toEqual({ type: 'select', id: 'bravo' });
  });

  test('Right expands, then enters; Left collapses, then goes to the parent', () => {
    expect(keyAction(flat, 'acme', 'ArrowRight')).toEqual({ type: 'expand', id: 'acme' });
    expect(keyAction(open, 'acme', 'ArrowRight')).toEqual({ type: 'focus', id: 'hq' });
    expect(keyAction(flat, 'beta', 'ArrowRight')).toBeNull();
    expect(keyAction(open, 'acme', 'ArrowLeft')).toEqual({ type: 'collapse', id: 'acme' });
    expect(keyAction(open, 'lab', 'ArrowLeft')).toEqual({ type: 'focus', id: 'acme' });
    expect(keyAction(flat, 'beta', 'ArrowLeft')).toBeNull();
  });

  test('other keys are not the tree’s', () => {
    expect(keyAction(flat, 'beta', 'Tab')).toBeNull();
    expect(keyAction([], null, 'ArrowDown')).toBeNull();
  });
});

describe('typeahead', () => {
  const flat = visibleRows(nodes, new Set());
  test('a letter finds the next row starting with it, wrapping', () => {
    expect(typeahead(flat, 'acme', 'b')).toBe('beta');
    expect(typeahead(flat, 'beta', 'b')).toBe('bravo');
    expect(typeahead(flat, 'bravo', 'b')).toBe('beta');
    expect(typeahead(flat, 'cobalt', 'a')).toBe('acme');
    expect(typeahead(flat, 'acme', 'z')).toBeNull();
  });
  test('a longer query narrows, keeping the current row if it matches', () => {
    expect(typeahead(flat, 'beta', 'br')).toBe('bravo');
    expect(typeahead(flat, 'bravo', 'bra')).toBe('bravo');
    expect(typeahead(flat, 'acme', 'BE')).toBe('beta');
  });
});
