/**
 * Training jobs, datasets and the ledger of model versions, as rows (migration 0010). Every state
 * of a job is in its row, so the runner (runner.ts) can stop and resume at any moment. Times are
 * ISO-8601 UTC strings written by `iso()`, so text order is time order.
 */
import { randomUUID } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import type Database from 'better-sqlite3';
import { PackageType } from '../../proto/gen/fleet/app/v1/registry';
import { TrainingStatus, type ModelType, type TrainedModel, type TrainingDataset, type TrainingJobMetadata } from '../../proto/gen/fleet/mltraining/v1/ml_training';
import { FleetError, present, Reason } from '../errors';
import { wireId } from '../permissions/engine';
import { notFound } from '../validate';

export const iso = (ms: number): string => new Date(ms).toISOString();

/** PENDING jobs one organization may hold by default (the service's --max-pending-jobs). */
export const DEFAULT_MAX_PENDING_JOBS = 1_000;

export interface JobRow {
  readonly id: string;
  readonly organization_id: string;
  readonly dataset_id: string;
  readonly model_name: string;
  readonly model_version: string;
  readonly model_type: number;
  readonly tags: string;
  readonly is_custom: number;
  readonly script_item_id: string | null;
  readonly registry_item_id: string;
  readonly registry_item_version: string;
  readonly status: TrainingStatus;
  readonly error_code: number | null;
  readonly error_message: string | null;
  readonly progress_percent: number;
  readonly created_on: string;
  readonly last_modified: string;
  readonly training_started: string | null;
  readonly training_ended: string | null;
  readonly cancel_requested: string | null;
  readonly synced_model_id: string;
  /** The script's wire id as it is now (its organization may have a namespace since), or null once the item is gone. */
  readonly script_wire_id: string | null;
  /** The dataset's name, or null when the organization has no dataset of that id. */
  readonly dataset_name: string | null;
}

export interface DatasetRow {
  readonly id: string;
  readonly organization_id: string;
  readonly name: string;
  readonly size_bytes: number;
  readonly image_count: number;
  readonly labels: string;
  readonly readable: number;
  readonly created_on: string;
}

/** A job to submit; validated and checked against the state by the caller, but the version (checked here, race-safe). */
export interface NewJob {
  readonly orgId: string;
  readonly datasetId: string;
  readonly modelName: string;
  readonly modelVersion: string;
  readonly modelType: ModelType;
  readonly tags: readonly string[];
  /** For a custom job: the script item's row id, its wire id and the version to run. */
  readonly script?: { readonly itemId: string; readonly wireId: string; readonly version: string };
}

export interface NewDataset {
  readonly id?: string;
  readonly orgId: string;
  readonly name: string;
  readonly sizeBytes: number;
  readonly imageCount: number;
  readonly labels: readonly string[];
  readonly readable?: boolean;
  readonly createdOn: number;
}

const SELECT = `SELECT j.*, CASE WHEN r.id IS NULL THEN NULL ELSE coalesce(o.public_namespace, r.organization_id) || ':' || r.name END AS script_wire_id, d.name AS dataset_name
  FROM training_jobs j LEFT JOIN registry_items r ON r.id = j.script_item_id LEFT JOIN organizations o ON o.id = r.organization_id
  LEFT JOIN training_datasets d ON d.id = j.dataset_id AND d.organization_id = j.organization_id`;

/** States a job leaves only by the runner or CancelTrainingJob. */
export const ACTIVE: readonly TrainingStatus[] = [TrainingStatus.TRAINING_STATUS_PENDING, TrainingStatus.TRAINING_STATUS_RUNNING, TrainingStatus.TRAINING_STATUS_CANCELING];

export function statusName(s: TrainingStatus): string {
  return (TrainingStatus[s] ?? String(s)).replace('TRAINING_STATUS_', '');
}

export class TrainingStore {
  constructor(private readonly db: Database.Database) {}

  // --- datasets ---

