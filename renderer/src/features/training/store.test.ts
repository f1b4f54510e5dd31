import { describe, expect, it } from 'vitest';
import { err, ok } from '../../../../common/result';
import type { TrainingJob } from '../../../../common/training';
import { deferred, fakeBridge, settle } from '../../lib/testing/fake-transport';
import { endedJob, trainingDataset, trainingJob, trainingModel, trainingScript, trainingSummary } from '../../lib/testing/fixtures';
import { Notices } from '../../lib/state/notices.svelte';
import { FIRST_PART } from './jobs.svelte';
import { TrainingStore } from './store.svelte';
import type { Notifier, NotifyPermission } from './notifier';

/** A Notification API stand-in: what was shown, and a way to click it. */
function fakeNotifier(initial: NotifyPermission = 'default') {
  let permission = initial;
  const shown: { title: string; body: string; tag: string; click: () => void }[] = [];
  let requests = 0;
  const notifier: Notifier = {
    permission: () => permission,
    request: async () => {
      requests++;
      permission = 'granted';
      return permission;
    },
    show: (notice, onclick) => {
      shown.push({ ...notice, click: onclick });
    },
  };
  return {
    notifier,
    shown,
    get requests() {
      return requests;
    },
  };
}

const jobs = (list: readonly TrainingJob[], fromCache = false) => ({
  orgId: 'org-acme',
  jobs: list,
  delta: false,
  cursor: '2026-11-25T10:05:00.000Z',
  total: list.length,
  fromCache,
  syncedAt: '2026-11-25T10:05:00.000Z',
});

function setup(options: { notifier?: Notifier | null; navigate?: (path: string, options?: { readonly replace?: boolean; readonly ifShowing?: readonly string[] }) => void } = {}) {
  const { transport, bridge } = fakeBridge();
  transport.handle('training.summary', trainingSummary({ 'org-acme': { running: 1, pending: 0 } }));
  transport.handle('training.list', (r) => {
    const all = [trainingJob('yard-detector', '4'), endedJob('succeeded', 'yard-detector', '3'), endedJob('failed', 'pallet-finder', '2')];
    return ok(jobs(r.status ? all.filter((j) => j.status === r.status) : all));
  });
  transport.handle('training.datasets', [trainingDataset('ds-yard', 'yard-2026'), trainingDataset('ds-dock', 'dock', ['crate'])]);
  transport.handle('training.models', [trainingModel('yard-detector', ['1', '2', '3'], '4')]);
  transport.handle('training.get', (r) => ok({ job: trainingJob('yard-detector', '4', { id: r.jobId }), fromCache: false }));
  const notices = new Notices();
  const store = new TrainingStore(bridge, { notices, notifier: options.notifier ?? null, ...(options.navigate ? { navigate: options.navigate } : {}) });
  const stop = store.follow();
  return { transport, store, notices, stop };
}

describe('the training page reads only what changed', () => {
  const delta = (changed: readonly TrainingJob[], total: number, cursor: string) => ({ ...jobs(changed), delta: true, total, cursor });

  it('merges the jobs changed since its last read by id, keeping newest first and the finished jobs it holds', async () => {
    const { transport, store } = setup();
    const list = store.show('org-acme');
    await settle();
    const before = list.all;
    const finished = before[1];
    const moved = trainingJob('yard-detector', '4', { progressPercent: 80 });
    const added = trainingJob('yard-detector', '5', { createdOn: '2026-11-26T09:00:00.000Z' });
    transport.handle('training.list', (r) => {
      expect(r.since).toBe('2026-11-25T10:05:00.000Z');
      return ok(delta([moved, added], 4, '2026-11-26T09:00:01.000Z'));
    });
    transport.emit('training.changed', { orgIds: ['org-acme'], summary: trainingSummary() });
    await settle();
    expect(list.all.map((j) => j.id)).toEqual(['job-yard-detector-5', 'job-yard-detector-4', 'job-yard-detector-3', 'job-pallet-finder-2']);
    expect(list.all[1]?.progressPercent).toBe(80);
    // Jobs no delta named are the same objects: their rows are not redrawn.
    expect(list.all[2]).toBe(finished);
    transport.handle('training.list', () => ok(delta([], 4, '2026-11-26T09:00:02.000Z')));
    const held = list.all;
    await list.load();
    expect(transport.callsTo('training.list').at(-1)).toEqual({ orgId: 'org-acme', status: null, since: '2026-11-26T09:00:01.000Z' });
    expect(list.all).toBe(held);
  });

  it('keeps the last list after its page closed: reopening shows the jobs held and reads only what changed; a profile switch forgets it', async () => {
    const { transport, store } = setup();
    const list = store.show('org-acme');
    await settle();
    store.close();
    transport.handle('training.list', () => ok(delta([], 3, '2026-11-26T09:00:00.000Z')));
    expect(store.show('org-acme')).toBe(list);
    expect(list.jobs).toHaveLength(3);
    await settle();
    expect(transport.callsTo('training.list').at(-1)).toEqual({ orgId: 'org-acme', status: null, since: '2026-11-25T10:05:00.000Z' });
    store.reset();
    expect(store.show('org-acme')).not.toBe(list);
  });

  it('reads the whole list again when a delta leaves it at another length than main has (a job deleted elsewhere)', async () => {
    const { transport, store } = setup();
    const list = store.show('org-acme');
    await settle();
    const kept = list.all.slice(0, 2);
    transport.handle('training.list', (r) => ok(r.since === null ? jobs(kept) : delta([], 2, '2026-11-26T09:00:00.000Z')));
    await list.load();
    expect(transport.callsTo('training.list').slice(-2).map((r) => (r as { since: string | null }).since)).toEqual(['2026-11-25T10:05:00.000Z', null]);
    expect(list.all.map((j) => j.id)).toEqual(kept.map((j) => j.id));
  });
});

