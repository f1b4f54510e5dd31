/**
 * A three-way merge's outcome, and what to do with it, apart from the merge itself (merge.ts, which
 * loads @codemirror/merge): pages and ConflictMerge.svelte import this without pulling CodeMirror in.
 */

/** A place both sides changed differently, with the three versions of its lines (each ends with its newline, but maybe the last). */
export interface MergeConflict {
  /** Its position among the merge's conflicts. */
  readonly index: number;
  readonly base: string;
  readonly yours: string;
  readonly theirs: string;
}

/** A merge's outcome: the merged text in pieces, between which each conflict's resolution goes. */
export interface ThreeWayMerge {
  /** Merged text and conflicts in order (runs of merged text joined). */
  readonly pieces: readonly (string | MergeConflict)[];
  readonly conflicts: readonly MergeConflict[];
  /** The merged text when there is no conflict; null otherwise (`assemble` it with resolutions). */
  readonly text: string | null;
}

/**
 * The merged text with `resolutions[i]` in place of conflict i; null while any is missing. A
 * resolution is any text: one side's, or the user's own.
 */
export function assemble(merge: ThreeWayMerge, resolutions: readonly (string | null | undefined)[]): string | null {
  if (merge.text !== null) return merge.text;
  const parts: string[] = [];
  for (const piece of merge.pieces) {
    if (typeof piece === 'string') parts.push(piece);
    else {
      const chosen = resolutions[piece.index];
      if (chosen === null || chosen === undefined) return null;
      parts.push(chosen);
    }
  }
  return parts.join('');
}

/**
 * The merge as one text with git's conflict markers around each conflict (<<<<<<< yours, |||||||
 * base, =======, >>>>>>> theirs): for editing every conflict at once in the editor.
 */
export function withMarkers(merge: ThreeWayMerge): string {
  const eol = (s: string) => (s === '' || s.endsWith('\n') ? s : `${s}\n`);
  return merge.pieces
    .map((piece) => (typeof piece === 'string' ? piece : `<<<<<<< yours\n${eol(piece.yours)}||||||| base\n${eol(piece.base)}=======\n${eol(piece.theirs)}>>>>>>> theirs\n`))
    .join('');
}

/**
 * Three-way merges config texts (merge.ts's `mergeText`), loading the merge code on first use:
 * `base` is what the user started from, `yours` their text, `theirs` the service's now.
 */
export async function mergeConfigs(base: string, yours: string, theirs: string): Promise<ThreeWayMerge> {
  const { mergeText } = await import('./merge');
  return mergeText(base, yours, theirs);
}
