import { describe, expect, it } from 'vitest';
import { Latest } from './latest';

describe('Latest', () => {
  it('lets only the newest read apply, and no read started before a write', () => {
    const latest = new Latest();
    const first = latest.read();
    const second = latest.read();
    expect([first.newest, first.current, second.newest, second.current]).toEqual([false, false, true, true]);
    const more = latest.follow();
    expect(more.current).toBe(true);
    latest.supersede();
    expect([second.newest, second.current, more.current]).toEqual([true, false, false]);
    const third = latest.read();
    expect([third.current, second.newest]).toEqual([true, false]);
  });
});