describe('the training page reads a long list in two parts', () => {
  /** 250 jobs, newest first: the newest running, then finished ones (every third failed). */
  const many = Array.from({ length: 250 }, (_, i) =>
    i === 0
      ? trainingJob('big', '250', { createdOn: '2026-11-26T00:00:00.000Z' })
      : endedJob(i % 3 === 0 ? 'failed' : 'succeeded', 'big', `${250 - i}`, { createdOn: new Date(Date.parse('2026-11-26T00:00:00.000Z') - i * 60_000).toISOString() }),
  );
  const after = (job: TrainingJob) => ({ createdOn: job.createdOn, id: job.id });

  /** Main as the page sees it: the first part cut at `limit` with `more`, the rest after a job; the rest's answer waits for `rest`. */
  function partsOf(transport: ReturnType<typeof setup>['transport'], all: readonly TrainingJob[], rest: Promise<unknown>) {
    transport.handle('training.list', async (r) => {
      if (r.since !== null) return ok({ ...jobs([]), delta: true, total: all.length, cursor: '2026-11-26T09:00:00.000Z' });
      if (r.after) {
        await rest;
        const from = all.findIndex((j) => j.id === r.after?.id) + 1;
        return ok(jobs(all.slice(from)));
      }
      const limit = r.limit ?? all.length;
      return ok({ ...jobs(all.slice(0, limit)), total: all.length, more: all.length > limit });
    });
  }

  it('draws the first part at once, says so, and merges the rest after its last job when it arrives', async () => {
    const { transport, store } = setup();
    const rest = deferred<null>();
    partsOf(transport, many, rest.promise);
    const list = store.show('org-acme');
    await settle();
    expect(transport.callsTo('training.list')[0]).toEqual({ orgId: 'org-acme', status: null, since: null, limit: FIRST_PART });
    expect(list.loaded).toBe(true);
    expect(list.partial).toBe(true);
    expect(list.total).toBe(250);
    expect(list.all.map((j) => j.id)).toEqual(many.slice(0, FIRST_PART).map((j) => j.id));
    expect(transport.callsTo('training.list')[1]).toEqual({ orgId: 'org-acme', status: null, since: null, after: after(many[FIRST_PART - 1]!) });
    rest.resolve(null);
    await settle();
    expect(list.partial).toBe(false);
    expect(list.all.map((j) => j.id)).toEqual(many.map((j) => j.id));
    // Complete: the next read is a delta, and the whole list is not asked for again.
    await list.load();
    expect(transport.callsTo('training.list')).toHaveLength(3);
    expect((transport.callsTo('training.list')[2] as { since: string | null }).since).toBe('2026-11-25T10:05:00.000Z');
  });

  it('while the rest loads, a delta is merged without reading the whole list, and the rest neither undoes what the delta or a delete did nor brings a deleted job back', async () => {
    const { transport, store } = setup();
    const rest = deferred<null>();
    partsOf(transport, many, rest.promise);
    const list = store.show('org-acme');
    await settle();
    const moved = trainingJob('big', '250', { createdOn: '2026-11-26T00:00:00.000Z', progressPercent: 70 });
    // A job of the rest changed: the delta brings it first; the rest, read before, has the older one.
    const late = { ...many[200]!, syncedModelId: 'acme:big-renamed' };
    transport.handle('training.list', async (r) => {
      if (r.since !== null) return ok({ ...jobs([moved, late]), delta: true, total: 250, cursor: '2026-11-26T09:00:00.000Z' });
      await rest.promise;
      return ok(jobs(many.slice(FIRST_PART)));
    });
    await list.load();
    expect(transport.callsTo('training.list').filter((r) => (r as { since: string | null }).since === null && !(r as { after?: unknown }).after)).toHaveLength(1);
    expect(list.all[0]?.progressPercent).toBe(70);
    transport.handle('training.delete', { deleted: [many[150]!.id], failed: [] });
    await store.delete([many[150]!.id]);
    rest.resolve(null);
    await settle();
    expect(list.partial).toBe(false);
    expect(list.all).toHaveLength(249);
    expect(list.all.some((j) => j.id === many[150]!.id)).toBe(false);
    expect(list.all.find((j) => j.id === late.id)?.syncedModelId).toBe('acme:big-renamed');
    expect(list.all[0]?.progressPercent).toBe(70);
  });

  it('filters and ticks "every finished job" over what is held, and takes in the finished jobs of the rest when it arrives', async () => {
    const { transport, store } = setup();
    const rest = deferred<null>();
    partsOf(transport, many, rest.promise);
    const list = store.show('org-acme');
    await settle();
    await list.load('failed');
    expect(list.jobs.every((j) => j.status === 'failed')).toBe(true);
    const firstFailed = list.jobs.length;
    list.selectAll(true);
    expect(list.selected).toHaveLength(firstFailed);
    rest.resolve(null);
    await settle();
    const failed = many.filter((j) => j.status === 'failed').map((j) => j.id);
    expect(list.jobs.map((j) => j.id)).toEqual(failed);
    expect([...list.selected].sort()).toEqual([...failed].sort());
    // Unticking one stops taking in: "select every" is no longer what the user asked for.
    list.toggle(failed[0]!, false);
    expect(list.selected).toHaveLength(failed.length - 1);
  });

  it('keeps a failed rest to show, the first part still shown, and asks for it again on the next read', async () => {
    const { transport, store } = setup();
    let restFails = true;
    transport.handle('training.list', (r) => {
      if (r.since !== null) return ok({ ...jobs([]), delta: true, total: 250, cursor: '2026-11-26T09:00:00.000Z' });
      if (r.after) return restFails ? err('offline', 'The service cannot be reached.') : ok(jobs(many.slice(FIRST_PART)));
      return ok({ ...jobs(many.slice(0, FIRST_PART)), total: 250, more: true });
    });
    const list = store.show('org-acme');
    await settle();
    expect(list.partial).toBe(true);
    expect(list.error?.message).toBe('The service cannot be reached.');
    expect(list.all).toHaveLength(FIRST_PART);
    restFails = false;
    await list.load();
    await settle();
    expect(list.partial).toBe(false);
    expect(list.error).toBeNull();
    expect(list.all).toHaveLength(250);
  });
});

