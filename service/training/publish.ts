/**
 * Publishing a trained model: a job that SUCCEEDED adds version `model_version` to the private
 * PACKAGE_TYPE_ML_MODEL registry item named `model_name` in its organization (made if missing),
 * with one file for {@link MODEL_PLATFORM}: a real gzipped tarball (model.json, labels.txt,
 * README.md) written where uploads put their files, so its size and SHA-256 are true. The item,
 * the version, the file row and the job's SUCCEEDED are one transaction; the bytes are written
 * inside it and removed again if it fails.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { gzipSync } from 'node:zlib';
import type Database from 'better-sqlite3';
import { PackageType } from '../../proto/gen/fleet/app/v1/registry';
import { ModelType } from '../../proto/gen/fleet/mltraining/v1/ml_training';
import { tarball } from '../tar';
import { iso, type JobRow, type TrainingStore } from './store';

/**
 * What publishing needs of the registry, which keeps items, versions and their files: handed in by
 * the composition root (registry/models.ts), since a domain imports no other domain. Synchronous,
 * so that it runs inside the job's transaction.
 */
export interface ModelRegistry {
  /** A new private ML model item named `name` in the organization. */
  createModelItem(orgId: string, name: string, description: string, now: Date): { id: string; type: number; wire_id: string };
  /** Whether `version` of the item exists already: a file for `platform`, or the version by any other upload. */
  hasVersion(itemId: string, version: string, platform: string): boolean;
  /** Where the file of `version` for `platform` is kept. */
  path(itemId: string, version: string, platform: string): string;
  /** Record the file written at {@link path} as `version` of the item. */
  addFile(itemId: string, version: string, platform: string, sizeBytes: number, sha256: string, now: Date): void;
}

/** The platform of a trained model's file: models run wherever Linux robots do (matches every `linux/<arch>` filter). */
export const MODEL_PLATFORM = 'linux/any';

/** google.rpc.Code values a failed job reports. */
export const Code = { INVALID_ARGUMENT: 3, NOT_FOUND: 5, ALREADY_EXISTS: 6, FAILED_PRECONDITION: 9, INTERNAL: 13 } as const;

/** Why publishing could not happen; the job ends FAILED with it. */
export class PublishRefused extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const TYPE_WORDS: Record<number, string> = {
  [ModelType.MODEL_TYPE_SINGLE_LABEL_CLASSIFICATION]: 'single-label classification',
  [ModelType.MODEL_TYPE_MULTI_LABEL_CLASSIFICATION]: 'multi-label classification',
  [ModelType.MODEL_TYPE_OBJECT_DETECTION]: 'object detection',
  [ModelType.MODEL_TYPE_UNSPECIFIED]: 'custom (the training script decides)',
};

/** The artifact of a job: a gzipped tar that says what was trained, on what, by which job. */
export function modelArtifact(job: JobRow, dataset: { name: string; imageCount: number } | undefined, nowMs: number): Buffer {
  const tags = JSON.parse(job.tags) as string[];
  const model = {
    model_name: job.model_name,
    model_version: job.model_version,
    model_type: ModelType[job.model_type] ?? 'MODEL_TYPE_UNSPECIFIED',
    labels: tags,
    dataset: { id: job.dataset_id, name: dataset?.name ?? '', image_count: dataset?.imageCount ?? 0 },
    training_job_id: job.id,
    training_script: job.is_custom === 1 ? { registry_item_id: job.script_wire_id ?? job.registry_item_id, version: job.registry_item_version } : null,
    trained_at: iso(nowMs),
    format: 'tflite',
  };
  return gzipSync(
    tarball({
      'model.json': `${JSON.stringify(model, null, 2)}\n`,
      'labels.txt': tags.length > 0 ? `${tags.join('\n')}\n` : '',
      'README.md': `# ${job.model_name} ${job.model_version}\n\n${TYPE_WORDS[job.model_type] ?? 'model'} trained by training job ${job.id} on dataset ${dataset?.name ?? job.dataset_id}.\n`,
    }),
    { level: 9 },
  );
}

/**
 * Publish the model of RUNNING job `job` and mark it SUCCEEDED, in one transaction; answers the
 * model item's wire id. Throws {@link PublishRefused} when the name or version cannot be used
 * (taken meanwhile by an item of another type, or a version uploaded meanwhile).
 */
export function publishModel(db: Database.Database, registry: ModelRegistry, training: TrainingStore, job: JobRow, nowMs: number, dataset?: { name: string; imageCount: number }): string {
  const bytes = modelArtifact(job, dataset, nowMs);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const written: { path?: string } = {};
  try {
    return db.transaction(() => {
      let item = training.itemNamed(job.organization_id, job.model_name);
      if (item === undefined) {
        const kind = job.is_custom === 1 ? `the training script ${job.script_wire_id ?? job.registry_item_id}` : TYPE_WORDS[job.model_type];
        item = registry.createModelItem(job.organization_id, job.model_name, `ML model (${kind}); its versions are published by the organization's training jobs.`, new Date(nowMs));
      }
      if (item.type !== PackageType.PACKAGE_TYPE_ML_MODEL) {
        throw new PublishRefused(Code.FAILED_PRECONDITION, `the model could not be published: registry item ${item.wire_id} is of type ${PackageType[item.type] ?? item.type}, not an ML model; submit again with another model_name`);
      }
      if (registry.hasVersion(item.id, job.model_version, MODEL_PLATFORM)) {
        throw new PublishRefused(Code.ALREADY_EXISTS, `the model could not be published: version ${job.model_version} of ${item.wire_id} was uploaded while the job ran; submit again with a new model_version`);
      }
      const path = registry.path(item.id, job.model_version, MODEL_PLATFORM);
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      writeFileSync(path, bytes, { mode: 0o600 });
      written.path = path;
      registry.addFile(item.id, job.model_version, MODEL_PLATFORM, bytes.length, sha256, new Date(nowMs));
      if (!training.succeed(job.id, item.wire_id, nowMs)) throw new PublishRefused(Code.INTERNAL, 'the job was no longer running when its model was published');
      return item.wire_id;
    }).immediate();
  } catch (e) {
    if (written.path !== undefined) rmSync(written.path, { force: true });
    throw e;
  }
}
