import { describe, expect, it } from 'vitest';
import { err, ok, type Result } from '../../../../common/result';
import { PagedHistory, type HistoryPage } from './paged-history.svelte';

interface Entry {
  readonly id: string;
  /** The config before the change; null for the one that made it. */
  readonly previous: string | null;
}

describe('a paged history', () => {
  it('reads the first page, appends the next on request, and gives each entry the config after it', async () => {
    const pages: Record<string, HistoryPage<Entry>> = {
      first: { entries: [{ id: '3', previous: 'b' }, { id: '2', previous: 'a' }], nextPageToken: 'p2', fromCache: false },
      p2: { entries: [{ id: '1', previous: null }], nextPageToken: '', fromCache: true },
    };
    const asked: (string | undefined)[] = [];
    const history = new PagedHistory<Entry>(
      (pageSize, token) => {
        asked.push(token);
        expect(pageSize).toBeGreaterThan(0);
        return Promise.resolve(ok(pages[token ?? 'first']!));
      },
      (entry) => entry.previous,
    );
    await history.load();
    expect(history.entries.map((e) => e.id)).toEqual(['3', '2']);
    expect(history.token).toBe('p2');
    await history.load(true);
    expect(asked).toEqual([undefined, 'p2']);
    expect(history.entries.map((e) => e.id)).toEqual(['3', '2', '1']);
    expect(history.token).toBe('');
    expect(history.fromCache).toBe(true);
    const [newest, middle, oldest] = history.entries;
    expect(history.after(newest!, 'now')).toBe('now');
    expect(history.after(middle!, 'now')).toBe('b');
    expect(history.after(oldest!, 'now')).toBe('a');
  });

  it('keeps a failure to show, and a superseded read answers nothing', async () => {
    let answer: (r: Result<HistoryPage<Entry>>) => void = () => undefined;
    const history = new PagedHistory<Entry>(() => new Promise((resolve) => (answer = resolve)), (e) => e.previous);
    const first = history.load();
    const late = answer;
    const second = history.load();
    answer(err('offline', 'The service cannot be reached.'));
    await second;
    late(ok({ entries: [{ id: '1', previous: null }], nextPageToken: '', fromCache: false }));
    await first;
    expect(history.error?.kind).toBe('offline');
    expect(history.entries).toEqual([]);
    expect(history.loading).toBe(false);
  });
});
