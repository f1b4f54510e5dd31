import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import type { Extension } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { tags } from '@lezer/highlight';

/**
 * CodeMirror in the app's colors: every color is one of the app's CSS variables (styles/global.css),
 * which inherit into the shadow root the editors live in, so light and dark follow the OS like the
 * rest of the app. (CodeMirror's default highlight style is for light backgrounds only.)
 *
 * Only the lazily loaded editor modules import this: it pulls CodeMirror in.
 */
export function appTheme(options: { maxHeight?: string; minHeight?: string } = {}): Extension {
  return [
    syntaxHighlighting(
      HighlightStyle.define([
        { tag: tags.string, color: 'var(--code-string)' },
        { tag: tags.number, color: 'var(--code-number)' },
        { tag: [tags.bool, tags.null], color: 'var(--code-keyword)' },
        { tag: tags.propertyName, color: 'var(--code-property)' },
        { tag: tags.invalid, color: 'var(--danger-text)' },
      ]),
    ),
    EditorView.theme({
      '&': { color: 'var(--text)', backgroundColor: 'transparent', fontFamily: 'var(--font-mono)', fontSize: 'var(--text-sm)', ...(options.maxHeight ? { maxHeight: options.maxHeight } : {}) },
      '.cm-scroller': { fontFamily: 'var(--font-mono)', overflow: 'auto', lineHeight: '1.5' },
      '.cm-content': { caretColor: 'var(--text)', minHeight: options.minHeight ?? '120px' },
      '.cm-gutters': { backgroundColor: 'var(--bg-sunken)', color: 'var(--text-faint)', borderRight: '1px solid var(--border)' },
      '.cm-activeLine, .cm-activeLineGutter': { backgroundColor: 'var(--bg-hover)' },
      '&.cm-focused': { outline: 'none' },
      '.cm-cursor': { borderLeftColor: 'var(--text)' },
      '.cm-selectionBackground, &.cm-focused .cm-selectionBackground': { backgroundColor: 'var(--bg-selected) !important' },
      '.cm-selectionMatch': { backgroundColor: 'var(--highlight-bg)', color: 'var(--text)' },
      '.cm-matchingBracket, &.cm-focused .cm-matchingBracket': { backgroundColor: 'var(--bg-active)', outline: '1px solid var(--border-strong)' },
      '.cm-searchMatch': { backgroundColor: 'var(--highlight-bg)', color: '#1a1e24' },
      '.cm-tooltip': { backgroundColor: 'var(--bg-raised)', color: 'var(--text)', border: '1px solid var(--border)', boxShadow: 'var(--shadow-md)' },
      '.cm-tooltip-autocomplete > ul > li[aria-selected]': { backgroundColor: 'var(--bg-selected-focus)', color: 'var(--text)' },
      '.cm-completionDetail': { color: 'var(--text-muted)', fontStyle: 'normal', marginLeft: '1em' },
      '.cm-completionSection': { color: 'var(--text-muted)', borderBottom: '1px solid var(--border)' },
      '.cm-completionInfo': { backgroundColor: 'var(--bg-raised)', color: 'var(--text)', border: '1px solid var(--border)' },
      '.cm-panels': { backgroundColor: 'var(--bg-chrome)', color: 'var(--text)' },
      '.cm-panels.cm-panels-bottom': { borderTop: '1px solid var(--border)' },
      '.cm-panel.cm-panel-lint ul [aria-selected]': { backgroundColor: 'var(--bg-selected-focus)', color: 'var(--text)' },
      '.cm-panel.cm-panel-lint ul:focus [aria-selected]': { backgroundColor: 'var(--bg-selected-focus)', color: 'var(--text)' },
      '.cm-panel button, .cm-panel input': { color: 'var(--text)' },
      '.cm-textfield': { backgroundColor: 'var(--bg-input)', border: '1px solid var(--border-input)', color: 'var(--text)' },
      '.cm-button': { backgroundImage: 'none', backgroundColor: 'var(--bg-raised)', border: '1px solid var(--border-input)', color: 'var(--text)' },
      '.cm-diagnostic-error': { borderLeftColor: 'var(--danger)' },
      '.cm-diagnostic-warning': { borderLeftColor: 'var(--warn)' },
      '.cm-foldPlaceholder': { backgroundColor: 'var(--bg-sunken)', border: '1px solid var(--border)', color: 'var(--text-muted)' },
      // Merge views: inserted and deleted text on the app's own danger/ok tints.
      '&.cm-merge-a .cm-changedLine, .cm-deletedChunk': { backgroundColor: 'var(--danger-bg)' },
      '&.cm-merge-b .cm-changedLine, .cm-inlineChangedLine': { backgroundColor: 'var(--info-bg)' },
      // Changed words a shade lighter than the border colors, so every token color keeps 4.5:1 on them (a changed number on the full border tint did not).
      '&.cm-merge-a .cm-changedText, .cm-deletedChunk .cm-deletedText': { background: 'color-mix(in srgb, var(--danger-border) 60%, var(--danger-bg))' },
      '&.cm-merge-b .cm-changedText': { background: 'color-mix(in srgb, var(--info-border) 60%, var(--info-bg))' },
      '&.cm-merge-a .cm-changeGutter': { borderLeftColor: 'var(--danger)' },
      '&.cm-merge-b .cm-changeGutter': { borderLeftColor: 'var(--accent)' },
      '.cm-collapsedLines': { backgroundColor: 'var(--bg-sunken)', color: 'var(--text-muted)', backgroundImage: 'none' },
      // The merge package marks folds with ⦚ (U+299A), which few fonts have (Linux's DejaVu lacks it: an
      // empty box); ↕ is in every UI font and says the same: lines hidden here, click to show them.
      '.cm-collapsedLines::before, .cm-collapsedLines::after': { content: '"↕"' },
    }),
  ];
}

/**
 * A shadow root on `host` for an editor: there CodeMirror styles itself with constructable style
 * sheets, which the strict CSP (style-src 'self') allows; in the document it would add <style>
 * elements, which the CSP blocks.
 */
export function editorRoot(host: HTMLElement): { root: ShadowRoot; parent: HTMLElement } {
  const root = host.shadowRoot ?? host.attachShadow({ mode: 'open' });
  const parent = document.createElement('div');
  root.append(parent);
  return { root, parent };
}
