import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EventName } from '../../common/events';
import { EventBus } from '../backend/events';
import { AppError } from '../backend/errors';
import { openCache, type CacheDb } from '../cache/cache';
import { cacheJobs } from '../cache/all-jobs';
import type { Connection } from '../connection/connection';
import { TrainingStatus } from '../../proto/gen/fleet/mltraining/v1/ml_training';
import { putTrainingJobs, setWatched } from './cache';
import type { CachedJob } from './convert';
import { TrainingWatcher, trainingResource } from './watcher';

const AT = '2026-11-25T12:00:00.000Z';

function cached(id: string, status: CachedJob['status']): CachedJob {
  return { id, orgId: 'org-1', datasetId: 'd', datasetName: '', modelName: 'm', modelVersion: id, modelType: 'object_detection', tags: ['t'], custom: false, registryItemId: '', registryItemVersion: '', status, error: null, progressPercent: 0, createdOn: AT, lastModified: AT, startedOn: null, endedOn: null, cancelRequestedOn: null, syncedModelId: '' };
}

/**
 * The watcher's surroundings: a real cache (jobs run on this thread), an event bus, and a service
 * whose jobs' statuses the test sets; `calls` counts GetTrainingJob calls.
 */
function setup() {
  const cache: CacheDb = openCache(':memory:');
  const events = new EventBus();
  const seen: { event: EventName; payload: unknown }[] = [];
  events.subscribe((event, payload) => seen.push({ event, payload }));
  const statuses = new Map<string, TrainingStatus>();
  let calls = 0;
  const client = {
    training: { getTrainingJob: 'get' },
    call: async (_what: string, _method: unknown, request: { id: string }) => {
      calls++;
      const status = statuses.get(request.id);
      if (status === undefined) throw new AppError('not-found', 'no such job');
      return { metadata: { id: request.id, orgId: 'org-1', datasetId: 'd', modelName: 'm', modelVersion: request.id, modelType: 3, tags: ['t'], isCustomJob: false, registryItemId: '', registryItemVersion: '', status, syncedModelId: '', progressPercent: calls % 100, createdOn: new Date(AT), lastModified: new Date(AT) } };
    },
  };
  const run = (job: keyof typeof cacheJobs, ...args: unknown[]) => Promise.resolve((cacheJobs[job] as (db: CacheDb, ...a: unknown[]) => unknown)(cache, ...args));
  const connection = {
    cache,
    hasService: true,
    state: { status: 'online' },
    use: (fn: (c: unknown, db: CacheDb, r: typeof run) => Promise<unknown>) => fn(client, cache, run),
  } as unknown as Connection;
  const badges: number[] = [];
  const notices: string[] = [];
  const watcher = new TrainingWatcher(connection, events, () => undefined, { notify: (n) => (notices.push(n.title), true), setBadge: (n) => badges.push(n) }, { pollMinMs: 1_000, pollMaxMs: 5_000 });
  return { cache, events, seen, statuses, watcher, badges, notices, calls: () => calls };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('TrainingWatcher', () => {
  it('polls only while a job is active, backing off 1 s → 1.5 s → 2.25 s … 5 s while no status changes (progress moving is no change), and from the start after one', async () => {
    const t = setup();
    putTrainingJobs(t.cache, [cached('a', 'running')], AT);
    t.statuses.set('a', TrainingStatus.TRAINING_STATUS_RUNNING);
    t.watcher.poke();
    const callsAt = async (ms: number) => {
      await vi.advanceTimersByTimeAsync(ms);
      return t.calls();
    };
    expect(await callsAt(999)).toBe(0);
    expect(await callsAt(1)).toBe(1); // 1 s
    expect(await callsAt(1_499)).toBe(1);
    expect(await callsAt(1)).toBe(2); // +1.5 s
    expect(await callsAt(2_250)).toBe(3); // +2.25 s
    expect(await callsAt(3_375)).toBe(4); // +3.375 s
    expect(await callsAt(5_000)).toBe(5); // capped at 5 s
    expect(await callsAt(5_000)).toBe(6);
    // Each poll saw the progress move and said so, without shortening the interval.
    expect(t.seen.filter((e) => e.event === 'training.changed').length).toBeGreaterThanOrEqual(5);
    // The job succeeds: seen at the next poll, announced, and polling stops (nothing active).
    setWatched(t.cache, 'a', true, AT);
    t.statuses.set('a', TrainingStatus.TRAINING_STATUS_SUCCEEDED);
    expect(await callsAt(5_000)).toBe(7);
    expect(t.seen.filter((e) => e.event === 'training.ended')).toHaveLength(1);
    expect(t.notices).toEqual(['Training succeeded: m a']);
    expect(await callsAt(60_000)).toBe(7);
    expect(t.badges).toEqual([1, 0]);
    t.watcher.stop();
  });

  it('follows a job the user just submitted or cancelled from the shortest interval, whatever backoff other running jobs had grown', async () => {
    const t = setup();
    putTrainingJobs(t.cache, [cached('a', 'running')], AT);
    t.statuses.set('a', TrainingStatus.TRAINING_STATUS_RUNNING);
    t.watcher.poke();
    // 1 + 1.5 + 2.25 + 3.375 + 5 s: the interval is at its 5-s cap.
    await vi.advanceTimersByTimeAsync(13_125);
    expect(t.calls()).toBe(5);
    await vi.advanceTimersByTimeAsync(500);
    // A submit writes the new job as the handler does: the next poll comes 1 s later, not 4.5 s.
    t.statuses.set('b', TrainingStatus.TRAINING_STATUS_PENDING);
    t.watcher.apply(t.cache, ['org-1'], putTrainingJobs(t.cache, [cached('b', 'pending')], AT));
    await vi.advanceTimersByTimeAsync(999);
    expect(t.calls()).toBe(5);
    await vi.advanceTimersByTimeAsync(1);
    expect(t.calls()).toBe(7); // both active jobs read
    // Back off again, then a cancel (running → canceling) polls from the start too.
    await vi.advanceTimersByTimeAsync(1_500 + 2_250 + 3_375 + 5_000);
    expect(t.calls()).toBe(15);
    await vi.advanceTimersByTimeAsync(1_000);
    t.statuses.set('a', TrainingStatus.TRAINING_STATUS_CANCELING);
    t.watcher.apply(t.cache, ['org-1'], putTrainingJobs(t.cache, [{ ...cached('a', 'canceling') }], AT));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(t.calls()).toBe(17);
    // Progress moving alone never shortens it.
    t.watcher.apply(t.cache, ['org-1'], putTrainingJobs(t.cache, [{ ...cached('a', 'canceling'), progressPercent: 55 }], AT));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(t.calls()).toBe(17);
    t.watcher.stop();
  });

  it('does not poll with nothing active, nor while offline; a deleted job is dropped from the cache', async () => {
    const t = setup();
    putTrainingJobs(t.cache, [cached('done', 'succeeded')], AT);
    t.watcher.poke();
    await vi.advanceTimersByTimeAsync(30_000);
    expect(t.calls()).toBe(0);
    putTrainingJobs(t.cache, [cached('gone', 'pending')], AT);
    t.watcher.poke();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(t.calls()).toBe(1);
    expect(t.cache.prepare("SELECT count(*) FROM training_jobs WHERE id = 'gone'").pluck().get()).toBe(0);
    const changed = t.seen.filter((e) => e.event === 'training.changed');
    expect(changed.at(-1)?.payload).toMatchObject({ orgIds: ['org-1'] });
    t.watcher.stop();
  });

  it('announces a read the page made itself only when the counts changed, so a running job’s progress cannot make the page read again and again', () => {
    const t = setup();
    const write = putTrainingJobs(t.cache, [cached('a', 'running')], AT);
    t.watcher.apply(t.cache, ['org-1'], write, { quiet: true });
    expect(t.seen.filter((e) => e.event === 'training.changed')).toHaveLength(1); // the count went 0 → 1
    const progressed = putTrainingJobs(t.cache, [{ ...cached('a', 'running'), progressPercent: 40 }], AT);
    expect(progressed.changed).toBe(true);
    t.watcher.apply(t.cache, ['org-1'], progressed, { quiet: true });
    expect(t.seen.filter((e) => e.event === 'training.changed')).toHaveLength(1);
    t.watcher.apply(t.cache, ['org-1'], putTrainingJobs(t.cache, [{ ...cached('a', 'running'), progressPercent: 50 }], AT));
    expect(t.seen.filter((e) => e.event === 'training.changed')).toHaveLength(2);
    t.watcher.stop();
  });

  it('tells the renderer about a newly opened cache once; after a sync round only the organizations that changed are told', () => {
    const t = setup();
    const resource = trainingResource(t.watcher, () => undefined);
    resource.publish(t.cache);
    resource.publish(t.cache);
    resource.publish(t.cache);
    expect(t.seen.filter((e) => e.event === 'training.changed')).toHaveLength(1);
    t.watcher.stop();
  });
});
