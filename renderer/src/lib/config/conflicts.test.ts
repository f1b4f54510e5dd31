import { describe, expect, it } from 'vitest';
import { ConflictResolution } from './conflicts.svelte';
import { mergeText } from './merge';
import { mergeConfigs } from './merge-result';

const lines = (...l: string[]) => l.map((s) => `${s}\n`).join('');
const base = lines('{', '  "a": 1,', '  "keep": 0,', '  "b": 2,', '  "keep2": 0,', '  "c": 3', '}');
const yours = lines('{', '  "a": 10,', '  "keep": 0,', '  "b": 20,', '  "keep2": 0,', '  "c": 3', '}');
const theirs = lines('{', '  "a": 11,', '  "keep": 0,', '  "b": 21,', '  "keep2": 0,', '  "c": 33', '}');

describe('ConflictResolution', () => {
  it('answers the merged text once every conflict is settled, by side or by hand', () => {
    const resolution = new ConflictResolution(mergeText(base, yours, theirs));
    expect(resolution.conflicts).toHaveLength(2);
    expect([resolution.unresolved, resolution.result]).toEqual([2, null]);
    resolution.take('yours');
    expect(resolution.current).toBe(1);
    expect(resolution.result).toBeNull();
    resolution.edit('  "b": 99,\n');
    expect(resolution.unresolved).toBe(0);
    expect(resolution.result).toBe(lines('{', '  "a": 10,', '  "keep": 0,', '  "b": 99,', '  "keep2": 0,', '  "c": 33', '}'));
    resolution.reopen(0);
    expect([resolution.result, resolution.current]).toEqual([null, 0]);
    resolution.take('theirs');
    expect(resolution.result).toContain('"a": 11');
  });

  it('settles every remaining conflict with one side at once', () => {
    const resolution = new ConflictResolution(mergeText(base, yours, theirs));
    resolution.take('theirs', 1);
    resolution.takeAll('yours');
    expect(resolution.result).toBe(lines('{', '  "a": 10,', '  "keep": 0,', '  "b": 21,', '  "keep2": 0,', '  "c": 33', '}'));
  });

  it('steps through the conflicts, wrapping around', () => {
    const resolution = new ConflictResolution(mergeText(base, yours, theirs));
    resolution.step(-1);
    expect(resolution.current).toBe(1);
    resolution.step(1);
    expect(resolution.current).toBe(0);
  });

  it('previews the merge with a marker for each unsettled conflict, and where each starts', () => {
    const resolution = new ConflictResolution(mergeText(base, yours, theirs));
    resolution.take('theirs', 1);
    const { text, starts, lines: at } = resolution.preview();
    expect(text).toBe(lines('{', '<<<<<<< conflict 1: yours / theirs >>>>>>>', '  "keep": 0,', '  "b": 21,', '  "keep2": 0,', '  "c": 33', '}'));
    expect(starts).toEqual([2, text.indexOf('  "b": 21')]);
    expect(at).toEqual([2, 4]);
  });

  it('gives the lines around a conflict for context', () => {
    const resolution = new ConflictResolution(mergeText(base, yours, theirs));
    expect(resolution.context(0, 2)).toEqual({ before: '{\n', after: '  "keep": 0,\n' });
    // Conflict 0 comes right before conflict 1's one line of context.
    expect(resolution.context(1, 5)).toEqual({ before: '  "keep": 0,\n', after: '  "keep2": 0,\n  "c": 33\n}\n' });
  });

  it('is done at once for a merge without conflicts (mergeConfigs loads the merge on demand)', async () => {
    const resolution = new ConflictResolution(await mergeConfigs(base, yours, base));
    expect([resolution.unresolved, resolution.result]).toEqual([0, yours]);
  });
});
