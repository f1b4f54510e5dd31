import { describe, expect, it } from 'vitest';
import { LineList } from './lines';

const contents = (list: LineList) => Array.from({ length: list.length }, (_, i) => [list.key(i), list.level(i)]);

describe('LineList', () => {
  it('appends, merges lines landing before the end in key order, drops the oldest, and grows past its capacity', () => {
    const list = new LineList(2);
    expect(list.merge([{ key: 10, level: 1 }, { key: 20, level: 2 }])).toBeNull();
    expect(list.merge([{ key: 30, level: 3 }])).toBeNull();
    expect(list.merge([{ key: 15, level: 0 }, { key: 25, level: 1 }, { key: 40, level: 2 }])).toBe(1);
    expect(contents(list)).toEqual([[10, 1], [15, 0], [20, 2], [25, 1], [30, 3], [40, 2]]);
    expect(list.lowerBound(21)).toBe(3);
    expect(list.lowerBound(5)).toBe(0);
    expect(list.lowerBound(50)).toBe(6);
    list.dropFirst(2);
    expect(contents(list)).toEqual([[20, 2], [25, 1], [30, 3], [40, 2]]);
    expect(list.keysIn(1, 3)).toEqual([25, 30]);
    expect(list.lastKey()).toBe(40);
    for (let k = 41; k < 1041; k++) list.push(k, k % 4);
    expect(list.length).toBe(1004);
    expect(list.key(1003)).toBe(1040);
  });

  it('filters by level, among all lines or among given keys, as a plain filter would', () => {
    const keys = Array.from({ length: 1000 }, (_, i) => 2 ** 40 + i * 7);
    const levels = keys.map((_, i) => (i * 13) % 4);
    const list = LineList.from(keys, levels);
    const wanted = [false, true, false, true];
    const only = keys.filter((_, i) => i % 3 === 0).concat([2 ** 40 + 3, 2 ** 50]).sort((a, b) => a - b);
    const expectAll = keys.map((k, i) => [k, levels[i]]).filter(([, l]) => wanted[l as number]);
    expect(contents(list.filter(wanted, null))).toEqual(expectAll);
    const onlySet = new Set(only);
    expect(contents(list.filter(wanted, only))).toEqual(expectAll.filter(([k]) => onlySet.has(k as number)));
    expect(list.filter([true, true, true, true], []).length).toBe(0);
  });
});
