import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { takeOverFrame } from './boot-frame';

/** Just the DOM takeOverFrame touches: elements with children, classes and `inert`, window listeners, marks. */
class FakeElement {
  children: FakeElement[] = [];
  parent: FakeElement | null = null;
  className = '';
  inert = false;
  readonly classList = { add: (name: string) => void (this.className = `${this.className} ${name}`.trim()) };
  constructor(readonly selector: string = '') {}
  append(child: FakeElement): void {
    child.parent = this;
    this.children.push(child);
  }
  replaceChildren(...children: FakeElement[]): void {
    this.children = [];
    for (const child of children) this.append(child);
  }
  remove(): void {
    if (this.parent) this.parent.children = this.parent.children.filter((c) => c !== this);
    this.parent = null;
  }
  querySelector(selector: string): FakeElement | null {
    const wanted = selector.replace(':scope > ', '');
    const direct = selector.startsWith(':scope > ');
    for (const child of this.children) {
      if (child.selector === wanted) return child;
      const deeper = direct ? null : child.querySelector(selector);
      if (deeper) return deeper;
    }
    return null;
  }
}

let listeners: Map<string, () => void>;
let marks: string[];
beforeEach(() => {
  vi.useFakeTimers();
  listeners = new Map();
  marks = [];
  vi.stubGlobal('document', { createElement: () => new FakeElement() });
  vi.stubGlobal('addEventListener', (type: string, listener: () => void) => listeners.set(type, listener));
  vi.stubGlobal('removeEventListener', (type: string) => listeners.delete(type));
  vi.stubGlobal('performance', { mark: (name: string) => marks.push(name) });
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

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
const take = (target: FakeElement, ms?: number) => takeOverFrame(target as unknown as HTMLElement, ms);

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

  it('gives the app the window at a key or a pointer, or once the time is up', () => {
    for (const type of ['keydown', 'pointerdown']) {
      const { target, frame } = app(true);
      const { root } = take(target);
      listeners.get(type)?.();
      expect(frame.parent).toBeNull();
      expect(root.inert).toBe(false);
    }
    const { target, frame } = app(true);
    const { root } = take(target, 1_500);
    vi.advanceTimersByTime(1_499);
    expect(root.inert).toBe(true);
    vi.advanceTimersByTime(1);
    expect(frame.parent).toBeNull();
    expect(root.inert).toBe(false);
    expect(marks).toEqual(['fleet-frame:input', 'fleet-frame:input', 'fleet-frame:timeout']);
  });
});
