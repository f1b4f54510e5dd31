/**
 * An organization's training jobs: the list page (jobs filtered by status, the selection to delete)
 * and one job's page. Each read is "the newest read wins" (`Latest`), and a failure is kept to show.
 */
import type { FleetBridge } from '../../../../common/bridge';
import type { BridgeError, Result } from '../../../../common/result';
import type { TrainingJob, TrainingJobs, TrainingStatus } from '../../../../common/training';
import { Latest } from '../../lib/state/latest';
import { jobFinal } from './labels';

/** A job `training.delete` could not delete, and why. */
export interface DeleteFailure {
  readonly jobId: string;
  readonly label: string;
  readonly message: string;
}

/** Newest first, as main lists them: created descending, then id. */
function newestFirst(a: TrainingJob, b: TrainingJob): number {
  const ac = a.createdOn ?? '';
  const bc = b.createdOn ?? '';
  if (ac !== bc) return ac < bc ? 1 : -1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * `changed` (jobs read since the list was) merged into `jobs` by id, newest first. Answers `jobs`
 * itself when nothing in it changed, so an unchanged answer redraws nothing.
 */
export function mergeJobs(jobs: readonly TrainingJob[], changed: readonly TrainingJob[]): readonly TrainingJob[] {
  if (changed.length === 0) return jobs;
  const fresh = new Map(changed.map((j) => [j.id, j])); // eslint-disable-line svelte/prefer-svelte-reactivity -- built and read at once, never state
  let same = true;
  const merged = jobs.map((job) => {
    const next = fresh.get(job.id);
    if (next === undefined) return job;
    fresh.delete(job.id);
    if (JSON.stringify(next) === JSON.stringify(job)) return job;
    same = false;
    return next;
  });
  if (fresh.size === 0) return same ? jobs : merged;
  // New jobs woven in by creation time; the held list keeps main's order (ties included).
  const added = [...fresh.values()].sort(newestFirst);
  const out: TrainingJob[] = [];
  let i = 0;
  for (const job of added) {
    for (let held = merged[i]; held !== undefined && (held.createdOn ?? '') > (job.createdOn ?? ''); held = merged[++i]) out.push(held);
    out.push(job);
  }
  return out.concat(merged.slice(i));
}

/**
 * One organization's training page: its jobs (newest first), the status shown, and the jobs selected
 * to delete. The whole list is read once; after that each read asks main only for what changed since
 * the last one (`since`) and merges it, so a page of thousands of finished jobs costs what changed.
 * The status filter applies here, over the list held.
 */
export class TrainingList {
  readonly orgId: string;
  readonly #bridge: FleetBridge;
  status = $state<TrainingStatus | null>(null);
  /** Every job of the organization, newest first. */
  all = $state.raw<readonly TrainingJob[]>([]);
  /** The jobs shown: those of the status asked for. */
  readonly jobs = $derived.by(() => (this.status === null ? this.all : this.all.filter((j) => j.status === this.status)));
  /** The jobs came from the cache: the service could not be reached. */
  fromCache = $state(false);
  syncedAt = $state<string | null>(null);
  loaded = $state(false);
  loading = $state(false);
  error = $state.raw<BridgeError | null>(null);
  /** Finished jobs ticked for "Delete selected". */
  selected = $state.raw<readonly string[]>([]);
  /** What the last delete could not delete. */
  deleteFailures = $state.raw<readonly DeleteFailure[]>([]);
  /** Reads started before an action's answer was put would show an older job: `put` supersedes them. */
  readonly #latest = new Latest();
  /** An event asked for a reload while one was on its way. */
  #again = false;
  /** Main's cursor after the last read merged: the next read asks only for what changed after it. */
  #cursor: string | null = null;

  constructor(bridge: FleetBridge, orgId: string) {
    this.#bridge = bridge;
    this.orgId = orgId;
  }

  /** Read what changed (with `status`, a new filter over the jobs held). A newer read wins over an older one. */
  async load(status?: TrainingStatus | null): Promise<Result<TrainingJobs>> {
    if (status !== undefined) this.status = status;
    const read = this.#latest.read();
    this.loading = true;
    const since = this.#cursor;
    let result = await this.#bridge.invoke('training.list', { orgId: this.orgId, status: null, since });
    if (read.newest && read.current && result.ok && result.value.delta && mergeJobs(this.all, result.value.jobs).length !== result.value.total) {
      // A job went that no delta names (deleted elsewhere): the whole list once.
      result = await this.#bridge.invoke('training.list', { orgId: this.orgId, status: null, since: null });
    }
    if (!read.newest) return result;
    this.loading = false;
    // Started before an action's answer was shown: the event that answer caused reads again.
    if (!read.current) return result;
    if (!result.ok) this.error = result.error;
    else {
      this.error = null;
      this.all = result.value.delta ? mergeJobs(this.all, result.value.jobs) : result.value.jobs;
      this.#cursor = result.value.cursor;
      this.fromCache = result.value.fromCache;
      this.syncedAt = result.value.syncedAt;
      this.loaded = true;
      const deletable = new Set(this.all.filter(jobFinal).map((j) => j.id)); // eslint-disable-line svelte/prefer-svelte-reactivity -- built and read at once, never state
      const selected = this.selected.filter((id) => deletable.has(id));
      if (selected.length !== this.selected.length) this.selected = selected;
    }
    if (this.#again) {
      this.#again = false;
      void this.load();
    }
    return result;
  }

  /** Read again for an event: folded into the read on its way, if any (a busy poll never piles up reads). */
  refresh(): void {
    if (this.loading) this.#again = true;
    else void this.load();
  }

  get deletable(): readonly TrainingJob[] {
    return this.jobs.filter(jobFinal);
  }

  isSelected(jobId: string): boolean {
    return this.selected.includes(jobId);
  }

  toggle(jobId: string, on = !this.isSelected(jobId)): void {
    const job = this.jobs.find((j) => j.id === jobId);
    if (on && (!job || !jobFinal(job))) return;
    this.selected = on ? [...this.selected.filter((id) => id !== jobId), jobId] : this.selected.filter((id) => id !== jobId);
  }

  /** Tick every finished job, or none. */
  selectAll(on: boolean): void {
    this.selected = on ? this.deletable.map((j) => j.id) : [];
  }

  /** A job as an action answered it: newer than any read already on its way, which is then dropped. */
  put(job: TrainingJob): void {
    if (!this.all.some((j) => j.id === job.id)) return;
    this.all = this.all.map((j) => (j.id === job.id ? job : j));
    this.#latest.supersede();
  }

  drop(jobIds: readonly string[]): void {
    const gone = new Set(jobIds); // eslint-disable-line svelte/prefer-svelte-reactivity -- built and read at once, never state
    this.all = this.all.filter((j) => !gone.has(j.id));
    this.selected = this.selected.filter((id) => !jobIds.includes(id));
  }
}

/** One job's page. */
export class TrainingJobView {
  readonly orgId: string;
  readonly jobId: string;
  readonly #bridge: FleetBridge;
  job = $state.raw<TrainingJob | null>(null);
  fromCache = $state(false);
  loading = $state(false);
  error = $state.raw<BridgeError | null>(null);
  readonly #latest = new Latest();

  constructor(bridge: FleetBridge, orgId: string, jobId: string, known: TrainingJob | null = null) {
    this.#bridge = bridge;
    this.orgId = orgId;
    this.jobId = jobId;
    this.job = known;
  }

  async load(): Promise<Result<{ readonly job: TrainingJob; readonly fromCache: boolean }>> {
    const read = this.#latest.read();
    this.loading = true;
    const result = await this.#bridge.invoke('training.get', { jobId: this.jobId });
    if (!read.current) return result;
    this.loading = false;
    if (result.ok) {
      this.job = result.value.job;
      this.fromCache = result.value.fromCache;
      this.error = null;
    } else this.error = result.error;
    return result;
  }

  /** A fresher job (an action's answer, an event). */
  put(job: TrainingJob): void {
    if (job.id !== this.jobId) return;
    this.job = job;
    this.#latest.supersede(); // an older read on its way no longer replaces it
    this.loading = false;
  }
}
