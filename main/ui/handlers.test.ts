import { describe, expect, it } from 'vitest';
import type { BackendContext } from '../backend/context';
import { openCache } from '../cache/cache';
import { getUiState, setUiState } from '../cache/ui-state';
import { uiHandlers } from './handlers';

/** The handlers over a real cache; cache jobs are counted and each may be held until released. */
function setup() {
  const cache = openCache(':memory:');
  const jobs: { key: string; value: unknown; release: () => void }[] = [];
  let hold = false;
  const connection = {
    cache,
    profileId: 'local',
    runCache: (_job: 'setUiState', key: string, value: unknown) =>
      new Promise<void>((resolve) => {
        const release = () => {
          setUiState(cache, key, value);
          resolve();
        };
        jobs.push({ key, value, release });
        if (!hold) release();
      }),
  };
  const handlers = uiHandlers({ connection, firstViewDrawn: () => undefined } as unknown as BackendContext);
  const set = (key: 'tree.expanded' | 'app.route' | 'fleet.frame', value: unknown) => handlers['ui.set']({ key, value } as never);
  const get = async (key: 'tree.expanded' | 'app.route' | 'fleet.frame') => handlers['ui.get']({ key } as never);
  return { cache, jobs, set, get, holdJobs: (on: boolean) => (hold = on) };
}

/** The handlers over a real cache whose writer fails every job (a full disk). */
function setupFailing() {
  const cache = openCache(':memory:');
  const connection = { cache, profileId: 'local', runCache: () => Promise.reject(new Error('disk full')) };
  const handlersFailing = uiHandlers({ connection, firstViewDrawn: () => undefined } as unknown as BackendContext);
  const get = async (key: 'app.route') => handlersFailing['ui.get']({ key } as never);
  return { cache, get, handlersFailing };
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
    holdJobs(true);
    const back = set('app.route', '/orgs/o1/parts/p1/logs');
    const forward = set('app.route', '/orgs/o1/parts/p1');
    void set('app.route', '/orgs/o1/parts/p1/logs');
    let answered: unknown = 'none yet';
    const read = get('app.route').then((r) => (answered = r.value));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(answered).toBe('none yet');
    for (const job of jobs.slice(1, 3)) job.release();
    await Promise.all([back, forward]);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(answered).toBe('none yet'); // the last write is still under way
    jobs[3]!.release();
    await read;
    expect(answered).toBe('/orgs/o1/parts/p1/logs');
    // Nothing under way: a read answers at once; another key never waited for this one.
    expect((await get('app.route')).value).toBe('/orgs/o1/parts/p1/logs');
  });

  it('answers what the cache has when the write under way fails', async () => {
    const { cache, get, handlersFailing } = setupFailing();
    setUiState(cache, 'app.route', '/registry');
    await expect(handlersFailing['ui.set']({ key: 'app.route', value: '/orgs/o1' } as never)).rejects.toThrow('disk full');
    expect((await get('app.route')).value).toBe('/registry');
  });
});