  addDataset(d: NewDataset): string {
    const id = d.id ?? randomUUID();
    this.db
      .prepare('INSERT INTO training_datasets (id, organization_id, name, size_bytes, image_count, labels, readable, created_on) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(id, d.orgId, d.name, d.sizeBytes, d.imageCount, JSON.stringify(d.labels), d.readable === false ? 0 : 1, iso(d.createdOn));
    return id;
  }

  /** The organization's dataset `id`, if it has one. */
  dataset(orgId: string, id: string): DatasetRow | undefined {
    return this.db.prepare('SELECT * FROM training_datasets WHERE organization_id = ? AND id = ?').get(orgId, id) as DatasetRow | undefined;
  }

  /** The organization's datasets, newest first. */
  datasets(orgId: string): DatasetRow[] {
    return this.db.prepare('SELECT * FROM training_datasets WHERE organization_id = ? ORDER BY created_on DESC, id DESC').all(orgId) as DatasetRow[];
  }

  toDataset(row: DatasetRow): TrainingDataset {
    return {
      id: row.id,
      orgId: row.organization_id,
      name: row.name,
      sizeBytes: row.size_bytes,
      imageCount: row.image_count,
      labels: JSON.parse(row.labels) as string[],
      createdOn: new Date(row.created_on),
    };
  }

  // --- jobs ---

  job(id: string): JobRow | undefined {
    return this.db.prepare(`${SELECT} WHERE j.id = ?`).get(id) as JobRow | undefined;
  }

  row(id: string): JobRow {
    return present(this.job(id), `training job ${id}`);
  }

  /** The job, or NOT_FOUND (it may have been deleted since the permission table found it). */
  found(id: string): JobRow {
    const job = this.job(id);
    if (job === undefined) throw notFound(Reason.TRAINING_JOB_NOT_FOUND, 'training job', id, 'id');
    return job;
  }

  /** The organization's registry item named `name`, if any (what model_name will publish to). */
  itemNamed(orgId: string, name: string): { id: string; type: number; wire_id: string } | undefined {
    const row = this.db
      .prepare(`SELECT r.id, r.type, r.organization_id, coalesce(o.public_namespace, '') AS namespace, r.name FROM registry_items r JOIN organizations o ON o.id = r.organization_id WHERE r.organization_id = ? AND r.name = ?`)
      .get(orgId, name) as { id: string; type: number; organization_id: string; namespace: string; name: string } | undefined;
    return row && { id: row.id, type: row.type, wire_id: wireId(row) };
  }

  /**
   * FAILED_PRECONDITION (MODEL_NAME_TAKEN) when the organization has a registry item named
   * `modelName` that is no ML model: the trained model could not be published under that name.
   */
  checkModelName(orgId: string, modelName: string): void {
    const item = this.itemNamed(orgId, modelName);
    if (item !== undefined && item.type !== PackageType.PACKAGE_TYPE_ML_MODEL) {
      throw new FleetError(
        status.FAILED_PRECONDITION,
        Reason.MODEL_NAME_TAKEN,
        `model_name ${JSON.stringify(modelName)} is taken by registry item ${item.wire_id}, of type ${PackageType[item.type] ?? item.type}; a trained model is published as a PACKAGE_TYPE_ML_MODEL item of that name: choose another model_name`,
        'model_name',
      );
    }
  }

  /**
   * The organization's models with every version taken, by a job (the ledger, deleted jobs too) or
   * published in the ML model item of that name, oldest first; with the item's wire id. By name.
   */
  modelVersions(orgId: string): TrainedModel[] {
    const rows = this.db
      .prepare(
        `SELECT model_name, model_version, taken_at AS at FROM training_model_versions WHERE organization_id = @org
         UNION ALL
         SELECT r.name, v.version, v.uploaded_at FROM registry_items r JOIN registry_versions v ON v.item_id = r.id
          WHERE r.organization_id = @org AND r.type = ${PackageType.PACKAGE_TYPE_ML_MODEL}
         ORDER BY 1, 3, 2`,
      )
      .all({ org: orgId }) as { model_name: string; model_version: string; at: string }[];
    const items = this.db
      .prepare(`SELECT r.name, coalesce(o.public_namespace, r.organization_id) || ':' || r.name AS wire_id FROM registry_items r JOIN organizations o ON o.id = r.organization_id WHERE r.organization_id = ? AND r.type = ${PackageType.PACKAGE_TYPE_ML_MODEL}`)
      .all(orgId) as { name: string; wire_id: string }[];
    const models = new Map<string, TrainedModel>();
    for (const item of items) models.set(item.name, { modelName: item.name, versions: [], registryItemId: item.wire_id });
    for (const row of rows) {
      let model = models.get(row.model_name);
      if (!model) models.set(row.model_name, (model = { modelName: row.model_name, versions: [], registryItemId: '' }));
      // A published version a job took is listed once, where the job took it.
      if (!model.versions.includes(row.model_version)) model.versions.push(row.model_version);
    }
    return [...models.values()].sort((a, b) => (a.modelName < b.modelName ? -1 : a.modelName > b.modelName ? 1 : 0));
  }

  /** Why `version` of `modelName` is taken in the organization, or undefined when it is free. */
  versionTaken(orgId: string, modelName: string, version: string): string | undefined {
    const job = this.db.prepare('SELECT job_id FROM training_model_versions WHERE organization_id = ? AND model_name = ? AND model_version = ?').pluck().get(orgId, modelName, version) as string | undefined;
    if (job !== undefined) return `training job ${job} used it`;
    const item = this.itemNamed(orgId, modelName);
    if (item !== undefined && item.type === PackageType.PACKAGE_TYPE_ML_MODEL && this.db.prepare('SELECT 1 FROM registry_versions WHERE item_id = ? AND version = ?').get(item.id, version) !== undefined) {
      return `it is published in registry item ${item.wire_id}`;
    }
    return undefined;
  }

  /**
   * Record a new PENDING job and take its model version, in one IMMEDIATE transaction: the
   * ledger's primary key makes two submissions of one version race-safe (one wins, the other is
   * ALREADY_EXISTS). Checks the model name too, since an item may have been made meanwhile, and
   * that the organization holds fewer than `maxPending` PENDING jobs (RESOURCE_EXHAUSTED
   * TRAINING_QUEUE_FULL): counted inside the transaction, so two submissions cannot both take the
   * last place.
   */
  submit(job: NewJob, nowMs: number, maxPending = DEFAULT_MAX_PENDING_JOBS): string {
    const id = randomUUID();
    const at = iso(nowMs);
    const taken = (why: string) =>
      new FleetError(
        status.ALREADY_EXISTS,
        Reason.MODEL_VERSION_TAKEN,
        `model_version ${JSON.stringify(job.modelVersion)} of model ${JSON.stringify(job.modelName)} was used before in this organization (${why}); every job needs a version never used for that model: pick another`,
        'model_version',
      );
    this.db.transaction(() => {
      this.checkModelName(job.orgId, job.modelName);
      const why = this.versionTaken(job.orgId, job.modelName, job.modelVersion);
      if (why !== undefined) throw taken(why);
      // Counting stops at the bound: a submission costs the same however long the queue grew.
      const pending = this.db
        .prepare('SELECT count(*) FROM (SELECT 1 FROM training_jobs WHERE status = ? AND organization_id = ? LIMIT ?)')
        .pluck()
        .get(TrainingStatus.TRAINING_STATUS_PENDING, job.orgId, maxPending) as number;
      if (pending >= maxPending) {
        throw new FleetError(
          status.RESOURCE_EXHAUSTED,
          Reason.TRAINING_QUEUE_FULL,
          `organization ${job.orgId} has ${maxPending} training job${maxPending === 1 ? '' : 's'} PENDING, the most this service queues per organization: wait until some of them start, or cancel some with CancelTrainingJob, then submit again`,
        );
      }
      try {
        this.db.prepare('INSERT INTO training_model_versions (organization_id, model_name, model_version, job_id, taken_at) VALUES (?, ?, ?, ?, ?)').run(job.orgId, job.modelName, job.modelVersion, id, at);
      } catch (e) {
        if (e instanceof Error && /UNIQUE|PRIMARY/.test(e.message)) throw taken('another job took it just now');
        throw e;
      }
      // Two jobs submitted within one millisecond still list in the order they came: newest first is exact.
      const latest = this.db.prepare('SELECT max(created_on) FROM training_jobs WHERE organization_id = ?').pluck().get(job.orgId) as string | null;
      const created = latest === null ? at : iso(Math.max(nowMs, Date.parse(latest) + 1));
      this.db
        .prepare(
          `INSERT INTO training_jobs (id, organization_id, dataset_id, model_name, model_version, model_type, tags, is_custom, script_item_id, registry_item_id, registry_item_version, status, created_on, last_modified)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          id,
          job.orgId,
          job.datasetId,
          job.modelName,
          job.modelVersion,
          job.modelType,
          JSON.stringify(job.tags),
          job.script ? 1 : 0,
          job.script?.itemId ?? null,
          job.script?.wireId ?? '',
          job.script?.version ?? '',
          TrainingStatus.TRAINING_STATUS_PENDING,
          created,
          created,
        );
    }).immediate();
    return id;
  }

  /**
   * One page of the organization's jobs, newest first (created_on, then id, both descending),
   * after the cursor `after` = [created_on, id] of the last job of the previous page; with
   * `modifiedSince` (an `iso()` time), only jobs modified at or after it.
   */
  list(orgId: string, filter: TrainingStatus, after: readonly [string, string] | null, limit: number, modifiedSince: string | null = null): { rows: JobRow[]; more: boolean } {
    const where = ['j.organization_id = @org'];
    if (filter !== TrainingStatus.TRAINING_STATUS_UNSPECIFIED) where.push('j.status = @status');
    // Served by training_jobs_by_modified: a read of what changed costs what changed, then sorts it.
    if (modifiedSince !== null) where.push('j.last_modified >= @since');
    if (after !== null) where.push('(j.created_on, j.id) < (@afterCreated, @afterId)');
    const rows = this.db
      .prepare(`${SELECT} WHERE ${where.join(' AND ')} ORDER BY j.created_on DESC, j.id DESC LIMIT @limit`)
      .all({ org: orgId, status: filter, afterCreated: after?.[0] ?? '', afterId: after?.[1] ?? '', since: modifiedSince ?? '', limit: limit + 1 }) as JobRow[];
    return { rows: rows.slice(0, limit), more: rows.length > limit };
  }

  /**
   * Ask a job to stop: PENDING or RUNNING become CANCELING (the runner then makes them CANCELED);
   * CANCELING and CANCELED stay as they are; SUCCEEDED and FAILED are FAILED_PRECONDITION.
   */
  cancel(id: string, nowMs: number): void {
    const at = iso(nowMs);
    this.db.transaction(() => {
      const job = this.found(id);
      if (job.status === TrainingStatus.TRAINING_STATUS_SUCCEEDED || job.status === TrainingStatus.TRAINING_STATUS_FAILED) {
        throw new FleetError(
          status.FAILED_PRECONDITION,
          Reason.TRAINING_JOB_COMPLETED,
          `training job ${id} already ${job.status === TrainingStatus.TRAINING_STATUS_SUCCEEDED ? 'SUCCEEDED' : 'FAILED'}: there is nothing to cancel (delete it with DeleteCompletedTrainingJob)`,
        );
      }
      if (job.status !== TrainingStatus.TRAINING_STATUS_PENDING && job.status !== TrainingStatus.TRAINING_STATUS_RUNNING) return;
      this.db
        .prepare('UPDATE training_jobs SET status = ?, cancel_requested = coalesce(cancel_requested, ?), last_modified = ? WHERE id = ?')
        .run(TrainingStatus.TRAINING_STATUS_CANCELING, at, at, id);
    }).immediate();
  }

  /** Delete a job in a final state; FAILED_PRECONDITION for one still PENDING, RUNNING or CANCELING. Its model version stays taken. */
  deleteCompleted(id: string): void {
    this.db.transaction(() => {
      const job = this.found(id);
      if (ACTIVE.includes(job.status)) {
        throw new FleetError(
          status.FAILED_PRECONDITION,
          Reason.TRAINING_JOB_NOT_COMPLETED,
          `training job ${id} is ${statusName(job.status)}, not completed: only SUCCEEDED, FAILED and CANCELED jobs can be deleted; cancel it with CancelTrainingJob and wait for CANCELED first`,
        );
      }
      this.db.prepare('DELETE FROM training_jobs WHERE id = ?').run(id);
    }).immediate();
  }

  // --- what the runner does ---

  /** Jobs in `s`, oldest first. */
  inStatus(s: TrainingStatus): JobRow[] {
    return this.db.prepare(`${SELECT} WHERE j.status = ? ORDER BY j.created_on, j.id`).all(s) as JobRow[];
  }

  /**
   * Every organization with PENDING jobs, and how many of its jobs hold a run slot (RUNNING or
   * CANCELING). Its cost follows the organizations and the running jobs, never the length of the
   * queues: the organizations are found by seeking from one to the next in the status index (a
   * plain GROUP BY would read every PENDING job), and each count reads only its running jobs.
   */
  queues(): { organization_id: string; running: number }[] {
    return this.db
      .prepare(
        `WITH RECURSIVE queued (org) AS (
           SELECT min(organization_id) FROM training_jobs WHERE status = @pending
           UNION ALL
           SELECT (SELECT min(organization_id) FROM training_jobs WHERE status = @pending AND organization_id > queued.org) FROM queued WHERE queued.org IS NOT NULL
         )
         SELECT org AS organization_id, (SELECT count(*) FROM training_jobs WHERE status IN (@running, @canceling) AND organization_id = org) AS running
           FROM queued WHERE org IS NOT NULL`,
      )
      .all({ pending: TrainingStatus.TRAINING_STATUS_PENDING, running: TrainingStatus.TRAINING_STATUS_RUNNING, canceling: TrainingStatus.TRAINING_STATUS_CANCELING }) as { organization_id: string; running: number }[];
  }

  /** The head of the organization's queue: at most `limit` of its PENDING jobs created at `createdBy` or before, oldest first. */
  queueHead(orgId: string, createdBy: string, limit: number): JobRow[] {
    return this.db
      .prepare(`${SELECT} WHERE j.status = ? AND j.organization_id = ? AND j.created_on <= ? ORDER BY j.created_on, j.id LIMIT ?`)
      .all(TrainingStatus.TRAINING_STATUS_PENDING, orgId, createdBy, limit) as JobRow[];
  }

  /** Every CANCELING job becomes CANCELED, its progress kept. Returns how many. */
  finishCanceling(nowMs: number): number {
    const at = iso(nowMs);
    return this.db
      .prepare('UPDATE training_jobs SET status = ?, training_ended = ?, last_modified = ? WHERE status = ?')
      .run(TrainingStatus.TRAINING_STATUS_CANCELED, at, at, TrainingStatus.TRAINING_STATUS_CANCELING).changes;
  }

  /** A PENDING job starts running (only if it is still PENDING: a cancel may have come first). */
  start(id: string, nowMs: number): boolean {
    const at = iso(nowMs);
    return (
      this.db
        .prepare('UPDATE training_jobs SET status = ?, training_started = ?, progress_percent = 0, last_modified = ? WHERE id = ? AND status = ?')
        .run(TrainingStatus.TRAINING_STATUS_RUNNING, at, at, id, TrainingStatus.TRAINING_STATUS_PENDING).changes === 1
    );
  }

  /** A PENDING or RUNNING job ends FAILED with `code` and `message` (its progress kept). */
  fail(id: string, code: number, message: string, nowMs: number): boolean {
    const at = iso(nowMs);
    return (
      this.db
        .prepare(
          `UPDATE training_jobs SET status = ?, error_code = ?, error_message = ?, training_started = coalesce(training_started, ?), training_ended = ?, last_modified = ?
            WHERE id = ? AND status IN (?, ?)`,
        )
        .run(TrainingStatus.TRAINING_STATUS_FAILED, code, message, at, at, at, id, TrainingStatus.TRAINING_STATUS_PENDING, TrainingStatus.TRAINING_STATUS_RUNNING).changes === 1
    );
  }

  /** A RUNNING job's progress, written only when it changed. */
  progress(id: string, percent: number, nowMs: number): void {
    this.db
      .prepare('UPDATE training_jobs SET progress_percent = ?, last_modified = ? WHERE id = ? AND status = ? AND progress_percent <> ?')
      .run(percent, iso(nowMs), id, TrainingStatus.TRAINING_STATUS_RUNNING, percent);
  }

  /** A RUNNING job SUCCEEDED and published `syncedModelId` (called inside the publishing transaction). */
  succeed(id: string, syncedModelId: string, nowMs: number): boolean {
    const at = iso(nowMs);
    return (
      this.db
        .prepare('UPDATE training_jobs SET status = ?, progress_percent = 100, synced_model_id = ?, training_ended = ?, last_modified = ? WHERE id = ? AND status = ?')
        .run(TrainingStatus.TRAINING_STATUS_SUCCEEDED, syncedModelId, at, at, id, TrainingStatus.TRAINING_STATUS_RUNNING).changes === 1
    );
  }

  toMetadata(row: JobRow): TrainingJobMetadata {
    const date = (s: string | null) => (s === null ? undefined : new Date(s));
    return {
      id: row.id,
      orgId: row.organization_id,
      datasetId: row.dataset_id,
      modelName: row.model_name,
      modelVersion: row.model_version,
      modelType: row.model_type,
      tags: JSON.parse(row.tags) as string[],
      isCustomJob: row.is_custom === 1,
      registryItemId: row.is_custom === 1 ? (row.script_wire_id ?? row.registry_item_id) : '',
      registryItemVersion: row.registry_item_version,
      status: row.status,
      error: row.status === TrainingStatus.TRAINING_STATUS_FAILED ? { code: row.error_code ?? 13, message: row.error_message ?? '' } : undefined,
      createdOn: new Date(row.created_on),
      lastModified: new Date(row.last_modified),
      trainingStarted: date(row.training_started),
      trainingEnded: date(row.training_ended),
      syncedModelId: row.synced_model_id,
      progressPercent: row.progress_percent,
      datasetName: row.dataset_name ?? '',
      cancelRequested: date(row.cancel_requested),
    };
  }
}