describe('the training page', () => {
  it('loads an organization\'s jobs, filters by status, and keeps the filter on reopening', async () => {
    const { transport, store } = setup();
    const list = store.show('org-acme');
    await settle();
    expect(store.page).toEqual({ orgId: 'org-acme', jobId: null });
    expect(list.jobs.map((j) => j.id)).toEqual(['job-yard-detector-4', 'job-yard-detector-3', 'job-pallet-finder-2']);
    // Rows name their datasets from the jobs themselves: no read of the datasets for the page.
    expect(transport.callsTo('training.datasets')).toEqual([]);
    await list.load('failed');
    // The filter applies over the jobs held; the read asks only for what changed since the last one.
    expect(transport.callsTo('training.list').at(-1)).toEqual({ orgId: 'org-acme', status: null, since: '2026-11-25T10:05:00.000Z' });
    expect(list.jobs.map((j) => j.status)).toEqual(['failed']);
    store.show('org-acme');
    await settle();
    expect(list.status).toBe('failed');
    expect(list.jobs.map((j) => j.status)).toEqual(['failed']);
    expect(store.list).toBe(list);
  });

  it('says when the jobs come from the cache, and keeps a failure to show', async () => {
    const { transport, store } = setup();
    transport.handle('training.list', jobs([trainingJob()], true));
    const list = store.show('org-acme');
    await settle();
    expect(list.fromCache).toBe(true);
    expect(list.syncedAt).toBe('2026-11-25T10:05:00.000Z');
    transport.handle('training.list', () => err('permission-denied', 'Only members see training jobs.'));
    await list.load();
    expect(list.error?.message).toBe('Only members see training jobs.');
    expect(list.jobs).toHaveLength(1);
  });

  it('reads the page again on training.changed naming its organization, not another', async () => {
    const { transport, store } = setup();
    store.show('org-acme');
    await settle();
    const before = transport.callsTo('training.list').length;
    transport.emit('training.changed', { orgIds: ['org-other'], summary: trainingSummary({ 'org-other': { running: 2, pending: 0 } }) });
    await settle();
    expect(transport.callsTo('training.list')).toHaveLength(before);
    transport.emit('training.changed', { orgIds: ['org-acme'], summary: trainingSummary({ 'org-acme': { running: 0, pending: 0 } }) });
    await settle();
    expect(transport.callsTo('training.list')).toHaveLength(before + 1);
  });

  it('folds changes that arrive while a read is on its way into one more read', async () => {
    const { transport, store } = setup();
    const list = store.show('org-acme');
    await settle();
    const slow = deferred<null>();
    let answered = 0;
    transport.handle('training.list', async () => {
      await slow.promise;
      answered++;
      return ok(jobs([trainingJob()]));
    });
    const changed = { orgIds: ['org-acme'], summary: trainingSummary() };
    transport.emit('training.changed', changed);
    transport.emit('training.changed', changed);
    transport.emit('training.changed', changed);
    slow.resolve(null);
    await settle();
    await settle();
    expect(answered).toBe(2);
    expect(list.jobs).toHaveLength(1);
  });

  it('reads the open job again when its organization changed', async () => {
    const { transport, store } = setup();
    const view = store.showJob('org-acme', 'job-yard-detector-4');
    await settle();
    expect(store.page).toEqual({ orgId: 'org-acme', jobId: 'job-yard-detector-4' });
    expect(view.job?.progressPercent).toBe(40);
    transport.handle('training.get', { job: trainingJob('yard-detector', '4', { progressPercent: 75 }), fromCache: false });
    transport.emit('training.changed', { orgIds: ['org-other'], summary: trainingSummary() });
    await settle();
    expect(view.job?.progressPercent).toBe(40);
    transport.emit('training.changed', { orgIds: ['org-acme'], summary: trainingSummary() });
    await settle();
    expect(view.job?.progressPercent).toBe(75);
    store.backToList();
    expect(store.page).toEqual({ orgId: 'org-acme', jobId: null });
  });

  it('takes the summary at start and from every training.changed (the badge)', async () => {
    const { transport, store } = setup();
    await settle();
    expect(store.running).toBe(1);
    expect(store.runningIn('org-acme')).toBe(1);
    transport.emit('training.changed', { orgIds: ['org-b'], summary: trainingSummary({ 'org-acme': { running: 1, pending: 0 }, 'org-b': { running: 2, pending: 1 } }) });
    expect(store.running).toBe(3);
    expect(store.runningIn('org-b')).toBe(2);
    expect(store.summary?.pending).toBe(1);
  });
});

