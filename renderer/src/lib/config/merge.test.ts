import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fixtureConfig } from '../testing/config-fixtures';
import { assemble, MAX_DIFF3_LINES, mergeText, splitLines, withMarkers } from './merge';

const lines = (...l: string[]) => l.map((s) => `${s}\n`).join('');

describe('mergeText', () => {
  it('merges changes to different lines by themselves, each side keeping its layout', () => {
    const base = lines('{', '  "a": 1,', '  "b": 2,', '  "c": 3,', '  "d": 4', '}');
    const yours = lines('{', '  "a": 10,', '  "b": 2,', '  "c": 3,', '  "d": 4', '}');
    const theirs = lines('{', '  "a": 1,', '  "b": 2,', '  "c": 3,', '  "d":   40', '}');
    const merged = mergeText(base, yours, theirs);
    expect(merged.conflicts).toEqual([]);
    expect(merged.text).toBe(lines('{', '  "a": 10,', '  "b": 2,', '  "c": 3,', '  "d":   40', '}'));
  });

  it('answers a conflict with the three versions of lines both sides changed differently', () => {
    const base = lines('{', '  "a": 1,', '  "b": 2', '}');
    const merged = mergeText(base, lines('{', '  "a": 10,', '  "b": 2', '}'), lines('{', '  "a": 11,', '  "b": 2', '}'));
    expect(merged.text).toBeNull();
    expect(merged.conflicts).toEqual([{ index: 0, base: '  "a": 1,\n', yours: '  "a": 10,\n', theirs: '  "a": 11,\n' }]);
    expect(merged.pieces).toEqual(['{\n', merged.conflicts[0], '  "b": 2\n}\n']);
  });

  it('takes the same change made on both sides once, without a conflict', () => {
    const base = lines('x', 'y', 'z');
    const both = lines('x', 'Y', 'z');
    expect(mergeText(base, both, lines('x', 'Y', 'z', 'w')).text).toBe(lines('x', 'Y', 'z', 'w'));
    expect(mergeText(base, both, both).text).toBe(both);
  });

  it('counts two insertions at the same place as a conflict (which goes first is for people to say)', () => {
    const merged = mergeText(lines('a', 'b'), lines('a', 'mine', 'b'), lines('a', 'theirs', 'b'));
    expect(merged.conflicts).toEqual([{ index: 0, base: '', yours: 'mine\n', theirs: 'theirs\n' }]);
    expect(assemble(merged, ['mine\ntheirs\n'])).toBe(lines('a', 'mine', 'theirs', 'b'));
  });

  it('handles texts without a final newline, and empty ones', () => {
    expect(mergeText('a\nx\nb', 'A\nx\nb', 'a\nx\nB').text).toBe('A\nx\nB');
    expect(mergeText('', '{}', '').text).toBe('{}');
    expect(mergeText('', 'x', 'y').conflicts).toHaveLength(1);
    expect(mergeText('a\n', 'a', 'a\n').text).toBe('a');
  });

  it('counts changes of adjacent lines as a conflict, as git does (an edit of a line is often about its neighbour)', () => {
    expect(mergeText('a\nb\n', 'A\nb\n', 'a\nB\n').conflicts).toEqual([{ index: 0, base: 'a\nb\n', yours: 'A\nb\n', theirs: 'a\nB\n' }]);
  });

  it('keeps a deletion on one side against an edit of other lines on the other', () => {
    const base = lines('1', '2', '3', '4', '5', '6');
    expect(mergeText(base, lines('1', '3', '4', '5', '6'), lines('1', '2', '3', '4', '5', 'six')).text).toBe(lines('1', '3', '4', '5', 'six'));
  });

  it('merges two edited 1 MiB configs, conflicting only where both changed the same component', () => {
    const base = fixtureConfig(5_000);
    const yours = fixtureConfig(5_000, (i, c) => (i % 97 === 3 ? { ...c, model: 'acme-warehouse:slam:map-view' } : i === 2_500 ? { ...c, attributes: { mine: 1 } } : c));
    const theirs = fixtureConfig(5_000, (i, c) => (i % 89 === 5 ? { ...c, attributes: { ...c.attributes, theirs: true } } : i === 2_500 ? { ...c, attributes: { theirs: 2 } } : i === 4_000 ? [c, { ...c, name: 'added' }] : c));
    const merged = mergeText(base, yours, theirs);
    expect(merged.conflicts).toHaveLength(1);
    expect(merged.conflicts[0]!.yours).toContain('"mine": 1');
    expect(merged.conflicts[0]!.theirs).toContain('"theirs": 2');
    const text = assemble(merged, [merged.conflicts[0]!.theirs])!;
    const expected = fixtureConfig(5_000, (i, c) => {
      const mine = i % 97 === 3 ? { ...c, model: 'acme-warehouse:slam:map-view' } : c;
      return i % 89 === 5 ? { ...mine, attributes: { ...mine.attributes, theirs: true } } : i === 2_500 ? { ...c, attributes: { theirs: 2 } } : i === 4_000 ? [mine, { ...c, name: 'added' }] : mine;
    });
    expect(text).toBe(expected);
  });

  it('makes one conflict of a stretch too long for diff3 instead of taking minutes over it', () => {
    const base = Array.from({ length: MAX_DIFF3_LINES + 10 }, (_, i) => `${i % 3}\n`).join('');
    const yours = `mine\n${base.replace(/1\n/g, 'one\n')}`;
    const theirs = `theirs\n${base.replace(/2\n/g, 'two\n')}`;
    const merged = mergeText(base, yours, theirs);
    expect(merged.conflicts.length).toBeGreaterThan(0);
    expect(assemble(merged, merged.conflicts.map((c) => c.yours))).toBe(yours);
  });
});

