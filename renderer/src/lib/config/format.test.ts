import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyTextEdits, formatConfig, formatEdits } from './format';

describe('formatConfig', () => {
  it('lays JSON out with two-space indents, keeping key order and every value as written', () => {
    const text = '{"z":1,"a":{"y":[1,2.50,"\\u00e9"],"b":null},"m":true}';
    expect(formatConfig(text)).toBe('{\n  "z": 1,\n  "a": {\n    "y": [\n      1,\n      2.50,\n      "\\u00e9"\n    ],\n    "b": null\n  },\n  "m": true\n}\n');
  });

  it('leaves a text that is not JSON alone', () => {
    expect(formatEdits('{"a": }')).toBeNull();
    expect(formatConfig('{"a": 1,}')).toBeNull();
  });

  it('changes nothing in an already formatted text', () => {
    expect(formatEdits('{\n  "a": 1\n}\n')).toEqual([]);
  });

  it('only ever changes whitespace: the value, and the order of keys, stay', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 0, max: 4 }), (value, indent) => {
        const text = JSON.stringify({ v: value }, null, indent);
        const formatted = formatConfig(text)!;
        expect(formatted.replace(/\s/g, '')).toBe(text.replace(/\s/g, ''));
        expect(JSON.parse(formatted)).toEqual(JSON.parse(text));
        expect(formatConfig(formatted)).toBe(formatted);
      }),
    );
  });

  it('gives edits that apply in order', () => {
    expect(applyTextEdits('abcdef', [{ from: 1, to: 2, insert: 'X' }, { from: 4, to: 4, insert: '!' }])).toBe('aXcd!ef');
  });
});
