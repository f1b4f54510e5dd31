/**
 * The request-shape rules of ML training (docs/PROTOCOL.md, "ML training"): model versions, tags,
 * model types, status filters, script versions. Each throws INVALID_ARGUMENT naming the field; none
 * looks anything up.
 */
import { ModelType, TrainingStatus } from '../../proto/gen/fleet/mltraining/v1/ml_training';
import { invalidArgument, Reason } from '../errors';
import { MAX_ID_LENGTH } from '../validate';

/** Longest model version label. */
export const MAX_MODEL_VERSION_LENGTH = 64;
/** Most tags one job trains on. */
export const MAX_TAGS = 100;
/** Longest tag. */
export const MAX_TAG_LENGTH = 100;

const MODEL_VERSION = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** A model version: a free label such as `1`, `1.0.0` or `2026-11-25` — 1 to 64 letters, digits, `.`, `_` and `-`, starting with a letter or digit. */
export function modelVersion(field: string, value: string): string {
  if (value === '') throw invalidArgument(field, Reason.REQUIRED_FIELD_MISSING, `${field} is required: a version label such as "1" or "1.0.0"`);
  if (value.length > MAX_MODEL_VERSION_LENGTH) throw invalidArgument(field, Reason.FIELD_TOO_LONG, `${field} must be at most ${MAX_MODEL_VERSION_LENGTH} characters`);
  if (!MODEL_VERSION.test(value)) {
    throw invalidArgument(field, Reason.FIELD_INVALID, `${field} may hold only letters, digits, ".", "_" and "-", starting with a letter or digit (e.g. "1", "1.0.0", "2026-11-25"), not ${JSON.stringify(value.slice(0, 40))}`);
  }
  return value;
}

export const MODEL_TYPES = [ModelType.MODEL_TYPE_SINGLE_LABEL_CLASSIFICATION, ModelType.MODEL_TYPE_MULTI_LABEL_CLASSIFICATION, ModelType.MODEL_TYPE_OBJECT_DETECTION] as const;

/** A model type other than UNSPECIFIED. */
export function modelType(field: string, value: number): ModelType {
  if (!(MODEL_TYPES as readonly number[]).includes(value)) {
    throw invalidArgument(field, Reason.ENUM_VALUE_INVALID, `${field} must be SINGLE_LABEL_CLASSIFICATION, MULTI_LABEL_CLASSIFICATION or OBJECT_DETECTION${value === 0 ? ', not UNSPECIFIED' : ` (${value} is none of them)`}`);
  }
  return value as ModelType;
}

/** A status filter: UNSPECIFIED (every job) or one of the six statuses. */
export function statusFilter(field: string, value: number): TrainingStatus {
  if (!Number.isInteger(value) || value < TrainingStatus.TRAINING_STATUS_UNSPECIFIED || value > TrainingStatus.TRAINING_STATUS_CANCELED) {
    throw invalidArgument(field, Reason.ENUM_VALUE_INVALID, `${field} must be UNSPECIFIED (every job) or PENDING, RUNNING, SUCCEEDED, FAILED, CANCELING or CANCELED (${value} is none of them)`);
  }
  return value as TrainingStatus;
}

/** The labels to train on: 1 to 100, each trimmed, not blank, at most 100 characters, no control characters, no duplicates. */
export function tags(field: string, values: readonly string[]): string[] {
  if (values.length === 0) throw invalidArgument(field, Reason.REQUIRED_FIELD_MISSING, `${field} is required: name at least one label of the dataset to train on`);
  if (values.length > MAX_TAGS) throw invalidArgument(field, Reason.FIELD_INVALID, `${field} may name at most ${MAX_TAGS} labels, not ${values.length}`);
  const seen = new Set<string>();
  return values.map((raw, i) => {
    const at = `${field}[${i}]`;
    const tag = raw.trim();
    if (tag === '') throw invalidArgument(at, Reason.REQUIRED_FIELD_MISSING, `${at} must not be blank`);
    if ([...tag].length > MAX_TAG_LENGTH) throw invalidArgument(at, Reason.FIELD_TOO_LONG, `${at} must be at most ${MAX_TAG_LENGTH} characters`);
    if (/\p{Cc}/u.test(tag)) throw invalidArgument(at, Reason.FIELD_INVALID, `${at} must not contain control characters`);
    if (seen.has(tag)) throw invalidArgument(at, Reason.FIELD_INVALID, `${at} ${JSON.stringify(tag)} is named twice`);
    seen.add(tag);
    return tag;
  });
}

/**
 * A dataset id, recorded as given: not empty, at most 200 characters, no control characters (a NUL
 * would end the stored text early, so the id read back would not be the one sent).
 */
export function datasetId(field: string, value: string): string {
  if (value === '') throw invalidArgument(field, Reason.REQUIRED_FIELD_MISSING, `${field} is required: the id of a dataset of the organization (ListTrainingDatasets lists them)`);
  if ([...value].length > MAX_ID_LENGTH) throw invalidArgument(field, Reason.FIELD_TOO_LONG, `${field} must be at most ${MAX_ID_LENGTH} characters`);
  if (/\p{Cc}/u.test(value)) throw invalidArgument(field, Reason.FIELD_INVALID, `${field} must not contain control characters`);
  return value;
}

/** The version of a training script to run, recorded as given: not empty, at most 200 characters, no control characters. */
export function scriptVersion(field: string, value: string): string {
  if (value === '') throw invalidArgument(field, Reason.REQUIRED_FIELD_MISSING, `${field} is required: a version of the training script uploaded with UploadModuleFile`);
  if ([...value].length > MAX_ID_LENGTH) throw invalidArgument(field, Reason.FIELD_TOO_LONG, `${field} must be at most ${MAX_ID_LENGTH} characters`);
  if (/\p{Cc}/u.test(value)) throw invalidArgument(field, Reason.FIELD_INVALID, `${field} must not contain control characters`);
  return value;
}
