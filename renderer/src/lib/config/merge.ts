import { diff, type Change } from '@codemirror/merge';
import { diff3Merge } from 'node-diff3';
import type { MergeConflict, ThreeWayMerge } from './merge-result';

export type { MergeConflict, ThreeWayMerge } from './merge-result';
export { assemble, withMarkers } from './merge-result';

/**
 * Three-way merge of config text: `base` is what the user started from, `yours` what they made of
 * it, `theirs` what the service has now. Changes that do not touch the same lines merge by
 * themselves; changes to the same lines come back as conflicts, each with its three versions, to
 * pick from or edit (ConflictMerge.svelte). The result is text: each side's layout and key order
 * survive wherever that side changed something.
 *
 * How: node-diff3 merges line by line, but its longest-common-subsequence step slows down
 * quadratically on repeated lines (`},` appears thousands of times in a 1 MiB config), so it cannot
 * take a whole config (minutes). The two-way line diffs base→yours and base→theirs come first, from
 * @codemirror/merge's `diff` (Myers: fast when the texts differ little) over lines encoded as
 * characters: every line neither side touched is a fixed point where the three texts agree, and
 * node-diff3 merges only what lies between fixed points — a few lines each. A stretch both sides
 * rewrote wholesale (over MAX_DIFF3_LINES) is one conflict rather than minutes of diff3.
 *
 * It brings @codemirror/merge: pages call `mergeConfigs` (merge-result.ts), which loads it when needed.
 */

/** Beyond this many lines on a side, a stretch both sides changed is one conflict instead of a diff3 (quadratic on repeated lines). */
export const MAX_DIFF3_LINES = 4_000;

/** The diff's budget: past it, @codemirror/merge falls back to coarser (still correct) changes, so more conflicts. */
const DIFF_CONFIG = { timeout: 500 };

/** `text` cut into lines that keep their newline, so that joining them gives `text` back. */
export function splitLines(text: string): string[] {
  const lines: string[] = [];
  let at = 0;
  for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', at)) {
    lines.push(text.slice(at, nl + 1));
    at = nl + 1;
  }
  if (at < text.length) lines.push(text.slice(at));
  return lines;
}

/**
 * Lines as single characters, one per distinct line, so that @codemirror/merge's character diff
 * diffs lines (diff-match-patch's linesToChars): a 1 MiB config is ~50,000 lines, where a
 * character diff of its 1,200,000 characters costs 300 ms, or gives up to one change of everything.
 * Null when there are more distinct lines than characters outside the surrogates.
 */
function encodeLines(texts: readonly (readonly string[])[]): string[] | null {
  const ids = new Map<string, number>();
  const out: string[] = [];
  for (const lines of texts) {
    const codes = new Array<number>(lines.length);
    for (let i = 0; i < lines.length; i++) {
      let id = ids.get(lines[i]);
      if (id === undefined) {
        id = ids.size < 0xd800 ? ids.size : ids.size + 0x800;
        if (id > 0xffff) return null;
        ids.set(lines[i], id);
      }
      codes[i] = id;
    }
    let text = '';
    for (let i = 0; i < codes.length; i += 8192) text += String.fromCharCode(...codes.slice(i, i + 8192));
    out.push(text);
  }
  return out;
}

/**
 * One side's changes against the base, per base line: which lines it touched (`touched[i]`), and
 * where an untouched line is in the side's lines (`line(i)`, asked in increasing order). The
 * changes are @codemirror/merge's, in lines: ordered, not overlapping.
 */
interface SideMap {
  readonly touched: Uint8Array;
  line(baseLine: number): number;
}

function sideMap(baseLines: number, changes: readonly Change[]): SideMap {
  const touched = new Uint8Array(baseLines);
  for (const c of changes) touched.fill(1, c.fromA, c.toA);
  let next = 0;
  let shift = 0;
  return {
    touched,
    line(i) {
      for (; next < changes.length && changes[next].toA <= i; next++) shift += changes[next].toB - changes[next].fromB - (changes[next].toA - changes[next].fromA);
      return i + shift;
    },
  };
}

