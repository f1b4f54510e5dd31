import { json, jsonLanguage } from '@codemirror/lang-json';
import { forceLinting, linter, lintGutter, openLintPanel, type Diagnostic } from '@codemirror/lint';
import { Compartment, EditorState, Text, type Extension } from '@codemirror/state';
import { EditorView, keymap } from '@codemirror/view';
import { basicSetup } from 'codemirror';
import { checkConfig, type ConfigProblem } from './check';
import { configCompletionSource, type ConfigChoices } from './completion';
import { applyTextEdits, lineBreakOf } from './format';
import type { EditorLink } from './document.svelte';
import { treeLocator } from './syntax';
import { appTheme } from './theme';

/**
 * The config editor's CodeMirror, apart from the component so that it loads only when an editor is
 * shown (CodeMirror is the app's largest module). ConfigEditor.svelte imports it dynamically.
 */

/** What the component hands the editor. */
export interface ConfigViewOptions {
  readonly parent: HTMLElement;
  readonly root: ShadowRoot;
  /** The text to show first (the document's). */
  readonly text: string;
  /** The accessible name of the text area ("Config of part amr-001-main"). */
  readonly label: string;
  /** The id of the element that says the editor's state (problems, unsaved changes). */
  readonly describedBy: string;
  readonly readonly: boolean;
  readonly maxHeight: string;
  /** The text the document started from, read on each change to tell whether it is dirty. */
  readonly saved: () => string;
  readonly choices: () => ConfigChoices;
  readonly onchange: (dirty: boolean) => void;
  readonly onchecked: (problems: readonly ConfigProblem[]) => void;
  readonly onsave: () => void;
  readonly onformat: () => void;
}

/** The editor as the component drives it. */
export interface ConfigView {
  readonly view: EditorView;
  readonly link: EditorLink;
  relabel(label: string): void;
  setReadonly(readonly: boolean): void;
  /** Opens the list of problems (CodeMirror's lint panel), which the keyboard can walk. */
  showProblems(): void;
  destroy(): void;
}

/** How long after typing stops the config is checked again (CodeMirror's default is 750 ms). */
const CHECK_DELAY_MS = 500;

/**
 * The line break the editor splits the text by: the text's own (format.ts's `lineBreakOf`), so the
 * text comes back out exactly as it went in (CodeMirror would otherwise read \r\n as a break and
 * give back \n; with \n, a stray \r stays a character of its line). The text is read with
 * `sliceDoc`, which joins lines with it; checks read `doc.toString()` (breaks as \n), whose offsets
 * are the editor's.
 */
export const separator = lineBreakOf;

const diagnostic = (problem: ConfigProblem): Diagnostic => ({ from: problem.from, to: problem.to, severity: problem.severity, message: problem.message, source: problem.where === '' ? 'JSON' : 'schema' });

/**
 * The editor: CodeMirror's basic setup (line numbers, folding, search, history, bracket closing,
 * completion, the lint gutter and panel), JSON, the config checks and completion, Ctrl/Cmd+S and
 * Shift+Alt+F, the app's colors; and its link for the ConfigDocument.
 */