describe('assemble and withMarkers', () => {
  const merged = mergeText(lines('a', 'b', 'c'), lines('A', 'b', 'c'), lines('a2', 'b', 'c'));

  it('gives nothing until every conflict is resolved, then the text with each resolution in place', () => {
    expect(assemble(merged, [])).toBeNull();
    expect(assemble(merged, [null])).toBeNull();
    expect(assemble(merged, ['edited\n'])).toBe(lines('edited', 'b', 'c'));
  });

  it('writes git-style markers around each conflict', () => {
    expect(withMarkers(merged)).toBe(lines('<<<<<<< yours', 'A', '||||||| base', 'a', '=======', 'a2', '>>>>>>> theirs', 'b', 'c'));
  });
});

describe('splitLines', () => {
  it('keeps every character, so joining gives the text back', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        expect(splitLines(s).join('')).toBe(s);
      }),
    );
    expect(splitLines('a\n\nb')).toEqual(['a\n', '\n', 'b']);
  });
});

/** Texts of lines drawn from a few, so that lines repeat as `},` does in a config. */
const textLines = fc.array(fc.constantFrom('{', '}', '},', '[', ']', '"a": 1,', '"b": 2', '"name": "x"', ''), { maxLength: 30 });
const text = textLines.map((l) => l.map((s) => `${s}\n`).join(''));

describe('mergeText properties', () => {
  it('answers the other side when one side is unchanged', () => {
    fc.assert(
      fc.property(text, text, (base, changed) => {
        expect(mergeText(base, base, changed)).toMatchObject({ text: changed, conflicts: [] });
        expect(mergeText(base, changed, base)).toMatchObject({ text: changed, conflicts: [] });
      }),
    );
  });

  it('answers the shared text when both sides made the same change', () => {
    fc.assert(
      fc.property(text, text, (base, both) => {
        expect(mergeText(base, both, both).text).toBe(both);
      }),
    );
  });

  it('keeps both sides\' edits when they touch different stretches (kept apart by unchanged lines)', () => {
    // Unique lines between the two stretches: a fixed point any alignment keeps.
    const fence = ['--- one ---\n', '--- two ---\n'];
    fc.assert(
      fc.property(textLines, textLines, textLines, textLines, (before, mineBefore, after, theirsAfter) => {
        const join = (l: string[]) => l.map((s) => `${s}\n`).join('');
        const base = join(before) + fence.join('') + join(after);
        const yours = join(mineBefore) + fence.join('') + join(after);
        const theirs = join(before) + fence.join('') + join(theirsAfter);
        const merged = mergeText(base, yours, theirs);
        expect(merged.conflicts).toEqual([]);
        expect(merged.text).toBe(join(mineBefore) + fence.join('') + join(theirsAfter));
      }),
      { numRuns: 300 },
    );
  });

  it('shows no false conflict: the two sides of every conflict differ, and each differs from the base', () => {
    fc.assert(
      fc.property(text, text, text, (base, yours, theirs) => {
        const merged = mergeText(base, yours, theirs);
        expect(merged.text === null).toBe(merged.conflicts.length > 0);
        for (const c of merged.conflicts) {
          expect(c.yours).not.toBe(c.theirs);
          expect(c.yours !== c.base && c.theirs !== c.base).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('is symmetric: swapping the sides swaps each conflict\'s versions and nothing else', () => {
    fc.assert(
      fc.property(text, text, text, (base, yours, theirs) => {
        const ab = mergeText(base, yours, theirs);
        const ba = mergeText(base, theirs, yours);
        expect(ba.text).toBe(ab.text);
        expect(ba.conflicts.map((c) => [c.base, c.theirs, c.yours])).toEqual(ab.conflicts.map((c) => [c.base, c.yours, c.theirs]));
      }),
      { numRuns: 300 },
    );
  });
});
