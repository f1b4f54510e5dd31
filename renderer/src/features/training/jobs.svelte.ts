/**
 * An organization's training jobs: the list page (jobs filtered by status, the selection to delete)
 * and one job's page. Each read is "the newest read wins" (`Latest`), and a failure is kept to show.
 */
import type { FleetBridge } from '../../../../common/bridge';
import type { BridgeError, Result } from '../../../../common/result';
import type { TrainingJob, TrainingJobs, TrainingListAfter, TrainingStatus } from '../../../../common/training';
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
 * How many jobs a page's first read asks for: a screenful and then some, so the table draws at once
 * however many jobs the organization has; the rest follows in the background.
 */
export const FIRST_PART = 100;

/**
 * One organization's training page: its jobs (newest first), the status shown, and the jobs selected
 * to delete. The whole list is read once, in two parts: the first FIRST_PART jobs (drawn at once),
 * then the rest after the last of them, merged in by id (`partial` until then). After that each read
 * asks main only for what changed since the last one (`since`) and merges it, so a page of thousands
 * of finished jobs costs what changed. The status filter and "select every finished job" apply here,
 * over the jobs held, and take in the rest when it arrives.
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
  /** Only the first part of the list is held: the rest is on its way (or failed: the next `load` asks again). */
  partial = $state(false);
  /** How many jobs the organization has in all, as main last said. */
  total = $state(0);
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
  /** While `partial`: the last job of the first part, where the rest starts. */
  #after: TrainingListAfter | null = null;
  /** The read of the rest is on its way. */
  #resting = false;
  /** Jobs deleted while `partial`: the rest, read before, must not bring them back. */
  readonly #dropped = new Set<string>(); // eslint-disable-line svelte/prefer-svelte-reactivity -- bookkeeping, never shown
  /** "Select every finished job" is ticked: the finished jobs of the rest are ticked as they arrive. */
  #allTicked = false;

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
    // Nothing held yet: the first part only, so the table draws without waiting for thousands of jobs.
    let result = await this.#bridge.invoke('training.list', since === null ? { orgId: this.orgId, status: null, since, limit: FIRST_PART } : { orgId: this.orgId, status: null, since });
    // While partial the list is shorter than the total by design: the rest, not a deletion.
    if (read.newest && read.current && result.ok && result.value.delta && !this.partial && mergeJobs(this.all, result.value.jobs).length !== result.value.total) {
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
      if (!result.value.delta) this.#startPart(result.value);
      this.total = result.value.total;
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
    if (this.partial) void this.#rest();
    return result;
  }

  /** A whole read was put in place: partial when main cut it (the rest starts after its last job), else complete. */
  #startPart(answer: TrainingJobs): void {
    const last = answer.jobs.at(-1);
    this.partial = answer.more === true && last !== undefined;
    this.#after = this.partial && last ? { createdOn: last.createdOn, id: last.id } : null;
    this.#dropped.clear();
  }

  /**
   * Read the rest of a partial list and add the jobs not held. Jobs already held stay as they are:
   * deltas and actions put them since, and what changed after this read comes with the next delta
   * (its cursor was taken before the first part was read).
   */
  async #rest(): Promise<void> {
    const after = this.#after;
    if (this.#resting || after === null) return;
    this.#resting = true;
    const result = await this.#bridge.invoke('training.list', { orgId: this.orgId, status: null, since: null, after });
    this.#resting = false;
    // A whole read replaced the list meanwhile: this rest belongs to another.
    if (this.#after !== after) return;
    if (!result.ok) {
      this.error = result.error;
      return;
    }
    const held = new Set(this.all.map((j) => j.id)); // eslint-disable-line svelte/prefer-svelte-reactivity -- built and read at once, never state
    const added = result.value.jobs.filter((j) => !held.has(j.id) && !this.#dropped.has(j.id));
    this.all = mergeJobs(this.all, added);
    this.total = result.value.total;
    this.partial = false;
    this.#after = null;
    this.#dropped.clear();
    this.error = null;
    if (this.#allTicked) {
      const ticked = added.filter((j) => jobFinal(j) && (this.status === null || j.status === this.status)).map((j) => j.id);
      if (ticked.length > 0) this.selected = [...this.selected, ...ticked];
    }
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
    if (!on) this.#allTicked = false;
    this.selected = on ? [...this.selected.filter((id) => id !== jobId), jobId] : this.selected.filter((id) => id !== jobId);
  }

  /** Tick every finished job, or none. */
  selectAll(on: boolean): void {
    this.selected = on ? this.deletable.map((j) => j.id) : [];
    this.#allTicked = on;
  }

  /** A job as an action answered it: newer than any read already on its way, which is then dropped. */
  put(job: TrainingJob): void {
    if (!this.all.some((j) => j.id === job.id)) return;
    this.all = this.all.map((j) => (j.id === job.id ? job : j));
    this.#latest.supersede();
  }

  drop(jobIds: readonly string[]): void {
    const gone = new Set(jobIds); // eslint-disable-line svelte/prefer-svelte-reactivity -- built and read at once, never state
    if (this.partial) for (const id of jobIds) this.#dropped.add(id);
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
