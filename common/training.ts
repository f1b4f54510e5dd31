/**
 * ML training over the bridge: an organization's training jobs (submit, custom submit from a
 * registry training script, read, list, cancel, delete), the datasets they can train on, the models
 * and versions already trained, and the training scripts of the registry.
 *
 * Jobs are cached per profile, so an organization's jobs can be read offline (`fromCache` says so);
 * while any job main knows of is pending, running or canceling, main polls the service for its
 * status (backing off while nothing changes) and pushes `training.changed`. A job this app submitted
 * or the user watches ends with `training.ended` (and a desktop notification).
 */
import { z } from 'zod';
import { id, type IsoTime } from './schemas';
import { TRAINING_STATUSES, type TrainingStatus } from './training-statuses';

// The statuses are apart, without zod: the page's training badge and labels are on the window's boot
// path (common/training-statuses.ts).
export { ACTIVE_TRAINING_STATUSES, FINAL_TRAINING_STATUSES, TRAINING_STATUSES, type TrainingStatus } from './training-statuses';

/** The kind of model a job trains (ModelType). */
export const MODEL_TYPES = ['single_label_classification', 'multi_label_classification', 'object_detection'] as const;
export type ModelType = (typeof MODEL_TYPES)[number];

/** Limits the service applies (docs/PROTOCOL.md, ML training): checked here too, so the form says so first. */
export const MAX_TRAINING_TAGS = 100;
export const MAX_TAG_LENGTH = 100;
export const MAX_MODEL_VERSION_LENGTH = 64;

/**
 * A model name: it names the ML model registry item the job publishes, so it follows registry item
 * names (lowercase letters, digits, `-` and `_`, starting with a letter or digit, at most 200).
 */
export const modelName = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(200, 'is at most 200 characters')
  .regex(/^[a-z0-9][a-z0-9_-]*$/, 'may hold only lowercase letters, digits, - and _, and must start with a letter or digit');

/** A model version: a free label such as `1`, `1.0.0` or `2026-11-25` (letters, digits, `.`, `_`, `-`), unique per model. */
export const modelVersion = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(MAX_MODEL_VERSION_LENGTH, `is at most ${MAX_MODEL_VERSION_LENGTH} characters`)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'may hold only letters, digits, ., _ and -, and must start with a letter or digit');

/** A label to train on: non-empty, at most 100 characters, no control characters. */
export const trainingTag = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(MAX_TAG_LENGTH, `is at most ${MAX_TAG_LENGTH} characters`)
  .refine((s) => !/\p{Cc}/u.test(s), 'must not contain control characters');

/** Labels to train on: at least one, at most 100, each once. */
export const trainingTags = z
  .array(trainingTag)
  .min(1, 'needs at least one label')
  .max(MAX_TRAINING_TAGS, `may hold at most ${MAX_TRAINING_TAGS} labels`)
  .refine((tags) => new Set(tags).size === tags.length, 'names a label twice');

export interface TrainingJob {
  readonly id: string;
  /** The organization that owns the job. */
  readonly orgId: string;
  readonly datasetId: string;
  /** The dataset's name as the service knows it; empty when it has no dataset of that id. */
  readonly datasetName: string;
  readonly modelName: string;
  readonly modelVersion: string;
  /** Null for custom jobs, whose script decides. */
  readonly modelType: ModelType | null;
  /** Labels trained on; empty for custom jobs. */
  readonly tags: readonly string[];
  /** Submitted with a registry training script (`training.submitCustom`). */
  readonly custom: boolean;
  /** The training script's registry item and version, for custom jobs; empty otherwise. */
  readonly registryItemId: string;
  readonly registryItemVersion: string;
  readonly status: TrainingStatus;
  /** Why a failed job failed; null otherwise. `code` is the gRPC status name the service gave (e.g. `INVALID_ARGUMENT`). */
  readonly error: { readonly code: string; readonly message: string } | null;
  /** 0–100: 0 while pending, the share of the run done while running, 100 once succeeded. */
  readonly progressPercent: number;
  readonly createdOn: IsoTime | null;
  /** When anything about the job last changed. */
  readonly lastModified: IsoTime | null;
  /** When it left pending; null before. */
  readonly startedOn: IsoTime | null;
  /** When it reached a final status; null before. */
  readonly endedOn: IsoTime | null;
  /** When cancelling was first asked for; null otherwise. */
  readonly cancelRequestedOn: IsoTime | null;
  /** The ML model registry item the job published, once succeeded; empty before. */
  readonly syncedModelId: string;
  /** Whether this app notifies the user when the job ends (it submitted the job, or the user asked to watch it). */
  readonly watched: boolean;
}

