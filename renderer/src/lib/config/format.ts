import { format } from 'jsonc-parser';

/** A replacement of `from`–`to` of a text by `insert` (CodeMirror's change shape). */
export interface TextEdit {
  readonly from: number;
  readonly to: number;
  readonly insert: string;
}

/**
 * The whitespace edits that lay a config out with two-space indents, one value per line: only
 * whitespace between tokens changes (jsonc-parser's formatter), so keys stay in the order typed
 * and every string, number and escape stays as written. Null when the text is not JSON: laying out
 * a broken text moves its mistake somewhere harder to see.
 */
export function formatEdits(text: string): TextEdit[] | null {
  try {
    JSON.parse(text);
  } catch {
    return null;
  }
  return format(text, undefined, { tabSize: 2, insertSpaces: true, eol: '\n', insertFinalNewline: true }).map((e) => ({ from: e.offset, to: e.offset + e.length, insert: e.content }));
}

/** `text` with `edits` (ordered, not overlapping) applied. */
export function applyTextEdits(text: string, edits: readonly TextEdit[]): string {
  let out = '';
  let at = 0;
  for (const edit of edits) {
    out += text.slice(at, edit.from) + edit.insert;
    at = edit.to;
  }
  return out + text.slice(at);
}

/** The config laid out (see `formatEdits`), or null when it is not JSON. */
export function formatConfig(text: string): string | null {
  const edits = formatEdits(text);
  return edits && applyTextEdits(text, edits);
}
