import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { Notices } from './notices.svelte';

describe('Notices', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  test('errors stay until dismissed; info leaves on its own', () => {
    const notices = new Notices();
    const errorId = notices.push('error', 'Could not stop the local service: it is not running.');
    notices.push('info', 'Copied organization ID.', 1_000);
    expect(notices.items.map((n) => n.tone)).toEqual(['error', 'info']);
    vi.advanceTimersByTime(1_000);
    expect(notices.items.map((n) => n.tone)).toEqual(['error']);
    notices.dismiss(errorId);
    expect(notices.items).toEqual([]);
  });

  test('the same message twice in a row shows once', () => {
    const notices = new Notices();
    notices.push('error', 'No answer.');
    notices.push('error', 'No answer.');
    expect(notices.items).toHaveLength(1);
  });
});