describe('cancel, delete and watch', () => {
  it('cancels a job: the answer shows in the list and on its page', async () => {
    const { transport, store } = setup();
    const list = store.show('org-acme');
    await settle();
    const view = store.showJob('org-acme', 'job-yard-detector-4');
    await settle();
    transport.handle('training.cancel', (r) => ok(trainingJob('yard-detector', '4', { id: r.jobId, status: 'canceling', cancelRequestedOn: '2026-11-25T10:06:00.000Z' })));
    const result = await store.cancel('job-yard-detector-4');
    expect(result.ok).toBe(true);
    expect(transport.callsTo('training.cancel')).toEqual([{ jobId: 'job-yard-detector-4' }]);
    expect(list.jobs[0]?.status).toBe('canceling');
    expect(view.job?.status).toBe('canceling');

    transport.handle('training.cancel', () => err('invalid', 'A succeeded job cannot be canceled.'));
    expect(await store.cancel('job-yard-detector-3')).toEqual({ ok: false, error: { kind: 'invalid', message: 'A succeeded job cannot be canceled.' } });
  });

  it('an older read on its way does not replace what an action answered, and the page stops loading', async () => {
    const { transport, store } = setup();
    const list = store.show('org-acme');
    await settle();
    const slow = deferred<null>();
    transport.handle('training.list', async () => {
      await slow.promise;
      return ok(jobs([trainingJob('yard-detector', '4', { status: 'running' })]));
    });
    void list.load();
    transport.handle('training.cancel', (r) => ok(trainingJob('yard-detector', '4', { id: r.jobId, status: 'canceling' })));
    await store.cancel('job-yard-detector-4');
    slow.resolve(null);
    await settle();
    expect(list.jobs[0]?.status).toBe('canceling');
    expect(list.loading).toBe(false);
  });

  it('selects only finished jobs; deletes them, and keeps each refusal with the job it names', async () => {
    const { transport, store } = setup();
    const list = store.show('org-acme');
    await settle();
    list.toggle('job-yard-detector-4'); // running: not deletable
    expect(list.selected).toEqual([]);
    list.selectAll(true);
    expect(list.selected).toEqual(['job-yard-detector-3', 'job-pallet-finder-2']);
    transport.handle('training.delete', (r) =>
      ok({ deleted: r.jobIds.filter((id) => id !== 'job-pallet-finder-2'), failed: [{ jobId: 'job-pallet-finder-2', error: { kind: 'permission-denied', message: 'Only owners delete jobs.' } }] }),
    );
    const result = await store.delete(list.selected);
    expect(transport.callsTo('training.delete')).toEqual([{ jobIds: ['job-yard-detector-3', 'job-pallet-finder-2'] }]);
    expect(result.ok && result.value.deleted).toEqual(['job-yard-detector-3']);
    expect(list.jobs.map((j) => j.id)).toEqual(['job-yard-detector-4', 'job-pallet-finder-2']);
    expect(list.selected).toEqual(['job-pallet-finder-2']);
    expect(list.deleteFailures).toEqual([{ jobId: 'job-pallet-finder-2', label: 'pallet-finder 2', message: 'Only owners delete jobs.' }]);
  });

  it('a failed delete call changes nothing; deleting the open job goes back to the list', async () => {
    const { transport, store } = setup();
    const list = store.show('org-acme');
    await settle();
    transport.handle('training.delete', () => err('offline', 'The service cannot be reached.'));
    expect((await store.delete(['job-yard-detector-3'])).ok).toBe(false);
    expect(list.jobs).toHaveLength(3);
    store.showJob('org-acme', 'job-yard-detector-3');
    transport.handle('training.delete', { deleted: ['job-yard-detector-3'], failed: [] });
    await store.delete(['job-yard-detector-3']);
    expect(store.page).toEqual({ orgId: 'org-acme', jobId: null });
  });

  it('watches and unwatches; watching asks notification permission (a user gesture)', async () => {
    const fake = fakeNotifier('default');
    const { transport, store } = setup({ notifier: fake.notifier });
    store.show('org-acme');
    await settle();
    transport.handle('training.watch', (r) => ok(endedJob('failed', 'pallet-finder', '2', { watched: r.watch })));
    await store.watch('job-pallet-finder-2', false);
    expect(fake.requests).toBe(0);
    expect(store.list?.jobs[2]?.watched).toBe(false);
    await store.watch('job-pallet-finder-2', true);
    expect(fake.requests).toBe(1);
    expect(store.notifyPermission).toBe('granted');
    expect(transport.callsTo('training.watch')).toEqual([
      { jobId: 'job-pallet-finder-2', watch: false },
      { jobId: 'job-pallet-finder-2', watch: true },
    ]);
  });
});

