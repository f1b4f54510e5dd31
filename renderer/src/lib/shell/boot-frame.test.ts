import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { takeOverFrame } from './boot-frame';

/**
 * Just the DOM takeOverFrame touches: elements with children, classes, data and `inert`, selectors
 * of one class list or one attribute, focus and clicks; window listeners, marks.
 */
class FakeElement {
  children: FakeElement[] = [];
  parent: FakeElement | null = null;
  className = '';
  inert = false;
  readonly dataset: Record<string, string> = {};
  readonly clicks: string[] = [];
  focused = false;
  readonly classList = {
    add: (name: string) => void (this.className = `${this.className} ${name}`.trim()),
    remove: (name: string) => void (this.className = this.className.split(' ').filter((c) => c !== name).join(' ')),
  };
  /** `selector`: what the element is, as the code selects it (`.boot-row`, `[role="treeitem"]`, `#app`). */
  constructor(readonly selector: string = '') {}
  append(...children: FakeElement[]): this {
    for (const child of children) {
      child.parent = this;
      this.children.push(child);
    }
    return this;
  }
  replaceChildren(...children: FakeElement[]): void {
    this.children = [];
    this.append(...children);
  }
  remove(): void {
    if (this.parent) this.parent.children = this.parent.children.filter((c) => c !== this);
    this.parent = null;
  }
  matches(selector: string): boolean {
    if (selector.startsWith('[') || selector.startsWith('#')) return this.selector === selector;
    const own = new Set([...this.selector.split('.'), ...this.className.split(' ')].filter(Boolean));
    return selector.split('.').filter(Boolean).every((c) => own.has(c));
  }
  querySelectorAll(selector: string): FakeElement[] {
    const direct = selector.startsWith(':scope > ');
    const wanted = selector.replace(':scope > ', '');
    return this.children.flatMap((child) => [...(child.matches(wanted) ? [child] : []), ...(direct ? [] : child.querySelectorAll(selector))]);
  }
  querySelector(selector: string): FakeElement | null {
    return this.querySelectorAll(selector)[0] ?? null;
  }
  get childElementCount(): number {
    return this.children.length;
  }
  closest(selector: string): FakeElement | null {
    return this.matches(selector) ? this : (this.parent?.closest(selector) ?? null);
  }
  contains(other: FakeElement): boolean {
    return other === this || this.children.some((child) => child.contains(other));
  }
  focus(): void {
    this.focused = true;
  }
  click(): void {
    // Bubbles to the treeitem, as a click on its chevron does in the DOM.
    this.closest('[role="treeitem"]')?.clicks.push(this.selector);
  }
}

