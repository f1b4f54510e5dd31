import { EditorState, Text } from '@codemirror/state';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { separator } from './editor-view';

describe('separator', () => {
  it('keeps \r\n where every break is one, \n otherwise', () => {
    expect(separator('{\r\n  "a": 1\r\n}\r\n')).toBe('\r\n');
    expect(separator('{\n  "a": 1\n}')).toBe('\n');
    expect(separator('{\r\n  "a": 1\n}')).toBe('\n');
    expect(separator('{}')).toBe('\n');
  });

  it('makes CodeMirror give any text back exactly as it took it', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', '"', ' ', '\n', '\r', '\r\n', '{', '}'), { maxLength: 40 }), (parts) => {
        const text = parts.join('');
        const state = EditorState.create({ doc: text, extensions: EditorState.lineSeparator.of(separator(text)) });
        expect(state.sliceDoc()).toBe(text);
        expect(state.doc.eq(Text.of(text.split(state.lineBreak)))).toBe(true);
      }),
    );
  });
});