describe('ended jobs', () => {
  it('browser mode: a notification and a notice; clicking it opens the job', async () => {
    const fake = fakeNotifier('granted');
    const { transport, store, notices } = setup({ notifier: fake.notifier });
    await settle();
    transport.emit('training.ended', { job: endedJob('failed', 'yard-detector', '4'), notified: false });
    expect(fake.shown.map(({ title, body, tag }) => ({ title, body, tag }))).toEqual([
      { title: 'Training failed: yard-detector 4', body: 'The trainer ran out of GPU memory. (RESOURCE_EXHAUSTED)', tag: 'training-job-yard-detector-4' },
    ]);
    expect(notices.items.map((n) => [n.tone, n.message])).toEqual([['error', 'Training failed: yard-detector 4 — The trainer ran out of GPU memory. (RESOURCE_EXHAUSTED)']]);
    expect(store.page).toBeNull();
    fake.shown[0]?.click();
    expect(store.page).toEqual({ orgId: 'org-acme', jobId: 'job-yard-detector-4' });
    await settle();
    expect(transport.callsTo('training.get')).toEqual([{ jobId: 'job-yard-detector-4' }]);
    notices.clear();
  });

  it('no notification when the host notified (Electron), nor without permission; the notice always', async () => {
    const fake = fakeNotifier('granted');
    const { transport, notices } = setup({ notifier: fake.notifier });
    transport.emit('training.ended', { job: endedJob('succeeded', 'yard-detector', '4'), notified: true });
    expect(fake.shown).toHaveLength(0);
    expect(notices.items.map((n) => [n.tone, n.message])).toEqual([['success', 'Training succeeded: yard-detector 4 — Trained in 12 min 5 s.']]);
    notices.clear();

    const undecided = fakeNotifier('default');
    const second = setup({ notifier: undecided.notifier });
    second.transport.emit('training.ended', { job: endedJob('succeeded', 'pallet-finder', '1'), notified: false });
    expect(undecided.shown).toHaveLength(0);
    expect(undecided.requests).toBe(0); // never asked outside a user gesture
    expect(second.notices.items).toHaveLength(1);
    second.notices.clear();
  });

  it('an ended job shows its final state on the page at once', async () => {
    const { transport, store, notices } = setup();
    const list = store.show('org-acme');
    await settle();
    transport.emit('training.ended', { job: endedJob('succeeded', 'yard-detector', '4'), notified: true });
    expect(list.jobs[0]?.status).toBe('succeeded');
    notices.clear();
  });

  it('training.open (a native notification clicked) opens the job', async () => {
    const { transport, store } = setup();
    transport.emit('training.open', { orgId: 'org-b', jobId: 'job-x' });
    expect(store.page).toEqual({ orgId: 'org-b', jobId: 'job-x' });
    await settle();
    expect(transport.callsTo('training.list').at(-1)).toEqual({ orgId: 'org-b', status: null, since: null, limit: FIRST_PART });
    expect(transport.callsTo('training.get')).toEqual([{ jobId: 'job-x' }]);
  });

  it('with the app\'s router, every way to a page goes through it; deleting the open job replaces its entry', async () => {
    const went: [string, boolean][] = [];
    const fake = fakeNotifier('granted');
    const { transport, store } = setup({ notifier: fake.notifier, navigate: (path, options) => went.push([path, options?.replace ?? false]) });
    store.open('org-acme');
    store.openJob('org-acme', 'job/4');
    transport.emit('training.open', { orgId: 'org-b', jobId: 'job-x' });
    transport.emit('training.ended', { job: endedJob('failed', 'yard-detector', '4'), notified: false });
    fake.shown[0]?.click();
    // Nothing is shown until the router enters the route.
    expect(store.page).toBeNull();
    store.showJob('org-acme', 'job-yard-detector-3');
    store.backToList();
    transport.handle('training.delete', { deleted: ['job-yard-detector-3'], failed: [] });
    await store.delete(['job-yard-detector-3']);
    expect(went).toEqual([
      ['/orgs/org-acme/training', false],
      ['/orgs/org-acme/training/jobs/job%2F4', false],
      ['/orgs/org-b/training/jobs/job-x', false],
      ['/orgs/org-acme/training/jobs/job-yard-detector-4', false],
      ['/orgs/org-acme/training', false],
      ['/orgs/org-acme/training', true],
    ]);
  });
});

