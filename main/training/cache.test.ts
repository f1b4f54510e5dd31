import { describe, expect, it } from 'vitest';
import { openCache } from '../cache/cache';
import { activeTrainingJobs, changedTrainingJobs, countTrainingJobs, datasetsLastUsed, mergeTrainingJobs, trainingModifiedSince, dropTrainingExcept, getTrainingJob, listTrainingJobs, putTrainingJobs, removeTrainingJobs, replaceTrainingJobs, setWatched, trainingSummary, trainingSyncedAt } from './cache';
import { nextVersion, type CachedJob } from './convert';

function job(id: string, over: Partial<CachedJob> = {}): CachedJob {
  return {
    id,
    orgId: 'org-1',
    datasetId: 'ds-1',
    datasetName: 'Yard',
    modelName: 'yard',
    modelVersion: id,
    modelType: 'object_detection',
    tags: ['cone'],
    custom: false,
    registryItemId: '',
    registryItemVersion: '',
    status: 'pending',
    error: null,
    progressPercent: 0,
    createdOn: `2026-11-2${id.length}T10:00:00.000Z`,
    lastModified: null,
    startedOn: null,
    endedOn: null,
    cancelRequestedOn: null,
    syncedModelId: '',
    ...over,
  };
}

const AT = '2026-11-25T12:00:00.000Z';