export function createConfigView(options: ConfigViewOptions): ConfigView {
  // The current label and mode, which a load's fresh state must start with too.
  let label = options.label;
  let readonly = options.readonly;
  const labelSlot = new Compartment();
  const readonlySlot = new Compartment();
  const labelled = (name: string) => EditorView.contentAttributes.of({ 'aria-label': name, 'aria-describedby': options.describedBy, tabindex: '0' });
  // Read-only keeps the text focusable (CodeMirror's `editable` stays on), so it can still be read,
  // searched and copied from the keyboard.
  const editable = (locked: boolean) => EditorState.readOnly.of(locked);

  // Whether the text is dirty, found cheaply: a different length says so at once; the same length
  // needs a comparison of the whole text, which runs after the keystroke's frame, once per burst.
  // The saved text as CodeMirror's Text is the loaded state's own doc when they are the same text
  // (the usual case), so the first keystroke does not split 1 MiB into lines.
  let savedString: string | null = null;
  let savedText = Text.empty;
  const savedDoc = () => {
    const saved = options.saved();
    if (saved !== savedString) [savedString, savedText] = [saved, Text.of(saved.split(view.state.lineBreak))];
    return savedText;
  };
  const loaded = (state: EditorState, text: string) => {
    if (text === options.saved()) [savedString, savedText] = [text, state.doc];
    return state;
  };
  let comparing: ReturnType<typeof setTimeout> | null = null;
  const compare = (view: EditorView) => {
    const doc = view.state.doc;
    const saved = savedDoc();
    if (doc.length !== saved.length) return options.onchange(true);
    if (comparing !== null) return;
    comparing = setTimeout(() => {
      comparing = null;
      options.onchange(!view.state.doc.eq(savedDoc()));
    }, 0);
  };

  const extensions = (): Extension => [
    basicSetup,
    json(),
    jsonLanguage.data.of({ autocomplete: configCompletionSource(options.choices) }),
    linter(
      (view) => {
        const problems = checkConfig(view.state.doc.toString(), treeLocator(view.state));
        options.onchecked(problems);
        return problems.map(diagnostic);
      },
      { delay: CHECK_DELAY_MS },
    ),
    lintGutter(),
    keymap.of([
      { key: 'Mod-s', preventDefault: true, run: () => (options.onsave(), true) },
      { key: 'Shift-Alt-f', preventDefault: true, run: () => (options.onformat(), true) },
    ]),
    appTheme({ maxHeight: options.maxHeight }),
    labelSlot.of(labelled(label)),
    readonlySlot.of(editable(readonly)),
    EditorView.updateListener.of((update) => {
      if (update.docChanged) compare(update.view);
    }),
  ];

  const create = (text: string) => loaded(EditorState.create({ doc: text, extensions: [extensions(), EditorState.lineSeparator.of(separator(text))] }), text);
  const view = new EditorView({ parent: options.parent, root: options.root, state: create(options.text) });

  const link: EditorLink = {
    // With the text's own line breaks (toString would join lines with \n).
    text: () => view.state.sliceDoc(),
    show(text, as) {
      if (as === 'load') {
        // The linter checks a fresh state after its delay by itself: opening does not wait for a
        // check of 1 MiB (a stored config is seldom wrong; its problems show half a second later).
        view.setState(create(text));
      } else {
        view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text }, userEvent: 'input.replace' });
        // A text put in by the page (a merge, a restored version) is checked at once, not after the typing delay.
        forceLinting(view);
      }
    },
    apply(edits) {
      // The edits' offsets are in the text as `text()` gives it; the editor's count a \r\n as one.
      if (view.state.lineBreak !== '\n') {
        view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: applyTextEdits(view.state.sliceDoc(), edits) }, userEvent: 'input.format' });
        return;
      }
      view.dispatch({ changes: edits.map((e) => ({ from: e.from, to: e.to, insert: e.insert })), userEvent: 'input.format', scrollIntoView: true });
    },
    check() {
      const problems = checkConfig(view.state.doc.toString(), treeLocator(view.state));
      options.onchecked(problems);
      return problems;
    },
  };

  return {
    view,
    link,
    relabel(name) {
      // Reconfiguring recomputes the whole state's configuration (~15 ms at 1 MiB): only on a change.
      if (name === label) return;
      label = name;
      view.dispatch({ effects: labelSlot.reconfigure(labelled(name)) });
    },
    setReadonly(locked) {
      if (locked === readonly) return;
      readonly = locked;
      view.dispatch({ effects: readonlySlot.reconfigure(editable(locked)) });
    },
    showProblems: () => {
      openLintPanel(view);
    },
    destroy() {
      if (comparing !== null) clearTimeout(comparing);
      view.destroy();
    },
  };
}
