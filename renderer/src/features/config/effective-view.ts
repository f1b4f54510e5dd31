import { json } from '@codemirror/lang-json';
import { EditorSelection, EditorState, RangeSet, RangeSetBuilder } from '@codemirror/state';
import { Decoration, EditorView, GutterMarker, gutter, type DecorationSet } from '@codemirror/view';
import { basicSetup } from 'codemirror';
import { appTheme } from '../../lib/config/theme';
import type { MarkedConfig } from './provenance';

/**
 * The effective config's read-only CodeMirror, loaded when the view is shown (CodeMirror is large):
 * each fragment's blocks get a colored bar in a gutter of their own and a tinted left edge, the
 * first line of a block names its source, and values set by `fragment_mods` are underlined with what
 * they replaced as their title. Still focusable, so the keyboard reads, searches and copies it.
 */

/** The view as its component drives it. */
export interface EffectiveView {
  /** Scroll to `from` and put the cursor there (a legend entry was chosen): reading on from there is what the user wants. */
  reveal(from: number): void;
  destroy(): void;
}

class SourceMarker extends GutterMarker {
  constructor(
    readonly color: number,
    readonly title: string,
    readonly first: boolean,
  ) {
    super();
  }
  override eq(other: SourceMarker): boolean {
    return other.color === this.color && other.title === this.title && other.first === this.first;
  }
  override toDOM(): Node {
    const bar = document.createElement('span');
    bar.className = `cm-source-bar${this.first ? ' cm-source-first' : ''}`;
    bar.style.background = `var(--part-${this.color})`;
    bar.title = this.title;
    return bar;
  }
}

/** The view of `marked` under `parent` (inside a shadow root from editorRoot). */
export function createEffectiveView(options: { readonly parent: HTMLElement; readonly root: ShadowRoot; readonly marked: MarkedConfig; readonly label: string; readonly maxHeight: string }): EffectiveView {
  const { marked } = options;
  const doc = EditorState.create({ doc: marked.text }).doc;
  const colorOf = new Map(marked.groups.map((g) => [g.key, g] as const));

  // Line markers and tints: a block's lines, in text order (blocks never overlap: each is one element of a section).
  const markers = new RangeSetBuilder<GutterMarker>();
  const lines = new RangeSetBuilder<Decoration>();
  for (const block of [...marked.blocks].sort((a, b) => a.from - b.from)) {
    const group = colorOf.get(block.group);
    if (!group || group.color < 0) continue;
    const title = `${block.label}: from ${group.label}${group.chain ? ` (${group.chain})` : ''}`;
    const first = doc.lineAt(block.from).number;
    const last = doc.lineAt(block.to).number;
    for (let n = first; n <= last; n++) {
      const line = doc.line(n);
      markers.add(line.from, line.from, new SourceMarker(group.color, title, n === first));
      lines.add(line.from, line.from, Decoration.line({ attributes: { class: `cm-source cm-source-${group.color}`, ...(n === first ? { 'data-source': group.label } : {}) } }));
    }
  }
  const markerSet = markers.finish();
  const mods: DecorationSet = RangeSet.of(
    marked.mods.filter((m) => m.from >= 0).map((m) => Decoration.mark({ class: 'cm-mod', attributes: { title: m.label } }).range(m.from, m.to)),
    true,
  );
  const tints = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`.cm-source-${i}`, { boxShadow: `inset 3px 0 0 var(--part-${i})` }]));

  const view = new EditorView({
    parent: options.parent,
    root: options.root,
    state: EditorState.create({
      doc: marked.text,
      extensions: [
        basicSetup,
        json(),
        EditorState.readOnly.of(true),
        EditorView.contentAttributes.of({ 'aria-label': options.label, tabindex: '0' }),
        appTheme({ minHeight: '0', maxHeight: options.maxHeight }),
        gutter({ class: 'cm-source-gutter', markers: () => markerSet }),
        EditorView.decorations.of(lines.finish()),
        EditorView.decorations.of(mods),
        EditorView.theme({
          ...tints,
          // The cursor's line number stays readable on the active line's tint (the faint gutter color is too light there).
          '.cm-activeLineGutter': { color: 'var(--text-muted)' },
          '.cm-source-gutter': { width: '6px' },
          '.cm-source-bar': { display: 'block', width: '4px', height: '100%', marginLeft: '1px' },
          '.cm-source-first': { borderTopLeftRadius: '2px', borderTopRightRadius: '2px' },
          '.cm-mod': { textDecoration: 'underline wavy var(--warn)', textUnderlineOffset: '3px', backgroundColor: 'var(--warn-bg)' },
        }),
      ],
    }),
  });
  return {
    reveal(from) {
      view.dispatch({ selection: EditorSelection.cursor(from), effects: EditorView.scrollIntoView(from, { y: 'start', yMargin: 24 }) });
      view.focus();
    },
    destroy: () => view.destroy(),
  };
}
