import { checkConfig, type ConfigProblem } from './check';
import { formatEdits, applyTextEdits, type TextEdit } from './format';

/**
 * What a `ConfigDocument` needs of the editor showing it (ConfigEditor.svelte links one while it is
 * mounted). The editor holds the text while it is shown: reading 1 MiB out of CodeMirror costs a
 * join, so the document asks for it when someone needs it (a save) instead of on every keystroke.
 */
export interface EditorLink {
  /** The text as the editor shows it now. */
  text(): string;
  /** Show `text`: as a fresh start (`load`: the undo history starts over) or as an edit that Undo takes back. */
  show(text: string, as: 'load' | 'edit'): void;
  /** Apply `edits` (format's) as one undoable change, so the cursor stays where it was. */
  apply(edits: readonly TextEdit[]): void;
  /** Every problem of the text now, placed with the editor's syntax tree (faster than parsing again). */
  check(): readonly ConfigProblem[];
}

/**
 * One config being edited: the text as typed (sent as `robot_config_json`, so key order and layout
 * are the user's), the text it started from (`saved`: the base of a three-way merge when the
 * service's copy changed meanwhile), whether it has unsaved changes, and its problems (syntax and
 * schema) to show inline and to block a save with.
 *
 * A feature makes one per config it shows and hands it to `<ConfigEditor document={…}>`; it reads
 * `dirty` for its leave guards and `text` to save. Without an editor (tests, a page that only
 * merges) the document keeps the text itself.
 */
export class ConfigDocument {
  /** The text the current edits started from: what the service had when it was loaded or last saved. */
  saved = $state('');
  /** Whether the text differs from `saved` (the unsaved-changes guard reads this). */
  dirty = $state(false);
  /** Syntax and schema problems, as of the last check (the editor checks ~0.75 s after typing stops). */
  problems = $state.raw<readonly ConfigProblem[]>([]);
  /** How many of `problems` block saving. */
  readonly errors = $derived(this.problems.filter((p) => p.severity === 'error').length);

  #text: string;
  #editor: EditorLink | null = null;

  /** A document of `text`. Its problems are unknown (none) until checked: by its editor, `check()` or an `edit()`. */
  constructor(text = '') {
    this.saved = text;
    this.#text = text;
  }

  /** The text now, exactly as typed. */
  get text(): string {
    return this.#editor ? this.#editor.text() : this.#text;
  }

  /**
   * A config read from the service (or a draft's base): it becomes `saved` and is shown as a fresh
   * start, with no unsaved changes and no undo history into the previous config.
   */
  load(text: string): void {
    this.saved = text;
    this.#show(text, 'load');
    this.dirty = false;
  }

  /**
   * Shows `text` as an edit of the current one (Undo takes it back): a merged result, an older
   * version to restore. `saved` stays, so it is dirty unless it equals `saved`.
   */
  replace(text: string): void {
    this.#show(text, 'edit');
    this.dirty = text !== this.saved;
  }

  /**
   * After a conflict: `theirs` (what the service has now) becomes the base the next save is checked
   * against, and `merged` is shown as the user's edit of it.
   */
  rebase(theirs: string, merged: string): void {
    this.saved = theirs;
    this.replace(merged);
  }

  /**
   * The save of `sent` succeeded: it becomes `saved`. Dirty again only if the user typed on while it
   * was under way (the text is no longer what was sent).
   */
  markSaved(sent: string): void {
    this.saved = sent;
    this.dirty = this.text !== sent;
  }

  /** Back to `saved`, as an edit (Undo brings the changes back). */
  revert(): void {
    this.replace(this.saved);
  }

  /**
   * Lays the text out (two-space indents, keys in their order; see format.ts) as one undoable edit.
   * Answers why not when it cannot: a text that is not JSON is left as it is.
   */
  format(): string | null {
    const text = this.text;
    const edits = formatEdits(text);
    if (!edits) return 'Fix the JSON syntax first: formatting a broken text would move the mistake.';
    if (edits.length === 0) return null;
    if (this.#editor) this.#editor.apply(edits);
    else this.#text = applyTextEdits(text, edits);
    this.dirty = this.text !== this.saved;
    this.problems = this.#check();
    return null;
  }

  /** Checks the text now (before a save: the editor's own check may be waiting for typing to stop). */
  check(): readonly ConfigProblem[] {
    this.problems = this.#check();
    return this.problems;
  }

  /** An edit made without an editor (tests; a page that edits the text itself). */
  edit(text: string): void {
    if (this.#editor) return this.replace(text);
    this.#text = text;
    this.dirty = text !== this.saved;
    this.problems = checkConfig(text);
  }

  /**
   * The editor links itself while mounted (made showing `shows`, the document's `text` it read; or
   * it is shown the text now); the answer unlinks it, keeping the text it had, so a page that
   * unmounts its editor still knows what was typed.
   */
  attach(editor: EditorLink, shows?: string): () => void {
    // An editor made with the document's text (`shows`, the very string) shows it already: loading
    // it again would build the editor's state twice, and reading 1 MiB back to compare costs ~5 ms.
    if (shows !== this.#text && editor.text() !== this.#text) editor.show(this.#text, 'load');
    this.#editor = editor;
    return () => {
      if (this.#editor !== editor) return;
      this.#text = editor.text();
      this.#editor = null;
    };
  }

  /** The editor's report after a change: whether the text now differs from `saved` (it compares cheaply). */
  changed(dirty: boolean): void {
    this.dirty = dirty;
  }

  /** The editor's report after its check ran. */
  checked(problems: readonly ConfigProblem[]): void {
    this.problems = problems;
  }

  #show(text: string, as: 'load' | 'edit'): void {
    if (this.#editor) this.#editor.show(text, as);
    else this.#text = text;
    // With an editor, its linter checks the new text on its own (at once after a load); until then a
    // loaded text must not show the previous config's problems.
    if (!this.#editor) this.problems = checkConfig(text);
    else if (as === 'load') this.problems = [];
  }

  #check(): readonly ConfigProblem[] {
    return this.#editor ? this.#editor.check() : checkConfig(this.#text);
  }
}
