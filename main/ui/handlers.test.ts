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
  return { cache, jobs, set, holdJobs: (on: boolean) => (hold = on) };
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
