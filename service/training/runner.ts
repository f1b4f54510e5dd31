/**
 * The training runner: advances jobs, whose whole state is in their rows, on a tick.
 *
 * - CANCELING → CANCELED on the next tick, progress kept where it stopped.
 * - RUNNING: progress_percent is the share of `runMs` elapsed since training_started, written only
 *   when the whole percent changes; once `runMs` has passed, the model is published and the job
 *   SUCCEEDED (publish.ts), or FAILED if it cannot be published.
 * - PENDING: a job starts once it waited `pendingMs` and its organization holds fewer than
 *   {@link MAX_RUNNING_PER_ORG} running jobs, oldest first. Starting checks what the job needs —
 *   the dataset (exists in the organization, readable), the tags (labels of the dataset), for a
 *   custom job the script version (the item exists, is a training script, and that version has an
 *   uploaded file) — and the job FAILS with the reason if anything is missing.
 *
 * Nothing is held in memory: a service that stops and starts again resumes every job from its row
 * (a RUNNING job by its clock, finishing at once if its time is over; CANCELING ones become
 * CANCELED; PENDING ones wait their turn). The first tick runs when the runner starts.
 */
import type Database from 'better-sqlite3';
import { PackageType } from '../../proto/gen/fleet/app/v1/registry';
import { TrainingStatus } from '../../proto/gen/fleet/mltraining/v1/ml_training';
import type { RegistryFiles } from '../registry/files';
import { Code, publishModel, PublishRefused } from './publish';
import { TrainingStore, type JobRow } from './store';

/** How long a job runs by default (the demo's pace). */
export const DEFAULT_RUN_MS = 120_000;
/** How long a job stays PENDING at least, by default (shorter when runs are shorter: half a run). */
export const DEFAULT_PENDING_MS = 3_000;
/** Jobs of one organization that run at once; more wait PENDING. */
export const MAX_RUNNING_PER_ORG = 2;

export interface TrainingTiming {
  /** How long a job runs, ms. */
  readonly runMs: number;
  /** How long a job waits PENDING at least, ms. */
  readonly pendingMs: number;
  /** How often the runner advances jobs, ms. */
  readonly tickMs: number;
}

/** The timing to run with: defaults filled in (tick: a twentieth of a run, 20 ms to 1 s). */
export function trainingTiming(options: { runMs?: number; pendingMs?: number; tickMs?: number } = {}): TrainingTiming {
  const runMs = options.runMs ?? DEFAULT_RUN_MS;
  const pendingMs = options.pendingMs ?? Math.min(DEFAULT_PENDING_MS, runMs / 2);
  const tickMs = options.tickMs ?? Math.min(1000, Math.max(20, Math.floor(runMs / 20)));
  for (const [name, value] of Object.entries({ runMs, pendingMs, tickMs })) {
    if (!Number.isFinite(value) || value < 0 || (name !== 'pendingMs' && value <= 0)) throw new Error(`training.${name} must be a positive number of milliseconds, not ${value}`);
  }
  return { runMs, pendingMs, tickMs };
}

