import { describe, expect, it } from 'vitest';
import { IssuedKeys } from './issued';

describe('secrets of keys made moments ago', () => {
  it('are held until their time is up, forgotten when used, and all forgotten when the profile changes', () => {
    let now = 1_000;
    const issued = new IssuedKeys({ rememberMs: 100, now: () => now });
    expect(issued.remember('k1', 's1').getTime()).toBe(1_100);
    issued.remember('k2', 's2');
    expect(issued.peek('k1')).toBe('s1');
    issued.forget('k1');
    expect(issued.peek('k1')).toBeNull();
    now = 1_100;
    expect(issued.peek('k2')).toBeNull();
    issued.remember('k3', 's3');
    issued.switchTo();
    expect(issued.peek('k3')).toBeNull();
  });
});