/** An organization's jobs, newest first: all of them, or (`delta`) those changed since the `since` asked for. */
export interface TrainingJobs {
  readonly orgId: string;
  readonly jobs: readonly TrainingJob[];
  /**
   * Only the jobs changed since the request's `since` (any status): merge them by id into the list
   * already held. False: `jobs` is the whole list (of the status asked for).
   */
  readonly delta: boolean;
  /** What to pass as `since` next time to be sent only what changed after this answer. */
  readonly cursor: IsoTime;
  /** How many jobs the organization has in all: a merged list of another length lost a deletion, and reads the whole list again. */
  readonly total: number;
  /**
   * The request's `limit` cut the list: more jobs follow the last one sent, to be asked for with
   * `after` (that last job). Absent or false: nothing follows.
   */
  readonly more?: boolean;
  /** Answered from the cache because the service could not be reached. */
  readonly fromCache: boolean;
  /** When the cached jobs last matched the service; null when never fetched. */
  readonly syncedAt: IsoTime | null;
}

/** Where a part of a list starts (`training.list`'s `after`): just after this job, in the list's order (created descending, then id; undated jobs last). */
export interface TrainingListAfter {
  readonly createdOn: IsoTime | null;
  readonly id: string;
}

/** A dataset the service can train on (ListTrainingDatasets). */
export interface TrainingDataset {
  readonly id: string;
  readonly orgId: string;
  readonly name: string;
  readonly sizeBytes: number;
  readonly imageCount: number;
  /** Labels annotated in the dataset: what tags may name. */
  readonly labels: readonly string[];
  readonly createdOn: IsoTime | null;
  /** When a job of the organization last trained on it (from the cached jobs); null when never. Datasets come recent first. */
  readonly lastUsedOn: IsoTime | null;
}

/** A model the organization trained or published, with the versions already taken. */
export interface TrainingModel {
  readonly name: string;
  /** The type of its latest non-custom job; null when unknown. */
  readonly modelType: ModelType | null;
  /** Every version taken (by a job, also one since deleted if the registry holds it, or by a published version), oldest first. */
  readonly versions: readonly string[];
  /** A version to propose next: the last one with its last number raised (`1.0.9` → `1.0.10`, `3` → `4`), or `1` for a new model. */
  readonly nextVersion: string;
  /** The ML model registry item holding its published versions; empty when none. */
  readonly registryItemId: string;
}

/** A training script of the registry (a PACKAGE_TYPE_ML_TRAINING item) the organization can run, with its uploaded versions. */
export interface TrainingScript {
  readonly itemId: string;
  readonly orgId: string;
  readonly name: string;
  readonly description: string;
  /** Oldest first. Only versions with an uploaded file can run. */
  readonly versions: readonly { readonly version: string; readonly uploadedAt: IsoTime | null; readonly platforms: readonly string[] }[];
}

/** Jobs pending and running, per organization and in all: the badge and the navigation count. */
export interface TrainingSummary {
  readonly running: number;
  readonly pending: number;
  readonly byOrg: Readonly<Record<string, { readonly running: number; readonly pending: number }>>;
}

const status = z.enum(TRAINING_STATUSES).nullable().default(null);

