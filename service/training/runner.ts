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
 * A tick costs what the organizations and their running jobs cost, never what their queues hold: it
 * reads, per organization with PENDING jobs, its running count and the head of its queue only
 * (store.queues and store.queueHead, on the status index), and begins at most
 * {@link MAX_BEGUN_PER_ORG_PER_TICK} jobs of one organization.
 *
 * Nothing is held in memory: a service that stops and starts again resumes every job from its row
 * (a RUNNING job by its clock, finishing at once if its time is over; CANCELING ones become
 * CANCELED; PENDING ones wait their turn). The first tick runs when the runner starts.
 *
 * A failure that every job would meet — the database or its disk is full, read-only or failing —
 * is logged once with what to do, not per job and tick; the jobs wait where they are (a finished
 * run is not FAILED for it) and go on once it is fixed, which is logged too.
 */
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { PackageType } from '../../proto/gen/fleet/app/v1/registry';
import { TrainingStatus } from '../../proto/gen/fleet/mltraining/v1/ml_training';
import { Code, publishModel, PublishRefused, type ModelRegistry } from './publish';
import { iso, TrainingStore, type JobRow } from './store';

/** How long a job runs by default (the demo's pace). */
export const DEFAULT_RUN_MS = 120_000;
/** How long a job stays PENDING at least, by default (shorter when runs are shorter: half a run). */
export const DEFAULT_PENDING_MS = 3_000;
/** Jobs of one organization that run at once; more wait PENDING. */
export const MAX_RUNNING_PER_ORG = 2;
/**
 * Most PENDING jobs of one organization a tick begins (starts or, refused, fails): at most
 * {@link MAX_RUNNING_PER_ORG} start, so the rest are refused ones, and a queue of those drains over
 * a few ticks instead of making one tick as long as the queue.
 */
