/**
 * Live training status. While the active profile's cache holds a job that still changes by itself
 * (pending, running, canceling), main asks the service for those jobs — one GetTrainingJob each,
 * as there are seldom more than a few — and writes what changed to the cache. The interval starts
 * short and backs off while no job changes status (2 s → 15 s; a running job's progress moving is no
 * change); a new status, a submit, a cancel or a reconnection brings it back to the start. With nothing active it stops: no timer, no call.
 *
 * Every write of jobs goes through `apply`, which announces `training.changed` (with the badge's
 * counts) and, for a watched job that ended, `training.ended` — with a desktop notification when
 * the host can show one (the Electron shell); browser mode's page shows its own.
 */
import type { TrainingJob, TrainingSummary } from '../../common/training';
import type { EventBus } from '../backend/events';
import { AppError } from '../backend/errors';
import type { CacheDb } from '../cache/cache';
import type { Connection, SyncedResource } from '../connection/connection';
import { cachedOrgIds } from '../fleet/tree';
import { activeTrainingJobs, trainingModifiedSince, trainingSummary, type TrainingWrite } from './cache';
import { jobFromWire, type CachedJob } from './convert';
import type { FleetClient } from '../grpc/client';
import type { CacheRunner } from '../connection/connection';

/** A desktop notification for a job that ended; answers whether one was shown. */
export type TrainingNotify = (notice: { readonly title: string; readonly body: string; readonly orgId: string; readonly jobId: string }) => boolean;

export interface TrainingHost {
  /** Show a desktop notification (Electron's Notification); absent in browser mode. */
  readonly notify?: TrainingNotify;
  /** Show the count of running jobs on the app's icon (Electron's badge count); absent in browser mode. */
  readonly setBadge?: (running: number) => void;
}

export interface TrainingTiming {
  /** First poll interval, and the one after any change. */
  readonly pollMinMs?: number;
  /** The longest interval the backoff reaches. */
  readonly pollMaxMs?: number;
}

/** How many jobs one poll reads at once. */
const POLL_CONCURRENCY = 4;
/** A poll reads at most this many jobs; the rest wait for the next (the oldest first). */
const POLL_MAX_JOBS = 40;

/** Read one job from the service as the bridge has it. */
export async function fetchJob(client: FleetClient, jobId: string): Promise<CachedJob> {
  const response = await client.call('read the training job', client.training.getTrainingJob, { id: jobId });
  if (!response.metadata) throw new AppError('internal', 'The service answered GetTrainingJob without the job.');
  return jobFromWire(response.metadata);
}

/**
 * How far before the newest `lastModified` already read a delta read starts: two writers of the
 * service (its runner, a call) may commit a little out of their clocks' order. Jobs read twice are
 * merged by id.
 */
export const MODIFIED_SKEW_MS = 5_000;

/** The `modified_since` to ask for after reading up to `newest`. */
export function modifiedSince(newest: string): Date {
  return new Date(Date.parse(newest) - MODIFIED_SKEW_MS);
}

/** Every job of an organization, newest first, all pages; with `since`, only those modified at or after it. */
export async function fetchOrgJobs(client: FleetClient, orgId: string, since: Date | null = null): Promise<CachedJob[]> {
  const jobs: CachedJob[] = [];
  let pageToken = '';
  do {
    const response = await client.call('list the training jobs', client.training.listTrainingJobs, { orgId, status: 0, pageSize: 1000, pageToken, modifiedSince: since ?? undefined });
    jobs.push(...response.jobs.map(jobFromWire));
    pageToken = response.nextPageToken;
  } while (pageToken !== '');
  return jobs;
}

function describeEnd(job: TrainingJob): { title: string; body: string } {
  const model = `${job.modelName} ${job.modelVersion}`;
  if (job.status === 'succeeded') {
    return { title: `Training succeeded: ${model}`, body: job.syncedModelId ? `The model is in the registry as ${job.syncedModelId}, version ${job.modelVersion}.` : 'The model is ready.' };
  }
  return { title: `Training failed: ${model}`, body: job.error?.message || 'The service gave no reason.' };
}

export class TrainingWatcher {
  readonly #connection: Connection;
  readonly #events: EventBus;
  readonly #log: (message: string) => void;
  readonly #host: TrainingHost;
  readonly #minMs: number;
  readonly #maxMs: number;
  #intervalMs: number;
  #timer: NodeJS.Timeout | null = null;
  #polling = false;
  #stopped = false;
  #badge = -1;
  #lastSummary: TrainingSummary | null = null;