describe('training cache', () => {
  it('merges a delta without touching the jobs it does not name, keeps the newest lastModified listed, and lists what was written since a time', () => {
    const db = openCache(':memory:');
    const T1 = '2026-11-25T12:00:00.000Z';
    const T2 = '2026-11-25T12:01:00.000Z';
    replaceTrainingJobs(db, 'org-1', [job('a', { status: 'succeeded', lastModified: '2026-11-20T00:00:00.000Z' }), job('b', { status: 'running', lastModified: '2026-11-25T11:59:00.000Z' })], T1);
    expect(trainingModifiedSince(db, 'org-1')).toBe('2026-11-25T11:59:00.000Z');
    const write = mergeTrainingJobs(db, 'org-1', [job('b', { status: 'running', progressPercent: 50, lastModified: '2026-11-25T12:00:30.000Z' }), job('cc', { lastModified: '2026-11-25T12:00:40.000Z' })], T2);
    expect(write.changed).toBe(true);
    expect(countTrainingJobs(db, 'org-1')).toBe(3);
    expect(trainingModifiedSince(db, 'org-1')).toBe('2026-11-25T12:00:40.000Z');
    // A delta listing nothing newer never moves the mark back.
    mergeTrainingJobs(db, 'org-1', [job('b', { status: 'running', progressPercent: 50, lastModified: '2026-11-25T12:00:30.000Z' })], '2026-11-25T12:02:00.000Z');
    expect(trainingModifiedSince(db, 'org-1')).toBe('2026-11-25T12:00:40.000Z');
    // Written at T2: b (changed) and cc (new); a, finished and unchanged, is not sent again; b re-sent unchanged keeps its time.
    expect(changedTrainingJobs(db, 'org-1', T2).map((j) => j.id).sort()).toEqual(['b', 'cc']);
    expect(changedTrainingJobs(db, 'org-1', '2026-11-25T12:01:30.000Z')).toEqual([]);
    dropTrainingExcept(db, []);
    expect(trainingModifiedSince(db, 'org-1')).toBeNull();
  });


  it('lists an organization’s jobs newest first, filters by status, and counts pending and running per organization', () => {
    const db = openCache(':memory:');
    putTrainingJobs(db, [job('a', { createdOn: '2026-11-01T00:00:00.000Z', status: 'succeeded' }), job('b', { createdOn: '2026-11-03T00:00:00.000Z', status: 'running' }), job('c', { createdOn: '2026-11-02T00:00:00.000Z' }), job('x', { orgId: 'org-2', status: 'running' })], AT);
    expect(listTrainingJobs(db, 'org-1', null).map((j) => j.id)).toEqual(['b', 'c', 'a']);
    expect(listTrainingJobs(db, 'org-1', 'running').map((j) => j.id)).toEqual(['b']);
    expect(trainingSummary(db)).toEqual({ running: 2, pending: 1, byOrg: { 'org-1': { running: 1, pending: 1 }, 'org-2': { running: 1, pending: 0 } } });
    expect(activeTrainingJobs(db).map((j) => j.id).sort()).toEqual(['b', 'c', 'x']);
    expect(datasetsLastUsed(db, 'org-1').get('ds-1')).toBe('2026-11-03T00:00:00.000Z');
  });

  it('reads a list in parts from where the last part stopped, ties by id and undated jobs last, the parts making up the whole list', () => {
    const db = openCache(':memory:');
    const day = (d: number) => `2026-11-0${d}T00:00:00.000Z`;
    putTrainingJobs(db, [job('a', { createdOn: day(3) }), job('b', { createdOn: day(2) }), job('c', { createdOn: day(2) }), job('d', { createdOn: day(1), status: 'failed' }), job('e', { createdOn: null }), job('f', { createdOn: null, status: 'failed' })], AT);
    const whole = listTrainingJobs(db, 'org-1', null).map((j) => j.id);
    expect(whole).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    const parts: string[][] = [];
    let after: { createdOn: string | null; id: string } | null = null;
    for (;;) {
      const part = listTrainingJobs(db, 'org-1', null, { limit: 2, after });
      if (part.length === 0) break;
      parts.push(part.map((j) => j.id));
      const last = part.at(-1)!;
      after = { createdOn: last.createdOn, id: last.id };
    }
    expect(parts).toEqual([['a', 'b'], ['c', 'd'], ['e', 'f']]);
    // The rest at once (no limit), from the middle of a tie and from an undated job; with a status too.
    expect(listTrainingJobs(db, 'org-1', null, { limit: null, after: { createdOn: day(2), id: 'b' } }).map((j) => j.id)).toEqual(['c', 'd', 'e', 'f']);
    expect(listTrainingJobs(db, 'org-1', null, { limit: null, after: { createdOn: null, id: 'e' } }).map((j) => j.id)).toEqual(['f']);
    expect(listTrainingJobs(db, 'org-1', 'failed', { limit: 1, after: { createdOn: day(2), id: 'c' } }).map((j) => j.id)).toEqual(['d']);
  });

  it('reports a watched job that went from active to succeeded or failed once, and nothing for unwatched or unchanged jobs', () => {
    const db = openCache(':memory:');
    expect(putTrainingJobs(db, [job('a', { status: 'running' }), job('b', { status: 'running' })], AT)).toEqual({ changed: true, ended: [], activated: true });
    setWatched(db, 'a', true, AT);
    expect(putTrainingJobs(db, [job('a', { status: 'running' })], AT)).toEqual({ changed: false, ended: [], activated: false });
    const ended = putTrainingJobs(db, [job('a', { status: 'failed', error: { code: 'NOT_FOUND', message: 'no dataset' } }), job('b', { status: 'succeeded' })], AT);
    expect(ended.ended.map((j) => [j.id, j.status, j.watched])).toEqual([['a', 'failed', true]]);
    // Seen again as failed: not announced twice.
    expect(putTrainingJobs(db, [job('a', { status: 'failed', error: { code: 'NOT_FOUND', message: 'no dataset' } })], AT).ended).toEqual([]);
    expect(getTrainingJob(db, 'a')?.watched).toBe(true);
    expect(getTrainingJob(db, 'b')?.watched).toBe(false);
    // A cancel is the user's own doing: not announced.
    setWatched(db, 'b', true, AT);
    putTrainingJobs(db, [job('c', { status: 'running' })], AT);
    setWatched(db, 'c', true, AT);
    expect(putTrainingJobs(db, [job('c', { status: 'canceled' })], AT).ended).toEqual([]);
  });

  it('says when a job came into an active status: new and pending or running, or moved among the active ones; never for progress or an end', () => {
    const db = openCache(':memory:');
    expect(putTrainingJobs(db, [job('a', { status: 'pending' })], AT).activated).toBe(true);
    expect(putTrainingJobs(db, [job('a', { status: 'running' })], AT).activated).toBe(true);
    expect(putTrainingJobs(db, [job('a', { status: 'running', progressPercent: 40 })], AT)).toMatchObject({ changed: true, activated: false });
    expect(putTrainingJobs(db, [job('a', { status: 'canceling' })], AT).activated).toBe(true);
    expect(putTrainingJobs(db, [job('a', { status: 'canceled' })], AT)).toMatchObject({ changed: true, activated: false });
    expect(putTrainingJobs(db, [job('b', { status: 'succeeded' })], AT)).toMatchObject({ changed: true, activated: false });
    expect(replaceTrainingJobs(db, 'org-1', [job('c', { status: 'pending' })], AT)).toMatchObject({ changed: true, activated: true });
  });

  it('replaces an organization’s jobs whole, keeping the watches of jobs still listed and dropping the rest', () => {
    const db = openCache(':memory:');
    putTrainingJobs(db, [job('a'), job('b'), job('x', { orgId: 'org-2' })], AT);
    setWatched(db, 'a', true, AT);
    setWatched(db, 'b', true, AT);
    const write = replaceTrainingJobs(db, 'org-1', [job('a', { status: 'succeeded' })], AT);
    expect(write.changed).toBe(true);
    expect(write.ended.map((j) => j.id)).toEqual(['a']);
    expect(listTrainingJobs(db, 'org-1', null).map((j) => j.id)).toEqual(['a']);
    expect(db.prepare('SELECT job_id FROM training_watched').pluck().all()).toEqual(['a']);
    expect(listTrainingJobs(db, 'org-2', null)).toHaveLength(1);
    expect(trainingSyncedAt(db, 'org-1')).toBe(AT);
    expect(replaceTrainingJobs(db, 'org-1', [job('a', { status: 'succeeded' })], AT).changed).toBe(false);
    removeTrainingJobs(db, ['a']);
    expect(getTrainingJob(db, 'a')).toBeNull();
    expect(db.prepare('SELECT count(*) FROM training_watched').pluck().get()).toBe(0);
    dropTrainingExcept(db, ['org-1']);
    expect(listTrainingJobs(db, 'org-2', null)).toEqual([]);
  });
});

describe('nextVersion', () => {
  it('raises the last number of the last version, never proposing one taken', () => {
    expect(nextVersion([])).toBe('1');
    expect(nextVersion(['1', '2', '3'])).toBe('4');
    expect(nextVersion(['1.0.9'])).toBe('1.0.10');
    expect(nextVersion(['v2-beta'])).toBe('v3-beta');
    expect(nextVersion(['final'])).toBe('final.1');
    expect(nextVersion(['4', '3'])).toBe('5');
    expect(nextVersion(['2026-11-25'])).toBe('2026-11-26');
    expect(nextVersion(['99999999999999999999'])).toBe('100000000000000000000');
  });
});