export class TrainingRunner {
  private readonly store: TrainingStore;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Database.Database,
    private readonly files: RegistryFiles,
    private readonly log: (line: string) => void,
    readonly timing: TrainingTiming,
    private readonly now: () => number = Date.now,
  ) {
    this.store = new TrainingStore(db);
  }

  /** Advance every job once now, then every `tickMs` (the timer does not keep the process alive). */
  start(): void {
    this.tick();
    this.timer ??= setInterval(() => this.tick(), this.timing.tickMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Advance every job to where it is at `nowMs`. Never throws: a job that cannot be advanced is logged and tried again next tick. */
  tick(nowMs = this.now()): void {
    try {
      this.store.finishCanceling(nowMs);
      for (const job of this.store.inStatus(TrainingStatus.TRAINING_STATUS_RUNNING)) this.guard(job, () => this.advance(job, nowMs));
      for (const job of this.store.inStatus(TrainingStatus.TRAINING_STATUS_PENDING)) {
        if (Date.parse(job.created_on) + this.timing.pendingMs > nowMs) break;
        this.guard(job, () => this.begin(job, nowMs));
      }
    } catch (e) {
      this.log(`training runner: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  private guard(job: JobRow, run: () => void): void {
    try {
      run();
    } catch (e) {
      this.log(`training runner: job ${job.id} could not be advanced: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    }
  }

  private advance(job: JobRow, nowMs: number): void {
    const elapsed = nowMs - Date.parse(job.training_started ?? job.created_on);
    if (elapsed < this.timing.runMs) {
      this.store.progress(job.id, Math.max(0, Math.min(99, Math.floor((elapsed * 100) / this.timing.runMs))), nowMs);
      return;
    }
    const dataset = this.store.dataset(job.organization_id, job.dataset_id);
    try {
      publishModel(this.db, this.files, this.store, job, nowMs, dataset && { name: dataset.name, imageCount: dataset.image_count });
    } catch (e) {
      if (e instanceof PublishRefused) {
        this.store.fail(job.id, e.code, e.message, nowMs);
        return;
      }
      this.log(`training runner: publishing the model of job ${job.id} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      this.store.fail(job.id, Code.INTERNAL, 'the trained model could not be published; details are in the service log', nowMs);
    }
  }

  private begin(job: JobRow, nowMs: number): void {
    if (this.store.runningIn(job.organization_id) >= MAX_RUNNING_PER_ORG) return;
    const refused = this.refusal(job);
    if (refused === null) this.store.start(job.id, nowMs);
    else this.store.fail(job.id, refused.code, refused.message, nowMs);
  }

  /** Why `job` cannot run (a google.rpc.Code and a message), or null when it can. */
  private refusal(job: JobRow): { code: number; message: string } | null {
    const dataset = this.store.dataset(job.organization_id, job.dataset_id);
    if (dataset === undefined) return { code: Code.NOT_FOUND, message: `dataset ${job.dataset_id} cannot be read: the organization has no such dataset (ListTrainingDatasets lists those it has)` };
    if (dataset.readable !== 1) {
      return { code: Code.FAILED_PRECONDITION, message: `dataset ${dataset.name} (${dataset.id}) cannot be read: its files are not available to the training service; pick another dataset or try again later` };
    }
    if (job.is_custom !== 1) {
      const labels = JSON.parse(dataset.labels) as string[];
      const missing = (JSON.parse(job.tags) as string[]).filter((t) => !labels.includes(t));
      if (missing.length > 0) {
        return {
          code: Code.INVALID_ARGUMENT,
          message: `dataset ${dataset.name} has no label ${missing.map((t) => JSON.stringify(t)).join(', ')}; its labels are ${labels.map((l) => JSON.stringify(l)).join(', ') || 'none'}: train on those`,
        };
      }
      return null;
    }
    const script = job.script_item_id === null ? undefined : (this.db.prepare('SELECT type FROM registry_items WHERE id = ?').pluck().get(job.script_item_id) as number | undefined);
    const name = job.script_wire_id ?? job.registry_item_id;
    if (script === undefined) return { code: Code.NOT_FOUND, message: `training script ${name} no longer exists in the registry` };
    if (script !== PackageType.PACKAGE_TYPE_ML_TRAINING) return { code: Code.FAILED_PRECONDITION, message: `registry item ${name} is no longer a training script` };
    const files = this.db.prepare('SELECT count(*) FROM registry_files WHERE item_id = ? AND version = ?').pluck().get(job.script_item_id, job.registry_item_version) as number;
    if (files === 0) {
      return {
        code: Code.NOT_FOUND,
        message: `training script ${name} has no uploaded version ${JSON.stringify(job.registry_item_version)}: publish it with UploadModuleFile (that version, any platform) and submit the job again`,
      };
    }
    return null;
  }
}