export const trainingRequests = {
  /**
   * An organization's jobs, newest first, optionally only those in one status: from the service when
   * online (and cached), else the cache. With `since` (a previous answer's `cursor`), only the jobs
   * changed since, of any status (`delta`): main too reads only what changed from the service, so a
   * read costs what changed, not the organization's history.
   *
   * A whole read (no `since`) can come in parts, so a page draws its first screenful without waiting
   * for thousands of jobs: `limit` sends at most that many (the answer says `more` when it cut the
   * list), and `after` (the last job of the previous part, as `createdOn` and `id`) starts just after
   * it in the list's order. Both are ignored with `since`: a delta is sent whole.
   */
  'training.list': z
    .object({
      orgId: id,
      status,
      since: z.string().max(40).nullable().default(null),
      limit: z.number().int().min(1).max(100_000).nullable().default(null),
      after: z.object({ createdOn: z.string().max(40).nullable(), id }).strict().nullable().default(null),
    })
    .strict(),
  /** One job: from the service when online, else the cache. */
  'training.get': z.object({ jobId: id }).strict(),
  /** The datasets the organization can train on, recently used first, then newest. Needs the service. */
  'training.datasets': z.object({ orgId: id }).strict(),
  /** The models the organization trained or published, with the versions taken and the next one proposed. Uses the cache offline. */
  'training.models': z.object({ orgId: id }).strict(),
  /** Training scripts the organization can run (its own and public ones), with their versions. Needs the service. */
  'training.scripts': z.object({ orgId: id }).strict(),
  /** Submit a job (SubmitTrainingJob); it is watched. Answers the new job as the service reads it. */
  'training.submit': z
    .object({ orgId: id, datasetId: id, modelName, modelVersion, modelType: z.enum(MODEL_TYPES), tags: trainingTags })
    .strict(),
  /** Submit a job that runs a registry training script (SubmitCustomTrainingJob); it is watched. */
  'training.submitCustom': z
    .object({ orgId: id, datasetId: id, registryItemId: id, registryItemVersion: z.string().trim().min(1, 'must not be empty').max(200, 'is too long'), modelName, modelVersion })
    .strict(),
  /** Ask a pending or running job to stop. Answers the job as it is now (canceling). */
  'training.cancel': z.object({ jobId: id }).strict(),
  /** Delete completed jobs (succeeded, failed, canceled), each on its own: what could not be deleted says why. */
  'training.delete': z
    .object({ jobIds: z.array(id).min(1, 'names no job').max(500, 'names more than 500 jobs') })
    .strict()
    .refine((r) => new Set(r.jobIds).size === r.jobIds.length, 'names a job twice'),
  /** Be notified (or stop being notified) when the job ends. */
  'training.watch': z.object({ jobId: id, watch: z.boolean() }).strict(),
  /** Pending and running jobs of the active profile's cached organizations (also pushed in `training.changed`). */
  'training.summary': z.object({}).strict(),
};

export interface TrainingResponses {
  'training.list': TrainingJobs;
  'training.get': { readonly job: TrainingJob; readonly fromCache: boolean };
  'training.datasets': readonly TrainingDataset[];
  'training.models': readonly TrainingModel[];
  'training.scripts': readonly TrainingScript[];
  'training.submit': TrainingJob;
  'training.submitCustom': TrainingJob;
  'training.cancel': TrainingJob;
  'training.delete': {
    readonly deleted: readonly string[];
    readonly failed: readonly { readonly jobId: string; readonly error: { readonly kind: string; readonly message: string } }[];
  };
  'training.watch': TrainingJob;
  'training.summary': TrainingSummary;
}

/** `training.changed`: the cached jobs of these organizations changed (a poll saw a change, a submit, a cancel, a delete, a sync). */
export interface TrainingChanged {
  readonly orgIds: readonly string[];
  readonly summary: TrainingSummary;
}

/** `training.ended`: a watched job reached succeeded or failed. */
export interface TrainingEnded {
  readonly job: TrainingJob;
  /** The host already showed a desktop notification (Electron); otherwise the page shows one (browser mode). */
  readonly notified: boolean;
}

/** `training.open`: the user clicked a job's desktop notification: show that job. */
export interface TrainingOpen {
  readonly orgId: string;
  readonly jobId: string;
}
