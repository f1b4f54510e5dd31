import { describe, expect, it, vi } from 'vitest';
import type { BackendContext } from '../backend/context';
import { openCache } from '../cache/cache';
import { getUiState, setUiState } from '../cache/ui-state';
import { READ_WAIT_MS, uiHandlers } from './handlers';

/** The handlers over a real cache; cache jobs are counted and each may be held until released (or failed). */
function setup() {
  const cache = openCache(':memory:');
  const jobs: { key: string; value: unknown; release: () => void; fail: (e: Error) => void }[] = [];
  let hold = false;
  const connection = {
    cache,
    profileId: 'local',
    runCache: (_job: 'setUiState', key: string, value: unknown) =>
      new Promise<void>((resolve, reject) => {
        const release = () => {
          setUiState(cache, key, value);
          resolve();
        };
        jobs.push({ key, value, release, fail: reject });
        if (!hold) release();
      }),
  };
  const handlers = uiHandlers({ connection, firstViewDrawn: () => undefined } as unknown as BackendContext);
  const set = (key: 'tree.expanded' | 'app.route' | 'fleet.frame', value: unknown) => handlers['ui.set']({ key, value } as never);
  const get = async (key: 'tree.expanded' | 'app.route' | 'fleet.frame') => handlers['ui.get']({ key } as never);
  return { cache, connection, jobs, set, get, holdJobs: (on: boolean) => (hold = on) };
}

/** Whether `promise` has settled by the end of this turn's timers (fake or real). */
async function settledSoon(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 5; i++) await Promise.resolve();
  return done;
}

describe('ui.set', () => {
  it("keeps the fleet tree's rows for the next launch only when they are the active profile's (a switch may cross a save)", async () => {
    const { cache, jobs, set } = setup();
    const rows = [{ level: 1, kind: 'org', orgId: 'o1', label: 'Acme', expandable: false, expanded: false }];
    await set('fleet.frame', { profileId: 'work', rows });
    expect(jobs).toHaveLength(0);
    expect(getUiState(cache, 'fleet.frame')).toBeNull();
    await set('fleet.frame', { profileId: 'local', rows });
    expect(getUiState(cache, 'fleet.frame')).toEqual({ profileId: 'local', rows });
  });

  it('writes a changed value, and skips the cache writer for the value already stored (a page restoring what it showed)', async () => {
    const { cache, jobs, set } = setup();
    await set('app.route', '/orgs/o1');
    expect(jobs).toHaveLength(1);
    expect(getUiState(cache, 'app.route')).toBe('/orgs/o1');
    await set('app.route', '/orgs/o1');
    await set('tree.expanded', null); // absent reads as null: nothing to write either
    expect(jobs).toHaveLength(1);
    await set('tree.expanded', ['org:o1:o1']);
    await set('tree.expanded', ['org:o1:o1']);
    expect(jobs).toHaveLength(2);
    expect(getUiState(cache, 'tree.expanded')).toEqual(['org:o1:o1']);
  });

  it('still writes the stored value back while another write of the key is under way, so the last one asked is what stays', async () => {
    const { cache, jobs, set, holdJobs } = setup();
    await set('app.route', '/');
    holdJobs(true);
    const away = set('app.route', '/orgs/o1');
    const back = set('app.route', '/');
    expect(jobs).toHaveLength(3);
    for (const job of jobs.slice(1)) job.release();
    await Promise.all([away, back]);
    expect(getUiState(cache, 'app.route')).toBe('/');
    // Nothing under way any more: unchanged is skipped again.
    holdJobs(false);
    await set('app.route', '/');
    expect(jobs).toHaveLength(3);
  });
});

describe('ui.get', () => {
  it('answers the last value asked of the key, waiting for its writes under way (a reload right after a move comes back on that page)', async () => {
    const { jobs, set, get, holdJobs } = setup();
    await set('app.route', '/orgs/o1/parts/p1');
    await set('tree.expanded', ['org:o1:o1']);
    holdJobs(true);
    const back = set('app.route', '/orgs/o1/parts/p1/logs');
    const forward = set('app.route', '/orgs/o1/parts/p1');
    void set('app.route', '/orgs/o1/parts/p1/logs');
    const read = get('app.route');
    expect(await settledSoon(read)).toBe(false);
    // Another key is not held by this one's writes.
    expect((await get('tree.expanded')).value).toEqual(['org:o1:o1']);
    for (const job of jobs.slice(2, 4)) job.release();
    await Promise.all([back, forward]);
    expect(await settledSoon(read)).toBe(false); // the last write is still under way
    jobs[4]!.release();
    expect((await read).value).toBe('/orgs/o1/parts/p1/logs');
    // Nothing under way: a read answers at once.
    expect(await settledSoon(get('app.route'))).toBe(true);
  });

  it('answers what the cache has when the write under way fails, and counts that write as over', async () => {
    const { cache, jobs, set, get, holdJobs } = setup();
    setUiState(cache, 'app.route', '/registry');
    holdJobs(true);
    const failing = set('app.route', '/orgs/o1');
    const read = get('app.route');
    expect(await settledSoon(read)).toBe(false);
    jobs[0]!.fail(new Error('disk full'));
    await expect(failing).rejects.toThrow('disk full');
    expect((await read).value).toBe('/registry');
    // The stored value again: skipped, as with nothing under way.
    await set('app.route', '/registry');
    expect(jobs).toHaveLength(1);
  });

  it('counts a write the writer refuses at once (its thread cannot start) as over, failed', async () => {
    const { cache, connection, jobs, set, get } = setup();
    setUiState(cache, 'app.route', '/registry');
    const runCache = connection.runCache;
    connection.runCache = () => {
      throw new Error('the cache writer cannot start');
    };
    await expect(set('app.route', '/orgs/o1')).rejects.toThrow('cannot start');
    connection.runCache = runCache;
    expect((await get('app.route')).value).toBe('/registry');
    await set('app.route', '/registry');
    expect(jobs).toHaveLength(0);
  });

  it('waits for a write under way at most READ_WAIT_MS (a page boot is not held behind a long queue), then answers what the cache has', async () => {
    vi.useFakeTimers();
    try {
      const { cache, set, get, holdJobs } = setup();
      setUiState(cache, 'app.route', '/registry');
      holdJobs(true);
      void set('app.route', '/orgs/o1');
      const read = get('app.route');
      await vi.advanceTimersByTimeAsync(READ_WAIT_MS - 1);
      expect(await settledSoon(read)).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect((await read).value).toBe('/registry');
    } finally {
      vi.useRealTimers();
    }
  });

  it("never waits for another profile's write: each profile has its own cache", async () => {
    const { connection, set, get, holdJobs } = setup();
    holdJobs(true);
    void set('app.route', '/orgs/o1');
    connection.profileId = 'work';
    expect(await settledSoon(get('app.route'))).toBe(true);
    connection.profileId = 'local';
    expect(await settledSoon(get('app.route'))).toBe(false);
  });
});
