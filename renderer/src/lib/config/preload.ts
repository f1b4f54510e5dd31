/**
 * Starts loading the config views' code (CodeMirror, @codemirror/merge, the editor's setup) ahead of
 * showing one: a page that will show a config calls it when it opens (its route's `enter`), so
 * that the editor's first opening does not wait for the chunks (most of what a first opening costs
 * beyond a later one: ~250 against ~80 ms at 1 MiB, bench/config-editor.ts). Without it the
 * components load them on first use.
 */
export function preloadConfigViews(which: { editor?: boolean; merge?: boolean } = { editor: true }): void {
  if (which.editor) void Promise.all([import('./editor-view'), import('./theme')]);
  if (which.merge) void Promise.all([import('./merge-view'), import('./merge')]);
}
