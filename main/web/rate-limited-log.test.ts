import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRateLimitedLog } from './rate-limited-log';

describe('createRateLimitedLog', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('writes the first event at once and sums up the rest of the window in one line', () => {
    const lines: string[] = [];
    const report = createRateLimitedLog((l) => lines.push(l), { prefix: 'web: refused', windowMs: 10_000 });
    report('forbidden origin');
    for (let i = 0; i < 500; i++) report(i % 2 === 0 ? 'forbidden origin' : 'no session');
    expect(lines).toEqual(['web: refused (forbidden origin)']);
    vi.advanceTimersByTime(10_000);
    expect(lines).toEqual(['web: refused (forbidden origin)', 'web: refused: 500 more in the last 10 s (forbidden origin ×250, no session ×250)']);
  });

  it('writes nothing more for a lone event, and opens a new window after one ends', () => {
    const lines: string[] = [];
    const report = createRateLimitedLog((l) => lines.push(l), { prefix: 'p', windowMs: 1_000 });
    report('a');
    vi.advanceTimersByTime(1_000);
    expect(lines).toEqual(['p (a)']);
    report('b');
    expect(lines).toEqual(['p (a)', 'p (b)']);
  });

  it('flush writes the pending summary at once', () => {
    const lines: string[] = [];
    const report = createRateLimitedLog((l) => lines.push(l), { prefix: 'p', windowMs: 1_000 });
    report('a');
    report('a');
    report.flush();
    expect(lines).toEqual(['p (a)', 'p: 1 more in the last 1 s (a ×1)']);
    vi.advanceTimersByTime(5_000);
    expect(lines).toHaveLength(2);
  });
});
