import { describe, expect, test } from 'vitest';
import { formatClock, formatRelative } from './time';

const now = new Date(2026, 10, 22, 14, 5, 30).getTime();
const at = (h: number, m: number, s = 0, day = 22) => new Date(2026, 10, day, h, m, s).toISOString();

describe('formatRelative', () => {
  test('recent past', () => {
    expect(formatRelative(at(14, 5, 0), now)).toBe('just now');
    expect(formatRelative(at(14, 2, 30), now)).toBe('3 min ago');
    expect(formatRelative(at(12, 0), now)).toBe('2 h ago');
  });
  test('days', () => {
    expect(formatRelative(at(14, 0, 0, 21), now)).toBe('yesterday');
    expect(formatRelative(at(14, 0, 0, 17), now)).toBe('5 days ago');
  });
  test('future', () => {
    expect(formatRelative(at(14, 7, 30), now)).toBe('in 2 min');
  });
  test('garbage is shown as is', () => {
    expect(formatRelative('soon', now)).toBe('soon');
  });
});

describe('formatClock', () => {
  test('today: hours and minutes, 24 h', () => {
    expect(formatClock(at(14, 2), now)).toMatch(/^14.02$/);
    expect(formatClock(at(9, 7, 5), now, true)).toMatch(/^09.07.05$/);
  });
  test('another day carries the date', () => {
    const text = formatClock(at(14, 2, 0, 20), now);
    expect(text).toMatch(/20/);
    expect(text).toMatch(/14.02$/);
  });
});