describe('train a model', () => {
  async function openForm(options: { notifier?: Notifier | null } = {}) {
    const ctx = setup(options);
    ctx.store.show('org-acme');
    const form = await ctx.store.startSubmit();
    await settle();
    if (!form) throw new Error('no form');
    return { ...ctx, form };
  }

  it('chooses the most recent dataset; an existing model name proposes its next version and type, a new one 1', async () => {
    const { form } = await openForm();
    expect(form.datasetId).toBe('ds-yard');
    form.setModelType('single_label_classification');
    form.setModelName('yard-detector');
    expect(form.modelVersion).toBe('4');
    expect(form.modelType).toBe('single_label_classification'); // the user's choice stays
    form.setModelName('brand-new');
    expect(form.modelVersion).toBe('1');
    form.setModelVersion('2026-11-25');
    form.setModelName('yard-detector');
    expect(form.modelVersion).toBe('2026-11-25'); // typed by the user: kept
  });

  it('proposes the type of an existing model when none was chosen', async () => {
    const { form } = await openForm();
    expect(form.modelType).toBe('single_label_classification');
    form.setModelName('yard-detector');
    expect(form.modelType).toBe('object_detection');
  });

  it('refuses a bad name, a taken version and no labels before calling', async () => {
    const { transport, form, store } = await openForm();
    form.setModelName('Yard Detector');
    expect(form.errors.modelName).toBe('May hold only lowercase letters, digits, - and _, and must start with a letter or digit.');
    form.setModelName('yard-detector');
    form.setModelVersion('3');
    expect(form.errors.modelVersion).toBe('Version 3 of yard-detector is taken; 4 is free.');
    expect(form.errors.tags).toBeUndefined(); // not before submitting
    expect(await store.submit(form)).toBeNull();
    expect(form.errors.tags).toBe('Add at least one label to train on.');
    form.setModelVersion('');
    expect(form.errors.modelVersion).toBe('Must not be empty.');
    expect(transport.callsTo('training.submit')).toEqual([]);
  });

  it('takes labels as chips: Enter or comma, each once, Backspace removes the last', async () => {
    const { form } = await openForm();
    form.tagDraft = 'cone, pallet';
    form.commitDraft();
    expect(form.tags).toEqual(['cone', 'pallet']);
    expect(form.tagDraft).toBe('');
    form.tagDraft = 'person,cone';
    form.commitDraft();
    expect(form.tags).toEqual(['cone', 'pallet', 'person']);
    expect(form.tagError).toBe('“cone” is a label already.');
    expect(form.tagDraft).toBe('cone');
    expect(form.addTags(' ')).toBe(true);
    expect(form.addTags('x'.repeat(101))).toBe(false);
    expect(form.tagError).toMatch(/at most 100 characters/);
    form.tagDraft = '';
    form.removeLastTag();
    expect(form.tags).toEqual(['cone', 'pallet']);
    form.removeTag('cone');
    expect(form.tags).toEqual(['pallet']);
    // Suggestions: the dataset's labels not chosen yet, matching what is typed.
    expect(form.tagSuggestions).toEqual(['cone', 'person']);
    form.tagDraft = 'per';
    expect(form.tagSuggestions).toEqual(['person']);
    form.addTags('forklift');
    expect(form.unknownTags).toEqual(['forklift']);
    // The service fails a job on a label its dataset lacks: the form refuses it first.
    form.setModelName('yard-detector');
    expect(form.check.request).toBeNull();
    expect(form.check.errors.tags).toMatch(/has no label “forklift”: a job fails on labels its dataset lacks/);
    form.removeTag('forklift');
    expect(form.check.errors.tags).toBeUndefined();
  });

  it('submits what the schema parsed, opens the new job, and asks notification permission on the way', async () => {
    const fake = fakeNotifier('default');
    const { transport, form, store } = await openForm({ notifier: fake.notifier });
    transport.handle('training.submit', (r) => ok(trainingJob(r.modelName, r.modelVersion, { status: 'pending', progressPercent: 0, startedOn: null })));
    form.setModelName('  yard-detector ');
    form.addTags('cone');
    form.tagDraft = 'pallet'; // typed, Enter pressed elsewhere: still a label
    const result = await store.submit(form);
    expect(result?.ok).toBe(true);
    expect(transport.callsTo('training.submit')).toEqual([
      { orgId: 'org-acme', datasetId: 'ds-yard', modelName: 'yard-detector', modelVersion: '4', modelType: 'object_detection', tags: ['cone', 'pallet'] },
    ]);
    expect(fake.requests).toBe(1);
    expect(store.page).toEqual({ orgId: 'org-acme', jobId: 'job-yard-detector-4' });
  });

  it('shows what the service refused in the form, and reads the taken versions again on a conflict', async () => {
    const { transport, form, store } = await openForm();
    transport.handle('training.submit', () => err('conflict', 'ALREADY_EXISTS: version 4 of yard-detector exists.'));
    form.setModelName('yard-detector');
    form.setModelVersion('4'); // typed: kept, so the field says it is taken once known
    form.addTags('cone');
    const modelsBefore = transport.callsTo('training.models').length;
    transport.handle('training.models', [trainingModel('yard-detector', ['1', '2', '3', '4'], '5')]);
    const result = await store.submit(form);
    expect(result?.ok).toBe(false);
    expect(form.refusal).toEqual({ kind: 'conflict', message: 'ALREADY_EXISTS: version 4 of yard-detector exists.' });
    expect(store.form).toBe(form);
    expect(store.page?.jobId).toBeNull();
    await settle();
    expect(transport.callsTo('training.models')).toHaveLength(modelsBefore + 1);
    expect(form.errors.modelVersion).toBe('Version 4 of yard-detector is taken; 5 is free.');
  });

  it('a proposed version the service refused moves on to the next free one', async () => {
    const { transport, form, store } = await openForm();
    transport.handle('training.submit', () => err('conflict', 'ALREADY_EXISTS: version 4 of yard-detector exists.'));
    form.setModelName('yard-detector');
    form.addTags('cone');
    transport.handle('training.models', [trainingModel('yard-detector', ['1', '2', '3', '4'], '5')]);
    await store.submit(form);
    await settle();
    expect(form.modelVersion).toBe('5');
    expect(form.refusal?.kind).toBe('conflict');
  });

  it('opens nothing when closed while its code loads, and only the last of two opens', async () => {
    const { store } = setup();
    store.show('org-acme');
    const closed = store.startSubmit();
    store.closeSubmit();
    expect(await closed).toBeNull();
    expect(store.form).toBeNull();
    const first = store.startSubmit('org-acme');
    const second = store.startSubmit('org-acme');
    expect(await first).toBeNull();
    const form = await second;
    expect(form).not.toBeNull();
    expect(store.form).toBe(form);
  });

  it('opens nothing when the page closes or the profile changes while its code loads', async () => {
    const { store } = setup();
    store.show('org-acme');
    const leaving = store.startSubmit();
    store.close();
    expect(await leaving).toBeNull();
    expect(store.form).toBeNull();
    store.show('org-acme');
    const switching = store.startSubmit();
    store.reset();
    expect(await switching).toBeNull();
    expect(store.form).toBeNull();
  });

  it('says when datasets cannot be read (they need the service)', async () => {
    const { transport, store } = setup();
    transport.handle('training.datasets', () => err('offline', 'The service cannot be reached.'));
    const form = await store.startSubmit('org-acme');
    await settle();
    expect(form?.datasetsError?.kind).toBe('offline');
    expect(form?.check.errors.datasetId).toBe('There is no dataset to train on.');
  });

  it('custom mode: reads the scripts once, picks the newest version of the script chosen, and submits it', async () => {
    const { transport, form, store } = await openForm();
    transport.handle('training.scripts', [
      trainingScript('trainer', ['0.1.0', '0.2.0', '0.3.1']),
      trainingScript('other', ['1.0.0'], {
        versions: [
          { version: '1.0.0', uploadedAt: '2026-11-20T10:00:00.000Z', platforms: ['linux/any'] },
          { version: '1.1.0', uploadedAt: null, platforms: [] },
        ],
      }),
    ]);
    form.setMode('custom');
    await settle();
    form.setMode('builtin');
    form.setMode('custom');
    expect(transport.callsTo('training.scripts')).toEqual([{ orgId: 'org-acme' }]);
    expect(form.registryItemId).toBe(''); // two scripts: the user chooses
    form.setScript('acme:trainer');
    expect(form.registryItemVersion).toBe('0.3.1');
    form.setScript('acme:other');
    expect(form.registryItemVersion).toBe('1.0.0'); // 1.1.0 has no file to run
    form.setScript('acme:trainer');
    form.setModelName('yard-detector');
    transport.handle('training.submitCustom', (r) => ok(trainingJob(r.modelName, r.modelVersion, { custom: true, modelType: null, tags: [], registryItemId: r.registryItemId, registryItemVersion: r.registryItemVersion })));
    const result = await store.submit(form);
    expect(result?.ok).toBe(true);
    expect(transport.callsTo('training.submitCustom')).toEqual([
      { orgId: 'org-acme', datasetId: 'ds-yard', registryItemId: 'acme:trainer', registryItemVersion: '0.3.1', modelName: 'yard-detector', modelVersion: '4' },
    ]);
    expect(transport.callsTo('training.submit')).toEqual([]);
  });

  it('a label typed but refused stops the submit, saying why', async () => {
    const { transport, form, store } = await openForm();
    form.setModelName('yard-detector');
    form.addTags('cone');
    form.tagDraft = 'cone';
    expect(await store.submit(form)).toBeNull();
    expect(form.tagError).toBe('“cone” is a label already.');
    expect(transport.callsTo('training.submit')).toEqual([]);
  });

  it('custom mode needs a script', async () => {
    const { transport, form, store } = await openForm();
    transport.handle('training.scripts', []);
    form.setMode('custom');
    await settle();
    form.setModelName('yard-detector');
    expect(await store.submit(form)).toBeNull();
    expect(form.errors.registryItemId).toBe('Choose a training script.');
    expect(form.errors.tags).toBeUndefined();
  });
});

describe('profiles', () => {
  it('a switch closes training and reads the summary again', async () => {
    const { transport, store } = setup();
    store.show('org-acme');
    await settle();
    store.reset();
    expect(store.page).toBeNull();
    expect(transport.callsTo('training.summary')).toHaveLength(2);
  });
});
