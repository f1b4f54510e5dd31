/**
 * Edits of a part config's `fragments` and `fragment_mods`, made on the text (jsonc-parser's
 * modify): only the value changed is rewritten, so the rest of the config keeps its key order,
 * spacing and comments-free layout exactly as the user or the service wrote it.
 */
import { applyEdits, findNodeAtLocation, format, modify, parseTree, type FormattingOptions, type JSONPath } from 'jsonc-parser';
import type { JsonValue } from '../../../../common/schemas';
import { lineBreakOf } from '../../lib/config/format';

/** A fragment as a config names it: by id, at a version (absent: the latest), with a prefix for its blocks' names. */
export interface FragmentRef {
  readonly id: string;
  readonly version?: string;
  readonly prefix?: string;
}

/** One `fragment_mods` change of a fragment's values, as the mods editor shows it. */
export interface ModRow {
  readonly op: '$set' | '$unset';
  /** The dotted path (`components.lidar.attributes.scan_rate_hz`). */
  readonly path: string;
  /** For `$set`: the value as JSON text (`20`, `"fast"`, `{"a": 1}`); ignored for `$unset`. */
  readonly value: string;
}

/** The indentation the text already uses (two spaces when it shows none), so inserted values look like their neighbours. */
function formatting(text: string): FormattingOptions {
  const indent = /\n([ \t]+)\S/.exec(text)?.[1] ?? '  ';
  return indent.startsWith('\t') ? { insertSpaces: false, tabSize: 1, eol: lineBreakOf(text) } : { insertSpaces: true, tabSize: indent.length, eol: lineBreakOf(text) };
}

/**
 * `text` with the value at `path` set (undefined: removed). Only what was inserted is laid out:
 * jsonc-parser's own formatting would also re-lay the neighbouring value, which must stay as written.
 */
function edit(text: string, path: JSONPath, value: JsonValue | undefined, insert = false): string {
  const options = formatting(text);
  let out = text;
  for (const change of modify(text, path, value, { isArrayInsertion: insert })) {
    out = applyEdits(out, [change]);
    out = applyEdits(out, format(out, { offset: change.offset, length: change.content.length }, options));
  }
  return out;
}

function parsed(text: string): Record<string, unknown> {
  const value = JSON.parse(text) as unknown;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('The config is not a JSON object; fix it in the editor first.');
  return value as Record<string, unknown>;
}

/** The config's `fragments` entries, read as refs (an entry that is neither an id nor an object with one is skipped, but keeps its index). */
export function fragmentRefs(text: string): (FragmentRef | null)[] {
  const list = parsed(text)['fragments'];
  if (!Array.isArray(list)) return [];
  return list.map((entry: unknown) => {
    if (typeof entry === 'string') return { id: entry };
    if (typeof entry !== 'object' || entry === null || typeof (entry as { id?: unknown }).id !== 'string') return null;
    const { id, version, prefix } = entry as { id: string; version?: unknown; prefix?: unknown };
    return { id, ...(typeof version === 'string' ? { version } : {}), ...(typeof prefix === 'string' ? { prefix } : {}) };
  });
}

/** A ref as the config writes it: the bare id when it asks for nothing more (the service's own short form). */
const written = (ref: FragmentRef): JsonValue => (ref.version === undefined && ref.prefix === undefined ? ref.id : { id: ref.id, ...(ref.version !== undefined ? { version: ref.version } : {}), ...(ref.prefix !== undefined ? { prefix: ref.prefix } : {}) });

/** `text` with `ref` added at the end of `fragments` (made when the config has none). */
export function addFragment(text: string, ref: FragmentRef): string {
  const config = parsed(text);
  if (!Array.isArray(config['fragments'])) return edit(text, ['fragments'], [written(ref)]);
  return edit(text, ['fragments', -1], written(ref), true);
}

/** `text` with the `index`th fragment removed, and its mods when no other entry names the same fragment. */
export function removeFragment(text: string, index: number): string {
  const refs = fragmentRefs(text);
  const removed = refs[index];
  let out = edit(text, ['fragments', index], undefined);
  if (removed && !refs.some((r, i) => i !== index && r?.id === removed.id)) out = setMods(out, removed.id, []);
  return out;
}