export const MAX_BEGUN_PER_ORG_PER_TICK = 32;

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
  private readonly failures: FailureLog;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Database.Database,
    private readonly registry: ModelRegistry,
    private readonly log: (line: string) => void,
    readonly timing: TrainingTiming,
    private readonly now: () => number = Date.now,
  ) {
    this.store = new TrainingStore(db);
    this.failures = new FailureLog(log, db.name);
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

  /**
   * Advance every job to where it is at `nowMs`. Never throws: a job that cannot be advanced is
   * tried again next tick, its failure logged once (FailureLog).
   */
  tick(nowMs = this.now()): void {
    this.failures.tickStarts();
    this.attempt('finishing canceled jobs', () => this.store.finishCanceling(nowMs));
    for (const job of this.attempt('reading the running jobs', () => this.store.inStatus(TrainingStatus.TRAINING_STATUS_RUNNING)) ?? []) {
      this.attempt(`job ${job.id} could not be advanced`, () => this.advance(job, nowMs), job.id);
    }
    const createdBy = iso(nowMs - this.timing.pendingMs);
    for (const queue of this.attempt('reading the queues', () => this.store.queues()) ?? []) {
      let free = MAX_RUNNING_PER_ORG - queue.running;
      if (free <= 0) continue;
      for (const job of this.attempt('reading a queue', () => this.store.queueHead(queue.organization_id, createdBy, MAX_BEGUN_PER_ORG_PER_TICK)) ?? []) {
        const started = this.attempt(`job ${job.id} could not be started`, () => this.begin(job, nowMs), job.id);
        // A job that could not be begun stays at the head: the ones behind it wait, oldest first.
        if (started === undefined) break;
        if (started && --free === 0) break;
      }
    }
    this.failures.tickEnds();
  }

  /** `run()`'s result, or undefined when it threw (logged by the failure log). */
  private attempt<T>(what: string, run: () => T, jobId?: string): T | undefined {
    try {
      const result = run();
      if (jobId !== undefined) this.failures.advanced();
      return result;
    } catch (e) {
      this.failures.failed(what, e, jobId);
      return undefined;
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
      publishModel(this.db, this.registry, this.store, job, nowMs, dataset && { name: dataset.name, imageCount: dataset.image_count });
    } catch (e) {
      if (e instanceof PublishRefused) {
        this.store.fail(job.id, e.code, e.message, nowMs);
        return;
      }
      // The model is fine, the storage is not: publish it once there is room again.
      if (storageFailure(e) !== undefined) throw e;
      this.log(`training runner: publishing the model of job ${job.id} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      this.store.fail(job.id, Code.INTERNAL, 'the trained model could not be published; details are in the service log', nowMs);
    }
  }

  /** Start `job`, or fail it when it cannot run; true when it took a run slot. */
  private begin(job: JobRow, nowMs: number): boolean {
    const refused = this.refusal(job);
    if (refused === null) return this.store.start(job.id, nowMs);
    this.store.fail(job.id, refused.code, refused.message, nowMs);
    return false;
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

/** A failure of the storage under the service: every job that writes would meet it. */
interface StorageFailure {
  /** The SQLite or errno code, e.g. SQLITE_FULL, ENOSPC. */
  readonly code: string;
  readonly message: string;
  /** What the operator does about it, given the data dir. */
  readonly remedy: (dataDir: string) => string;
}

/** `e` as a storage failure (full, read-only or failing disk), or undefined for any other error. */
function storageFailure(e: unknown): StorageFailure | undefined {
  const code = e instanceof Error ? (e as { code?: unknown }).code : undefined;
  if (typeof code !== 'string') return undefined;
  const failure = (remedy: (dataDir: string) => string): StorageFailure => ({ code, message: (e as Error).message, remedy });
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT') return failure((dir) => `free space on the disk that holds the data dir ${dir} (or raise its quota)`);
  if (code.startsWith('SQLITE_READONLY') || code === 'EROFS' || code === 'EACCES') return failure((dir) => `make the data dir ${dir} and its files writable by the service`);
  if (code.startsWith('SQLITE_IOERR') || code === 'EIO') return failure((dir) => `check the disk that holds the data dir ${dir}`);
  return undefined;
}

/**
 * The runner's failures, each logged once rather than every tick. A storage failure is one line
 * whatever the jobs and ticks it hits, logged again when its code changes, and once more when it
 * clears: a tick that advanced jobs without meeting it. Any other failure is logged once per job
 * (or step) and message, and again if it comes back after a tick without it.
 */
class FailureLog {
  private storage: StorageFailure | undefined;
  private storageThisTick = false;
  private advancedThisTick = false;
  /** Messages logged last tick, by job id or step: not logged again while they repeat. */
  private lastTick = new Map<string, string>();
  private thisTick = new Map<string, string>();

  constructor(
    private readonly log: (line: string) => void,
    private readonly databasePath: string,
  ) {}

  tickStarts(): void {
    this.storageThisTick = false;
    this.advancedThisTick = false;
    this.thisTick = new Map();
  }

  /** A job was advanced (or begun): the storage took what that needed. */
  advanced(): void {
    this.advancedThisTick = true;
  }

  failed(what: string, e: unknown, key = what): void {
    const storage = storageFailure(e);
    if (storage !== undefined) {
      this.storageThisTick = true;
      if (storage.code === this.storage?.code) return;
      this.storage = storage;
      this.log(
        `training runner: the data dir cannot be written: ${storage.message} (${storage.code}); training jobs wait where they are and go on once it is fixed: ${storage.remedy(dirname(this.databasePath))}. Logged once, and again when this changes`,
      );
      return;
    }
    const message = e instanceof Error ? e.message : String(e);
    this.thisTick.set(key, message);
    if (this.lastTick.get(key) !== message) this.log(`training runner: ${what}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  }

  tickEnds(): void {
    if (this.storage !== undefined && !this.storageThisTick && this.advancedThisTick) {
      this.log(`training runner: the data dir takes writes again (${this.storage.code} is over); training jobs go on`);
      this.storage = undefined;
    }
    this.lastTick = this.thisTick;
  }
}
