import { assemble, type MergeConflict, type ThreeWayMerge } from './merge-result';

/** How a conflict was settled: one side's lines, or text the user wrote. */
export type Resolution = { readonly take: 'yours' | 'theirs' } | { readonly take: 'edited'; readonly text: string };

/** The three-line marker text of an unresolved conflict in the preview. */
const marker = (c: MergeConflict) => `<<<<<<< conflict ${c.index + 1}: yours / theirs >>>>>>>\n`;

/** The last `n` lines of `text` (found from its end: the text may be 1 MiB). */
function lastLines(text: string, n: number): string {
  let at = text.length - 1;
  for (let k = 0; k < n && at > 0; k++) at = text.lastIndexOf('\n', at - 1);
  return text.slice(at + 1);
}

/** The first `n` lines of `text`. */
function firstLines(text: string, n: number): string {
  let at = -1;
  for (let k = 0; k < n; k++) {
    at = text.indexOf('\n', at + 1);
    if (at === -1) return text;
  }
  return text.slice(0, at + 1);
}

/**
 * Settling a three-way merge's conflicts one by one: which conflict is shown, how each was settled
 * (taken from one side, or edited), and the merged text once every one is (`result`). ConflictMerge.svelte
 * draws it; the page makes one from `mergeConfigs(base, yours, theirs)` and, with the result, saves
 * again against the service's new version (which may conflict again).
 */
export class ConflictResolution {
  readonly merge: ThreeWayMerge;
  /** How each conflict was settled, by index; null while it is not. */
  resolutions = $state<(Resolution | null)[]>([]);
  /** The conflict shown. */
  current = $state(0);

  /** How many conflicts are still to settle. */
  readonly unresolved = $derived(this.resolutions.filter((r) => r === null).length);

  /** The merged text once every conflict is settled; null before. */
  readonly result = $derived.by(() => assemble(this.merge, this.resolutions.map((r, i) => (r ? this.#text(i, r) : null))));

  constructor(merge: ThreeWayMerge) {
    this.merge = merge;
    this.resolutions = merge.conflicts.map(() => null);
  }

  /** The conflicts, in the text's order. */
  get conflicts(): readonly MergeConflict[] {
    return this.merge.conflicts;
  }

  /** The text a settled conflict contributes. */
  #text(index: number, resolution: Resolution): string {
    const conflict = this.merge.conflicts[index];
    if (!conflict) return '';
    return resolution.take === 'edited' ? resolution.text : conflict[resolution.take];
  }

  /** The text conflict `index` contributes now, or null while unsettled. */
  textOf(index: number): string | null {
    const resolution = this.resolutions[index];
    return resolution ? this.#text(index, resolution) : null;
  }

  /** Settles conflict `index` (the shown one by default) with one side, and shows the next unsettled one. */
  take(side: 'yours' | 'theirs', index = this.current): void {
    this.#settle(index, { take: side });
  }

  /** Settles conflict `index` with the user's own text. */
  edit(text: string, index = this.current): void {
    this.#settle(index, { take: 'edited', text });
  }

  /** Unsettles conflict `index`. */
  reopen(index = this.current): void {
    this.resolutions[index] = null;
    this.current = index;
  }

  /** Settles every conflict not yet settled with one side. */
  takeAll(side: 'yours' | 'theirs'): void {
    this.resolutions = this.resolutions.map((r) => r ?? { take: side });
  }

  /** Shows the next (or, with -1, previous) conflict, wrapping around. */
  step(by: 1 | -1): void {
    const count = this.merge.conflicts.length;
    if (count > 0) this.current = (this.current + by + count) % count;
  }

  /**
   * The merged text as it stands, each unsettled conflict as a marker line; where each conflict
   * starts in it (offset, and 1-based line, for showing and scrolling to the current one).
   */
  preview(): { text: string; starts: number[]; lines: number[] } {
    const parts: string[] = [];
    const starts: number[] = [];
    const lines: number[] = [];
    let at = 0;
    let line = 1;
    for (const piece of this.merge.pieces) {
      let text: string;
      if (typeof piece === 'string') text = piece;
      else {
        starts[piece.index] = at;
        lines[piece.index] = line;
        text = this.textOf(piece.index) ?? marker(piece);
      }
      parts.push(text);
      at += text.length;
      for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', nl + 1)) line++;
    }
    return { text: parts.join(''), starts, lines };
  }

  /** The merged text's lines around conflict `index` (up to `lines` before and after), for context beside it. */
  context(index: number, lines = 3): { before: string; after: string } {
    const at = this.merge.pieces.findIndex((p) => typeof p !== 'string' && p.index === index);
    const prev = this.merge.pieces[at - 1];
    const next = this.merge.pieces[at + 1];
    return { before: typeof prev === 'string' ? lastLines(prev, lines) : '', after: typeof next === 'string' ? firstLines(next, lines) : '' };
  }

  #settle(index: number, resolution: Resolution): void {
    if (index < 0 || index >= this.resolutions.length) return;
    this.resolutions[index] = resolution;
    // On to the next unsettled conflict after this one (wrapping), so settling goes down the list.
    const count = this.resolutions.length;
    for (let k = 1; k <= count; k++) {
      const i = (index + k) % count;
      if (this.resolutions[i] === null) return void (this.current = i);
    }
    this.current = index;
  }
}