type FakeEvent = { type: string; target: FakeElement | null; button?: number };
let listeners: Map<string, (event: FakeEvent) => void>;
let marks: string[];
beforeEach(() => {
  vi.useFakeTimers();
  listeners = new Map();
  marks = [];
  vi.stubGlobal('Element', FakeElement);
  vi.stubGlobal('document', { createElement: () => new FakeElement() });
  vi.stubGlobal('addEventListener', (type: string, listener: (event: FakeEvent) => void) => listeners.set(type, listener));
  vi.stubGlobal('removeEventListener', (type: string) => listeners.delete(type));
  vi.stubGlobal('performance', { mark: (name: string) => marks.push(name) });
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

/** A key or a pointer press (main button unless given) on `target` (null: nothing of ours), as the window's capturing listener gets it. */
const press = (type: 'keydown' | 'pointerdown', target: FakeElement | null = null, button = 0) => listeners.get(type)?.(type === 'keydown' ? { type, target } : { type, target, button });

/** #app with index.html's frame, with or without the tree main draws into it. */
function app(withTree: boolean): { target: FakeElement; frame: FakeElement } {
  const target = new FakeElement('#app');
  const frame = new FakeElement('.boot-shell');
  const sidebar = new FakeElement('.boot-sidebar');
  if (withTree) sidebar.append(new FakeElement('.boot-rows'));
  frame.append(sidebar);
  target.append(frame);
  return { target, frame };
}
const take = (target: FakeElement, ms?: number) => {
  const { root, uncover } = takeOverFrame(target as unknown as HTMLElement, ms);
  return { root: root as unknown as FakeElement, uncover };
};

describe('takeOverFrame', () => {
  it('gives a plain frame over at once: the app mounts in its place, usable', () => {
    const { target } = app(false);
    const { root, uncover } = take(target);
    expect(target.children).toEqual([root]);
    expect(root.inert).toBe(false);
    expect(listeners.size).toBe(0);
    uncover('tree');
    expect(marks).toEqual([]);
  });

  it('keeps a frame with the tree over the app, inert under it, until the app has drawn its tree', () => {
    const { target, frame } = app(true);
    const { root, uncover } = take(target);
    expect(target.children).toEqual([frame, root]);
    expect(frame.className).toBe('covering');
    expect(root.inert).toBe(true);
    uncover('tree');
    expect(target.children).toEqual([root]);
    expect(root.inert).toBe(false);
    expect(listeners.size).toBe(0);
    uncover('timeout');
    vi.runAllTimers();
    expect(marks).toEqual(['fleet-frame:tree']);
  });

  it('gives the app the window at a key or a pointer, or once the time is up; a tree drawn after the time is marked late', () => {
    for (const type of ['keydown', 'pointerdown']) {
      const { target, frame } = app(true);
      const { root, uncover } = take(target);
      press(type as 'keydown' | 'pointerdown');
      expect(frame.parent).toBeNull();
      expect(root.inert).toBe(false);
      uncover('tree'); // went by the user's hand, not late
    }
    const { target, frame } = app(true);
    const { root, uncover } = take(target, 1_500);
    vi.advanceTimersByTime(1_499);
    expect(root.inert).toBe(true);
    vi.advanceTimersByTime(1);
    expect(frame.parent).toBeNull();
    expect(root.inert).toBe(false);
    expect(marks).toEqual(['fleet-frame:input', 'fleet-frame:input', 'fleet-frame:timeout']);
    uncover('tree');
    uncover('tree');
    expect(marks).toEqual(['fleet-frame:input', 'fleet-frame:input', 'fleet-frame:timeout', 'fleet-frame:tree-late']);
  });
});

/**
 * A frame with locations A, B (selected, nothing under it: its chevron's slot empty) and C, each
 * with its name; and the app's tree of `names`, in a virtual list's DOM order.
 */
function framed(): { target: FakeElement; frame: FakeElement; row: (name: string) => FakeElement } {
  const target = new FakeElement('#app');
  const rows = ['A', 'B', 'C'].map((name) => {
    const toggle = new FakeElement('.boot-toggle');
    if (name !== 'B') toggle.append(new FakeElement('.boot-chevron'));
    const row = new FakeElement('.boot-row').append(new FakeElement('.boot-row-in').append(toggle, new FakeElement('.boot-label')));
    row.dataset.name = name;
    row.dataset.kind = 'location';
    if (name === 'B') row.querySelector('.boot-row-in')!.classList.add('selected');
    return row;
  });
  const frame = new FakeElement('.boot-shell').append(new FakeElement('.boot-sidebar').append(new FakeElement('.boot-rows').append(...rows)), new FakeElement('.boot-topbar'));
  target.append(frame);
  return { target, frame, row: (name) => rows.find((r) => r.dataset.name === name)! };
}
function drawTree(root: FakeElement, names: string[], kind = 'location'): Map<string, FakeElement> {
  const items = names.map((name, i) => {
    const item = new FakeElement('[role="treeitem"]').append(new FakeElement('[data-toggle]'));
    Object.assign(item.dataset, { name, kind, index: String(i) });
    return item;
  });
  // A virtual list keeps its rows' elements in the order it made them, not the order they show.
  root.append(...[...items].reverse());
  return new Map(items.map((item) => [item.dataset.name!, item]));
}
const selectedIn = (frame: FakeElement) => frame.querySelectorAll('.boot-row-in.selected').map((e) => e.parent!.dataset.name);

describe('a press on the frame’s rows', () => {
  it('keeps the frame, shows the row selected at once, and is made on the app’s row of that place and name once its tree is drawn', () => {
    const { target, frame, row } = framed();
    const { root, uncover } = take(target);
    press('pointerdown', row('C').querySelector('.boot-label'));
    expect(frame.parent).toBe(target);
    expect(root.inert).toBe(true);
    expect(selectedIn(frame)).toEqual(['C']);
    const items = drawTree(root, ['A', 'B', 'C']);
    uncover('tree');
    expect(items.get('C')!.clicks).toEqual(['[role="treeitem"]']);
    expect(items.get('C')!.focused).toBe(true);
    expect([...items.values()].flatMap((item) => item.clicks)).toHaveLength(1);
    expect(marks).toEqual(['fleet-frame:tree', 'fleet-frame:replayed']);
    expect(listeners.size).toBe(0);
  });

  it('on a chevron, is made on the app row’s chevron (expand or collapse), the selection left as it was; on an empty chevron slot, on the row', () => {
    const { target, frame, row } = framed();
    const { root, uncover } = take(target);
    press('pointerdown', row('A').querySelector('.boot-chevron'));
    expect(selectedIn(frame)).toEqual(['B']);
    const items = drawTree(root, ['A', 'B', 'C']);
    uncover('tree');
    expect(items.get('A')!.clicks).toEqual(['[data-toggle]']);

    const again = framed();
    const taken = take(again.target);
    press('pointerdown', again.row('B').querySelector('.boot-toggle'));
    press('pointerdown', again.row('C').querySelector('.boot-toggle'));
    press('pointerdown', again.row('B').querySelector('.boot-toggle'));
    expect(selectedIn(again.frame)).toEqual(['B']);
    const drawn = drawTree(taken.root, ['A', 'B', 'C']);
    taken.uncover('tree');
    expect(drawn.get('B')!.clicks).toEqual(['[role="treeitem"]']);
  });

  it('the last press wins, and one kept past the time limit is still made once the tree is drawn', () => {
    const { target, frame, row } = framed();
    const { root, uncover } = take(target, 1_500);
    press('pointerdown', row('A').querySelector('.boot-label'));
    press('pointerdown', row('C').querySelector('.boot-label'));
    expect(selectedIn(frame)).toEqual(['C']);
    vi.advanceTimersByTime(1_500);
    expect(frame.parent).toBeNull();
    const items = drawTree(root, ['A', 'B', 'C']);
    uncover('tree');
    expect(items.get('A')!.clicks).toEqual([]);
    expect(items.get('C')!.clicks).toEqual(['[role="treeitem"]']);
    expect(marks).toEqual(['fleet-frame:timeout', 'fleet-frame:tree-late', 'fleet-frame:replayed']);
    expect(listeners.size).toBe(0);
  });

  it('is dropped once the frame has been gone by time as long again, or at a scroll', () => {
    let { target, row } = framed();
    let taken = take(target, 1_500);
    press('pointerdown', row('C').querySelector('.boot-label'));
    vi.advanceTimersByTime(1_500);
    expect(listeners.size).toBe(3);
    vi.advanceTimersByTime(1_500);
    expect(listeners.size).toBe(0);
    let items = drawTree(taken.root, ['A', 'B', 'C']);
    taken.uncover('tree');
    expect(items.get('C')!.clicks).toEqual([]);

    ({ target, row } = framed());
    taken = take(target, 1_500);
    press('pointerdown', row('C').querySelector('.boot-label'));
    listeners.get('wheel')?.({ type: 'wheel', target: null });
    expect(taken.root.inert).toBe(false);
    expect(listeners.size).toBe(0);
    items = drawTree(taken.root, ['A', 'B', 'C']);
    taken.uncover('tree');
    expect(items.get('C')!.clicks).toEqual([]);
    expect(marks).toEqual(['fleet-frame:timeout', 'fleet-frame:tree-late', 'fleet-frame:input']);
  });

  it('is dropped when anything else is pressed after it, when the app’s row there has another name, or when the app failed', () => {
    // A key once the frame went by time: the user has moved on.
    let { target, row } = framed();
    let taken = take(target, 1_500);
    press('pointerdown', row('B').querySelector('.boot-label'));
    vi.advanceTimersByTime(1_500);
    press('keydown');
    expect(listeners.size).toBe(0);
    let items = drawTree(taken.root, ['A', 'B', 'C']);
    taken.uncover('tree');
    expect(items.get('B')!.clicks).toEqual([]);

    // A press outside the rows, or with another button, while the frame covers: the frame goes, as for any press.
    for (const [where, button] of [['.boot-topbar', 0], ['.boot-label', 2]] as const) {
      ({ target, row } = framed());
      taken = take(target);
      press('pointerdown', row('B').querySelector('.boot-label'));
      press('pointerdown', where === '.boot-topbar' ? target.querySelector(where) : row('C').querySelector(where), button);
      expect(taken.root.inert).toBe(false);
      items = drawTree(taken.root, ['A', 'B', 'C']);
      taken.uncover('tree');
      expect([...items.values()].flatMap((item) => item.clicks)).toEqual([]);
    }

    // The tree changed since the rows were kept: B's place holds another node, or a node of another kind.
    for (const [names, kind] of [[['A', 'B2', 'B', 'C'], 'location'], [['A', 'B', 'C'], 'machine']] as const) {
      ({ target, row } = framed());
      taken = take(target);
      press('pointerdown', row('B').querySelector('.boot-label'));
      items = drawTree(taken.root, [...names], kind);
      taken.uncover('tree');
      expect([...items.values()].flatMap((item) => item.clicks)).toEqual([]);
    }

    // The app shows another part of the tree (scrolled to the open page's row): B is not drawn.
    ({ target, row } = framed());
    taken = take(target);
    press('pointerdown', row('B').querySelector('.boot-label'));
    items = drawTree(taken.root, ['A', 'B', 'C']);
    items.get('B')!.remove();
    taken.uncover('tree');
    expect([...items.values()].flatMap((item) => item.clicks)).toEqual([]);

    ({ target, row } = framed());
    taken = take(target);
    press('pointerdown', row('B').querySelector('.boot-label'));
    taken.uncover('failed');
    expect(listeners.size).toBe(0);
    items = drawTree(taken.root, ['A', 'B', 'C']);
    taken.uncover('tree');
    expect(items.get('B')!.clicks).toEqual([]);
    expect(marks).not.toContain('fleet-frame:replayed');
  });
});
