import { json } from '@codemirror/lang-json';
import { getChunks, goToNextChunk, goToPreviousChunk, MergeView, unifiedMergeView } from '@codemirror/merge';
import { EditorState, Prec, type Extension } from '@codemirror/state';
import { EditorView, keymap, lineNumbers } from '@codemirror/view';
import { basicSetup } from 'codemirror';
import { appTheme } from './theme';

/**
 * The CodeMirror views of ConflictMerge.svelte and ConfigDiff.svelte, loaded when one is shown
 * (@codemirror/merge and CodeMirror are large). Every view is read-only but the one where a conflict
 * is edited; each editor has its own accessible name.
 */

/** A view a component destroys when it goes. */
export interface Disposable {
  destroy(): void;
}

/** Where a view goes: a parent inside a shadow root (editorRoot in theme.ts). */
export interface Place {
  readonly parent: HTMLElement;
  readonly root: ShadowRoot;
}

// Focusable (tabindex) although read-only: a keyboard user scrolls a long view, and reads it line by line.
const named = (label: string) => EditorView.contentAttributes.of({ 'aria-label': label, tabindex: '0' });

/** F7 / Shift+F7 go to the next / previous change (as in other editors' diff views). */
const chunkKeys = Prec.high(
  keymap.of([
    { key: 'F7', run: goToNextChunk, preventDefault: true },
    { key: 'Shift-F7', run: goToPreviousChunk, preventDefault: true },
  ]),
);

/**
 * A read-only JSON view's extensions (line numbers, highlighting, folding, search: the basic
 * setup). Read-only but still focusable (CodeMirror's `editable` stays on): the keyboard can get
 * in, move, select, search and go from change to change.
 */
function readOnly(label: string, maxHeight?: string): Extension {
  return [basicSetup, json(), EditorState.readOnly.of(true), named(label), appTheme({ minHeight: '0', ...(maxHeight ? { maxHeight } : {}) })];
}

/** A view of two configs' differences, side by side or in one column. */
export interface DiffView extends Disposable {
  /** How many changed stretches there are. */
  readonly changes: number;
  /** Moves to the next (1) or previous (-1) change, in the focused or first editor. */
  go(by: 1 | -1): void;
}

/** The options of a diff view. */
export interface DiffOptions extends Place {
  readonly before: string;
  readonly after: string;
  readonly beforeLabel: string;
  readonly afterLabel: string;
  readonly layout: 'split' | 'unified';
  /** Fold unchanged stretches (3 lines of context kept around each change). */
  readonly collapse: boolean;
  readonly maxHeight: string;
}

/** Two texts' differences: a MergeView of two read-only editors, or one editor with the unified view of what changed. */
export function createDiffView(options: DiffOptions): DiffView {
  const collapse = options.collapse ? { collapseUnchanged: { margin: 3, minSize: 6 } } : {};
  if (options.layout === 'unified') {
    const view = new EditorView({
      parent: options.parent,
      root: options.root,
      doc: options.after,
      extensions: [
        readOnly(`${options.afterLabel}, with what changed since ${options.beforeLabel}`, options.maxHeight),
        unifiedMergeView({ original: options.before, mergeControls: false, gutter: true, ...collapse }),
        chunkKeys,
      ],
    });
    return {
      changes: getChunks(view.state)?.chunks.length ?? 0,
      go: (by) => void (by === 1 ? goToNextChunk : goToPreviousChunk)(view),
      destroy: () => view.destroy(),
    };
  }
  const merge = new MergeView({
    parent: options.parent,
    root: options.root,
    a: { doc: options.before, extensions: [readOnly(options.beforeLabel), chunkKeys] },
    b: { doc: options.after, extensions: [readOnly(options.afterLabel), chunkKeys] },
    gutter: true,
    ...collapse,
  });
  // CSSOM (not a style attribute, which the CSP would refuse): the merge view scrolls as one.
  merge.dom.style.maxHeight = options.maxHeight;
  merge.dom.style.overflow = 'auto';
  return {
    changes: merge.chunks.length,
    go(by) {
      const view = merge.b.hasFocus ? merge.b : merge.a;
      (by === 1 ? goToNextChunk : goToPreviousChunk)(view);
      view.focus();
    },
    destroy: () => merge.destroy(),
  };
}

/** One conflict's two sides, side by side, with the unchanged lines around it for context. */
export function createConflictView(options: Place & { readonly yours: string; readonly theirs: string; readonly yoursLabel: string; readonly theirsLabel: string; readonly firstLine: number }): Disposable {
  // The context lines are numbered as in the merged text, so "line 120" means the same everywhere.
  const numbered = lineNumbers({ formatNumber: (n) => String(n + options.firstLine - 1) });
  const side = (label: string): Extension => [json(), numbered, EditorState.readOnly.of(true), named(label), appTheme({ minHeight: '0', maxHeight: '40vh' })];
  const merge = new MergeView({
    parent: options.parent,
    root: options.root,
    a: { doc: options.yours, extensions: side(options.yoursLabel) },
    b: { doc: options.theirs, extensions: side(options.theirsLabel) },
    gutter: true,
  });
  return merge;
}

/** An editable (or read-only) JSON text: editing one conflict by hand, or the merged result. */
export interface TextView extends Disposable {
  text(): string;
  /** Shows `text` (a new preview), scrolled so that offset `at` is in view. */
  show(text: string, at?: number): void;
  focus(): void;
}

/** A JSON editor for one text, read-only or not; Ctrl/Cmd+Enter submits and Escape cancels when given. */
export function createTextView(options: Place & { readonly text: string; readonly label: string; readonly editable: boolean; readonly maxHeight: string; readonly onchange?: (text: string) => void; readonly onsubmit?: () => void; readonly oncancel?: () => void }): TextView {
  const keys = keymap.of([
    { key: 'Mod-Enter', run: () => (options.onsubmit?.(), true) },
    { key: 'Escape', run: () => (options.oncancel ? (options.oncancel(), true) : false) },
  ]);
  const view = new EditorView({
    parent: options.parent,
    root: options.root,
    doc: options.text,
    extensions: [
      basicSetup,
      json(),
      EditorState.readOnly.of(!options.editable),
      named(options.label),
      appTheme({ minHeight: options.editable ? '80px' : '0', maxHeight: options.maxHeight }),
      Prec.high(keys),
      EditorView.updateListener.of((update) => {
        if (update.docChanged) options.onchange?.(update.state.doc.toString());
      }),
    ],
  });
  return {
    text: () => view.state.doc.toString(),
    show(text, at) {
      const pos = Math.min(at ?? 0, text.length);
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text }, selection: { anchor: pos }, effects: EditorView.scrollIntoView(pos, { y: 'center' }) });
    },
    focus: () => view.focus(),
    destroy: () => view.destroy(),
  };
}
