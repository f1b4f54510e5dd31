/** Training messages between the wire (generated protobuf types) and the bridge (common/training.ts). */
import { status as GrpcStatus } from '@grpc/grpc-js';
import {
  ModelType as WireModelType,
  TrainingStatus as WireStatus,
  type TrainingDataset as WireDataset,
  type TrainingJobMetadata,
} from '../../proto/gen/fleet/mltraining/v1/ml_training';
import type { ModelType, TrainingDataset, TrainingJob, TrainingStatus } from '../../common/training';

/** A job as cached: everything but `watched`, which is the app's own and kept apart. */
export type CachedJob = Omit<TrainingJob, 'watched'>;

const iso = (d: Date | undefined): string | null => (d ? d.toISOString() : null);

const statuses: Record<TrainingStatus, WireStatus> = {
  pending: WireStatus.TRAINING_STATUS_PENDING,
  running: WireStatus.TRAINING_STATUS_RUNNING,
  succeeded: WireStatus.TRAINING_STATUS_SUCCEEDED,
  failed: WireStatus.TRAINING_STATUS_FAILED,
  canceling: WireStatus.TRAINING_STATUS_CANCELING,
  canceled: WireStatus.TRAINING_STATUS_CANCELED,
};
const modelTypes: Record<ModelType, WireModelType> = {
  single_label_classification: WireModelType.MODEL_TYPE_SINGLE_LABEL_CLASSIFICATION,
  multi_label_classification: WireModelType.MODEL_TYPE_MULTI_LABEL_CLASSIFICATION,
  object_detection: WireModelType.MODEL_TYPE_OBJECT_DETECTION,
};

export const statusToWire = (s: TrainingStatus): WireStatus => statuses[s];
export const modelTypeToWire = (t: ModelType): WireModelType => modelTypes[t];

function statusFromWire(s: WireStatus): TrainingStatus | null {
  for (const [k, v] of Object.entries(statuses) as [TrainingStatus, WireStatus][]) if (v === s) return k;
  return null;
}

function modelTypeFromWire(t: WireModelType): ModelType | null {
  for (const [k, v] of Object.entries(modelTypes) as [ModelType, WireModelType][]) if (v === t) return k;
  return null;
}

/** The gRPC code's name (`INVALID_ARGUMENT`) for people; the number when it has none. */
function codeName(code: number): string {
  const name = (GrpcStatus as unknown as Record<number, string | undefined>)[code];
  return typeof name === 'string' ? name : String(code);
}

export function jobFromWire(m: TrainingJobMetadata): CachedJob {
  const known = statusFromWire(m.status);
  const error = m.error && (m.error.code !== 0 || m.error.message !== '') ? { code: codeName(m.error.code), message: m.error.message } : null;
  return {
    id: m.id,
    orgId: m.orgId,
    datasetId: m.datasetId,
    datasetName: m.datasetName,
    modelName: m.modelName,
    modelVersion: m.modelVersion,
    modelType: modelTypeFromWire(m.modelType),
    tags: [...m.tags],
    custom: m.isCustomJob,
    registryItemId: m.registryItemId,
    registryItemVersion: m.registryItemVersion,
    // A status this build does not know (a newer service) reads as failed: final, and the error says why.
    status: known ?? 'failed',
    error: known ? error : { code: 'UNKNOWN', message: `The service reports a status this version of Fleet Desk does not know (${m.status}); update the app to see it.` },
    progressPercent: Math.max(0, Math.min(100, Math.round(m.progressPercent))),
    createdOn: iso(m.createdOn),
    lastModified: iso(m.lastModified),
    startedOn: iso(m.trainingStarted),
    endedOn: iso(m.trainingEnded),
    cancelRequestedOn: iso(m.cancelRequested),
    syncedModelId: m.syncedModelId,
  };
}

export function datasetFromWire(d: WireDataset, lastUsedOn: string | null): TrainingDataset {
  return {
    id: d.id,
    orgId: d.orgId,
    name: d.name,
    sizeBytes: d.sizeBytes,
    imageCount: d.imageCount,
    labels: [...d.labels],
    createdOn: iso(d.createdOn),
    lastUsedOn,
  };
}

/**
 * The version to propose after `taken` (oldest first): the last one with its last run of digits
 * raised (`1.0.9` → `1.0.10`, `3` → `4`, `v2-beta` → `v3-beta`), or with `.1` added when it has no
 * digit; `1` for a model with no version yet. Never one already taken.
 */
export function nextVersion(taken: readonly string[]): string {
  const used = new Set(taken);
  let candidate = taken.at(-1) ?? '0';
  for (let i = 0; i < 10_000; i++) {
    const match = /^(.*?)(\d+)(\D*)$/.exec(candidate);
    candidate = match ? `${match[1]}${(BigInt(match[2] ?? '0') + 1n).toString()}${match[3]}` : `${candidate}.1`;
    if (!used.has(candidate)) return candidate;
  }
  return `${taken.at(-1) ?? 'v'}-${Date.now()}`;
}