/** Merges one stretch between fixed lines: the easy cases at once, the rest through diff3. */
function mergeStretch(o: readonly string[], a: readonly string[], b: readonly string[], out: (string | Omit<MergeConflict, 'index'>)[]): void {
  const [base, yours, theirs] = [o.join(''), a.join(''), b.join('')];
  if (yours === base || yours === theirs) return void out.push(theirs);
  if (theirs === base) return void out.push(yours);
  if (Math.max(a.length, o.length, b.length) > MAX_DIFF3_LINES) return void out.push({ base, yours, theirs });
  for (const region of diff3Merge([...a], [...o], [...b], { excludeFalseConflicts: true })) {
    if (region.ok) out.push(region.ok.join(''));
    else if (region.conflict) out.push({ base: region.conflict.o.join(''), yours: region.conflict.a.join(''), theirs: region.conflict.b.join('') });
  }
}

/** Three-way merges config text (see the module's comment). */
export function mergeText(base: string, yours: string, theirs: string): ThreeWayMerge {
  if (yours === theirs || theirs === base) return clean(yours);
  if (yours === base) return clean(theirs);
  const [o, a, b] = [splitLines(base), splitLines(yours), splitLines(theirs)];
  const encoded = encodeLines([o, a, b]);
  // Too many distinct lines to encode (not a config): one stretch, diff3 or one conflict.
  if (!encoded) return collect(stretchOut(o, a, b));
  const [eo, ea, eb] = encoded as [string, string, string];
  const mine = sideMap(o.length, diff(eo, ea, DIFF_CONFIG));
  const other = sideMap(o.length, diff(eo, eb, DIFF_CONFIG));

  const out: (string | Omit<MergeConflict, 'index'>)[] = [];
  // Lines just past the last fixed line, in the three texts; the current run of fixed lines.
  let [io, ia, ib] = [0, 0, 0];
  let fixedFrom = -1;
  const flushFixed = () => {
    if (fixedFrom >= 0) out.push(o.slice(fixedFrom, io).join(''));
    fixedFrom = -1;
  };
  for (let i = 0; i < o.length; i++) {
    if (mine.touched[i] || other.touched[i]) continue;
    const [la, lb] = [mine.line(i), other.line(i)];
    if (i !== io || la !== ia || lb !== ib) {
      flushFixed();
      mergeStretch(o.slice(io, i), a.slice(ia, la), b.slice(ib, lb), out);
    }
    if (fixedFrom < 0) fixedFrom = i;
    [io, ia, ib] = [i + 1, la + 1, lb + 1];
  }
  flushFixed();
  if (io < o.length || ia < a.length || ib < b.length) mergeStretch(o.slice(io), a.slice(ia), b.slice(ib), out);
  return collect(out);
}

function stretchOut(o: readonly string[], a: readonly string[], b: readonly string[]): (string | Omit<MergeConflict, 'index'>)[] {
  const out: (string | Omit<MergeConflict, 'index'>)[] = [];
  mergeStretch(o, a, b, out);
  return out;
}

const clean = (text: string): ThreeWayMerge => ({ pieces: text === '' ? [] : [text], conflicts: [], text });

/** Joins runs of merged text and numbers the conflicts. */
function collect(out: readonly (string | Omit<MergeConflict, 'index'>)[]): ThreeWayMerge {
  const pieces: (string | MergeConflict)[] = [];
  const conflicts: MergeConflict[] = [];
  let run: string[] = [];
  const flush = () => {
    if (run.length > 0) pieces.push(run.join(''));
    run = [];
  };
  for (const piece of out) {
    if (typeof piece === 'string') {
      if (piece !== '') run.push(piece);
      continue;
    }
    flush();
    const conflict = { index: conflicts.length, ...piece };
    conflicts.push(conflict);
    pieces.push(conflict);
  }
  flush();
  return { pieces, conflicts, text: conflicts.length === 0 ? pieces.join('') : null };
}