/**
 * `text` with the `index`th fragment asking for `version` (absent: the latest) and `prefix` (absent:
 * none). An object entry keeps its other keys; a bare id becomes an object only when it must.
 */
export function setFragmentRef(text: string, index: number, change: { readonly version?: string; readonly prefix?: string }): string {
  const ref = fragmentRefs(text)[index];
  if (!ref) throw new Error(`The config has no fragment at fragments[${index}].`);
  const node = findNodeAtLocation(parseTree(text) ?? { type: 'null', offset: 0, length: 0 }, ['fragments', index]);
  if (node?.type !== 'object') return edit(text, ['fragments', index], written({ id: ref.id, ...change }));
  let out = edit(text, ['fragments', index, 'version'], change.version);
  out = edit(out, ['fragments', index, 'prefix'], change.prefix);
  return out;
}

/** The mods the config gives `fragmentId`, one row per path (every `fragment_mods` entry for it, in order). */
export function modsOf(text: string, fragmentId: string): ModRow[] {
  const entries = parsed(text)['fragment_mods'];
  if (!Array.isArray(entries)) return [];
  const rows: ModRow[] = [];
  for (const entry of entries as unknown[]) {
    const e = entry as { fragment_id?: unknown; mods?: unknown } | null;
    if (e?.fragment_id !== fragmentId || !Array.isArray(e.mods)) continue;
    for (const mod of e.mods as unknown[]) {
      for (const op of ['$set', '$unset'] as const) {
        const paths = (mod as Record<string, unknown> | null)?.[op];
        if (typeof paths !== 'object' || paths === null) continue;
        for (const [path, value] of Object.entries(paths)) rows.push({ op, path, value: op === '$set' ? JSON.stringify(value) : '' });
      }
    }
  }
  return rows;
}

/** What is wrong with a row, or null: a path of dotted names, and for `$set` a JSON value. */
export function modRowProblem(row: ModRow): string | null {
  if (!/^[^.\s]+(\.[^.\s]+)*$/.test(row.path.trim())) return 'The path must be dotted names, such as components.lidar.attributes.scan_rate_hz.';
  if (row.op === '$unset') return null;
  try {
    JSON.parse(row.value);
    return null;
  } catch {
    return `The value of ${row.path.trim()} is not JSON: write a number (20), true/false, null, a "quoted string", an array or an object.`;
  }
}

/**
 * `text` with `fragmentId`'s mods replaced by `rows` (one `{"$set"|"$unset": {path: value}}` a row):
 * its first entry is rewritten, later ones for it removed; no rows remove its entry (and
 * `fragment_mods` when it is left empty). Rows must be valid (modRowProblem).
 */
export function setMods(text: string, fragmentId: string, rows: readonly ModRow[]): string {
  const mods: JsonValue[] = rows.map((r) => ({ [r.op]: { [r.path.trim()]: r.op === '$set' ? (JSON.parse(r.value) as JsonValue) : '' } }));
  const entries = parsed(text)['fragment_mods'];
  const list = Array.isArray(entries) ? (entries as unknown[]) : [];
  const mine = list.flatMap((e, i) => ((e as { fragment_id?: unknown } | null)?.fragment_id === fragmentId ? [i] : []));
  let out = text;
  // Later entries first, so the indexes of the earlier ones hold.
  for (const i of mine.slice(1).reverse()) out = edit(out, ['fragment_mods', i], undefined);
  const first = mine[0];
  if (first !== undefined) {
    if (mods.length > 0) return edit(out, ['fragment_mods', first, 'mods'], mods);
    return list.length - mine.length === 0 ? edit(out, ['fragment_mods'], undefined) : edit(out, ['fragment_mods', first], undefined);
  }
  if (mods.length === 0) return out;
  const entry = { fragment_id: fragmentId, mods };
  return Array.isArray(entries) ? edit(out, ['fragment_mods', -1], entry, true) : edit(out, ['fragment_mods'], [entry]);
}
