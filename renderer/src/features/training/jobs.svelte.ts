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

/** One organization's training page: its jobs (newest first), the status shown, and the jobs selected to delete. */
export class TrainingList {
  readonly orgId: string;
  readonly #bridge: FleetBridge;
  status = $state<TrainingStatus | null>(null);
  jobs = $state.raw<readonly TrainingJob[]>([]);
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

  constructor(bridge: FleetBridge, orgId: string) {
    this.#bridge = bridge;
    this.orgId = orgId;
  }

  /** Read the jobs (with `status`, a new filter). A newer read wins over an older one. */
  async load(status?: TrainingStatus | null): Promise<Result<TrainingJobs>> {
    if (status !== undefined) this.status = status;
    const read = this.#latest.read();
    this.loading = true;
    const result = await this.#bridge.invoke('training.list', { orgId: this.orgId, status: this.status });
    if (!read.newest) return result;
    this.loading = false;
    // Started before an action's answer was shown: the event that answer caused reads again.
    if (!read.current) return result;
    if (!result.ok) this.error = result.error;
    else {
      this.error = null;
      this.jobs = result.value.jobs;
      this.fromCache = result.value.fromCache;
      this.syncedAt = result.value.syncedAt;
      this.loaded = true;
      const deletable = new Set(this.jobs.filter(jobFinal).map((j) => j.id)); // eslint-disable-line svelte/prefer-svelte-reactivity -- built and read at once, never state
      this.selected = this.selected.filter((id) => deletable.has(id));
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
    if (!this.jobs.some((j) => j.id === job.id)) return;
    this.jobs = this.jobs.map((j) => (j.id === job.id ? job : j));
    this.#latest.supersede();
  }

  drop(jobIds: readonly string[]): void {
    this.jobs = this.jobs.filter((j) => !jobIds.includes(j.id));
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