  constructor(connection: Connection, events: EventBus, log: (message: string) => void, host: TrainingHost = {}, timing: TrainingTiming = {}) {
    this.#connection = connection;
    this.#events = events;
    this.#log = log;
    this.#host = host;
    this.#minMs = timing.pollMinMs ?? 2_000;
    this.#maxMs = Math.max(this.#minMs, timing.pollMaxMs ?? 15_000);
    this.#intervalMs = this.#minMs;
    // A switch, a reconnection: the cache under the watcher changed, so look again.
    events.subscribe((event, payload) => {
      if (event === 'connection.changed' && (payload as { status: string }).status === 'online') this.poke();
    });
  }

  /**
   * Announce a write of jobs (from any channel or the sync): changed organizations, ended watched
   * jobs, the badge. `quiet` is for a read the renderer made itself (it has the answer): announcing
   * it would make the page read again, and a running job's progress differs at every read — so a
   * quiet write is announced only when the counts changed, which settles.
   */
  apply(cache: CacheDb, orgIds: readonly string[], write: TrainingWrite, options: { quiet?: boolean } = {}): void {
    if (cache !== this.#currentCache()) return;
    const before = this.#lastSummary;
    const summary = this.#summary(cache);
    const counted = before === null || JSON.stringify(before) !== JSON.stringify(summary);
    if (write.changed && (!options.quiet || counted)) this.#events.emit('training.changed', { orgIds: [...new Set(orgIds)], summary });
    for (const job of write.ended) {
      const { title, body } = describeEnd(job);
      let notified = false;
      try {
        notified = this.#host.notify?.({ title, body, orgId: job.orgId, jobId: job.id }) ?? false;
      } catch (e) {
        this.#log(`training: the desktop notification failed: ${e instanceof Error ? e.message : String(e)}`);
      }
      this.#events.emit('training.ended', { job, notified });
    }
    // A status the user (or another client) just caused is followed closely from now, whatever the
    // backoff grown meanwhile; any other change starts polling only if nothing polls yet, so a poll's
    // own writes of moving progress keep its backoff.
    if (write.activated) this.poke();
    else if (write.changed) this.wake();
  }

  /** Tell the renderer what the (new) cache holds: after a switch, every organization changed. */
  publish(cache: CacheDb): void {
    this.#events.emit('training.changed', { orgIds: cachedOrgIds(cache), summary: this.#summary(cache) });
    this.wake();
  }

  /** Poll soon, from the shortest interval: the user submitted or cancelled, or the connection came back. */
  poke(): void {
    if (this.#stopped) return;
    this.#intervalMs = this.#minMs;
    this.#schedule(this.#minMs);
  }

  /** Start polling if nothing polls yet (a page opened, a job became active); a schedule under way keeps its backoff. */
  wake(): void {
    if (this.#stopped || this.#timer !== null || this.#polling) return;
    this.#intervalMs = this.#minMs;
    this.#schedule(this.#minMs);
  }

  summary(): TrainingSummary {
    return this.#summary(this.#connection.cache);
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #currentCache(): CacheDb | null {
    try {
      return this.#connection.cache;
    } catch {
      return null;
    }
  }

  #summary(cache: CacheDb): TrainingSummary {
    const summary = trainingSummary(cache);
    this.#lastSummary = summary;
    if (summary.running !== this.#badge) {
      this.#badge = summary.running;
      try {
        this.#host.setBadge?.(summary.running);
      } catch (e) {
        this.#log(`training: setting the badge failed: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    return summary;
  }

  #schedule(delayMs: number): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#poll(), delayMs);
    this.#timer.unref();
  }

  async #poll(): Promise<void> {
    this.#timer = null;
    if (this.#stopped) return;
    if (this.#polling) return;
    const cache = this.#currentCache();
    if (!cache) return;
    const active = activeTrainingJobs(cache);
    // Nothing changes by itself: stop until a write or a reconnection pokes.
    if (active.length === 0) return;
    if (this.#connection.state.status !== 'online' || !this.#connection.hasService) return this.#schedule(this.#maxMs);
    this.#polling = true;
    let changed = false;
    try {
      await this.#connection.use(async (client, usedCache, run) => {
        if (usedCache !== cache) return;
        changed = await this.#refresh(client, cache, run, active.slice(0, POLL_MAX_JOBS).map((j) => j.id));
      });
    } catch (e) {
      // Offline: the connection's own retries bring it back and poke on reconnecting.
      if (!(e instanceof AppError && e.kind === 'offline')) this.#log(`training: polling job status failed: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      this.#polling = false;
    }
    if (this.#stopped) return;
    this.#intervalMs = changed ? this.#minMs : Math.min(this.#maxMs, Math.round(this.#intervalMs * 1.5));
    this.#schedule(this.#intervalMs);
  }

  /** Read these jobs afresh and write them; answers whether a job's status changed (or one went). */
  async #refresh(client: FleetClient, cache: CacheDb, run: CacheRunner, ids: readonly string[]): Promise<boolean> {
    const fresh: CachedJob[] = [];
    const gone: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < ids.length) {
        const id = ids[next++] as string;
        try {
          fresh.push(await fetchJob(client, id));
        } catch (e) {
          // Deleted elsewhere, or the key lost the organization: it is not ours to show any more.
          if (e instanceof AppError && e.kind === 'not-found') gone.push(id);
          else throw e;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(POLL_CONCURRENCY, ids.length) }, worker));
    const at = new Date().toISOString();
    const before = new Map(activeTrainingJobs(cache).map((j) => [j.id, j]));
    const orgIds = [...fresh.map((j) => j.orgId), ...gone.map((id) => before.get(id)?.orgId ?? '')].filter((id) => id !== '');
    if (gone.length > 0) await run('trainingRemove', gone);
    const write = await run('trainingPut', fresh, at);
    this.apply(cache, orgIds, { ...write, changed: write.changed || gone.length > 0 });
    // Progress moves at every poll while a job runs; only a new status resets the backoff.
    return gone.length > 0 || fresh.some((j) => before.get(j.id)?.status !== j.status);
  }
}

/** How often a periodic sync round reads each organization's changed jobs (rounds asked for always do). */
const TRAINING_REFRESH_MS = 60_000;
/** How often a periodic round lists the whole of each organization's jobs: only that sees jobs deleted elsewhere. */
const TRAINING_FULL_MS = 15 * 60_000;

/**
 * Read the organization's jobs into the cache: only those changed since the last read when one was
 * made (and `whole` is not asked), else all of them, replacing the cached ones.
 */
export async function syncOrgJobs(client: FleetClient, cache: CacheDb, run: CacheRunner, orgId: string, at: string, whole: boolean): Promise<TrainingWrite> {
  const newest = whole ? null : trainingModifiedSince(cache, orgId);
  if (newest === null) return run('trainingReplace', orgId, await fetchOrgJobs(client, orgId), at);
  return run('trainingMerge', orgId, await fetchOrgJobs(client, orgId, modifiedSince(newest)), at);
}

/**
 * Training jobs as a synced resource: each round the user asked for (and one periodic round a
 * minute) lists every organization's jobs and replaces the cached ones. An organization whose jobs
 * the key may not read (training needs owner) is skipped, not a failed round.
 */
export function trainingResource(watcher: Pick<TrainingWatcher, 'apply' | 'publish' | 'wake'>, log: (message: string) => void): SyncedResource {
  const fetchedAt = new WeakMap<CacheDb, number>();
  const wholeAt = new WeakMap<CacheDb, number>();
  /** Caches whose jobs the renderer was told about since they were opened (each round tells it per organization). */
  const announced = new WeakSet<CacheDb>();
  return {
    name: 'training',
    async sync(client, cache, at, { run, forced }) {
      if (!forced && Date.now() - (fetchedAt.get(cache) ?? 0) < TRAINING_REFRESH_MS) return;
      const orgs = cachedOrgIds(cache);
      await run('trainingDropExcept', orgs);
      const whole = forced || Date.now() - (wholeAt.get(cache) ?? 0) >= TRAINING_FULL_MS;
      for (const orgId of orgs) {
        let write: TrainingWrite;
        try {
          write = await syncOrgJobs(client, cache, run, orgId, at, whole);
        } catch (e) {
          if (e instanceof AppError && e.kind !== 'offline' && e.kind !== 'unauthenticated') {
            // Operators may not see training; a service without it answers UNIMPLEMENTED.
            if (e.kind !== 'permission-denied' && e.kind !== 'not-found') log(`sync: training jobs of ${orgId} skipped: ${e.message}`);
            continue;
          }
          throw e;
        }
        watcher.apply(cache, [orgId], write);
      }
      fetchedAt.set(cache, Date.now());
      if (whole) wholeAt.set(cache, Date.now());
    },
    publish(cache) {
      // After a switch every job on screen is another profile's; after a round, the organizations it
      // changed were announced one by one already, and an open page need not read its jobs again.
      if (announced.has(cache)) return watcher.wake();
      announced.add(cache);
      watcher.publish(cache);
    },
  };
}
