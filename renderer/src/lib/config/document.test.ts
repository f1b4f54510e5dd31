import { describe, expect, it } from 'vitest';
import { ConfigDocument, type EditorLink } from './document.svelte';
import { checkConfig } from './check';
import type { TextEdit } from './format';
import { applyTextEdits } from './format';

/** An editor stand-in: holds the text as CodeMirror would, and records how it was asked to show it. */
function fakeEditor(): EditorLink & { doc: string; shown: string[]; type(text: string): void } {
  const editor = {
    doc: '',
    shown: [] as string[],
    text: () => editor.doc,
    show(text: string, as: 'load' | 'edit') {
      editor.doc = text;
      editor.shown.push(as);
    },
    apply(edits: readonly TextEdit[]) {
      editor.doc = applyTextEdits(editor.doc, edits);
      editor.shown.push('format');
    },
    check: () => checkConfig(editor.doc),
    type(text: string) {
      editor.doc = text;
    },
  };
  return editor;
}

describe('ConfigDocument', () => {
  it('is dirty while its text differs from what it started from, and knows its problems', () => {
    const doc = new ConfigDocument('{"components": []}');
    expect([doc.dirty, doc.errors, doc.text]).toEqual([false, 0, '{"components": []}']);
    doc.edit('{"components": [}');
    expect(doc.dirty).toBe(true);
    expect(doc.errors).toBe(1);
    expect(doc.problems[0]?.message).toMatch(/^Not valid JSON/);
    doc.edit('{"components": []}');
    expect([doc.dirty, doc.errors]).toEqual([false, 0]);
  });

  it('keeps the text exactly as typed', () => {
    const typed = '{ "z": 1,\n\t"a" :2 }';
    const doc = new ConfigDocument('{}');
    doc.edit(typed);
    expect(doc.text).toBe(typed);
  });

  it('after a save, is clean unless the user typed on while it was under way', () => {
    const doc = new ConfigDocument('{}');
    doc.edit('{"a": 1}');
    const sent = doc.text;
    doc.edit('{"a": 2}');
    doc.markSaved(sent);
    expect(doc.saved).toBe('{"a": 1}');
    expect(doc.dirty).toBe(true);
    doc.markSaved(doc.text);
    expect(doc.dirty).toBe(false);
  });

  it('reverts, loads and rebases', () => {
    const doc = new ConfigDocument('{"a": 1}');
    doc.edit('{"a": 2}');
    doc.revert();
    expect([doc.text, doc.dirty]).toEqual(['{"a": 1}', false]);
    doc.load('{"b": 1}');
    expect([doc.saved, doc.text, doc.dirty]).toEqual(['{"b": 1}', '{"b": 1}', false]);
    // A conflict: theirs is the new base; the merged text is the user's edit of it.
    doc.rebase('{"b": 2}', '{"b": 2, "c": 3}');
    expect([doc.saved, doc.text, doc.dirty]).toEqual(['{"b": 2}', '{"b": 2, "c": 3}', true]);
    doc.replace('{"b": 2}');
    expect(doc.dirty).toBe(false);
  });

  it('formats as one edit, or says why not', () => {
    const doc = new ConfigDocument('{"a":1}');
    expect(doc.format()).toBeNull();
    expect(doc.text).toBe('{\n  "a": 1\n}\n');
    expect(doc.dirty).toBe(true);
    doc.edit('{"a":');
    expect(doc.format()).toMatch(/Fix the JSON syntax first/);
    expect(doc.text).toBe('{"a":');
  });

  describe('with an editor', () => {
    it('hands its text to the editor, reads it back from there, and keeps it when the editor goes', () => {
      const doc = new ConfigDocument('{"a": 1}');
      const editor = fakeEditor();
      const detach = doc.attach(editor);
      expect(editor.doc).toBe('{"a": 1}');
      editor.type('{"a": 5}');
      doc.changed(true);
      expect([doc.text, doc.dirty]).toEqual(['{"a": 5}', true]);
      detach();
      editor.type('{"gone": true}');
      expect(doc.text).toBe('{"a": 5}');
    });

    it('leaves an editor made with its text as it is (no second build of its state)', () => {
      const doc = new ConfigDocument('{"a": 1}');
      const editor = fakeEditor();
      editor.type('{"a": 1}');
      doc.attach(editor);
      expect(editor.shown).toEqual([]);
      // Told what it was made with, the document does not even read it back.
      const other = fakeEditor();
      other.type(doc.text);
      let reads = 0;
      const counting = { ...other, text: () => (reads++, other.text()) };
      doc.attach(counting, doc.text);
      expect([other.shown, reads]).toEqual([[], 0]);
    });

    it('loads as a fresh start, replaces and formats as edits the editor can undo', () => {
      const doc = new ConfigDocument('{}');
      const editor = fakeEditor();
      doc.attach(editor);
      doc.load('{"b":2}');
      doc.replace('{"b":3}');
      doc.format();
      expect(editor.shown).toEqual(['load', 'load', 'edit', 'format']);
      expect(editor.doc).toBe('{\n  "b": 3\n}\n');
    });

    it('clears the previous config\'s problems on a load, and takes the editor\'s checks', () => {
      const doc = new ConfigDocument('{');
      // Unchecked until something checks it.
      expect(doc.errors).toBe(0);
      doc.check();
      expect(doc.errors).toBe(1);
      doc.attach(fakeEditor());
      doc.load('{}');
      expect(doc.problems).toEqual([]);
      doc.checked(checkConfig('[]'));
      expect(doc.errors).toBe(1);
      // A save checks now, not when the editor's delay runs out.
      doc.replace('{}');
      expect(doc.check()).toEqual([]);
      expect(doc.errors).toBe(0);
    });
  });
});
