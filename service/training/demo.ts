/**
 * The demo fleet's ML training: datasets in every demo organization (one of them unreadable), and in
 * the first organization jobs in every state — two SUCCEEDED (one a custom job on the demo training
 * script) whose models are published in the registry, two FAILED, one CANCELED, two RUNNING and one
 * PENDING waiting for a run slot. The running and pending jobs then move on at the service's pace.
 * Runs inside the demo's transaction, after the demo registry (registry/demo.ts).
 */
import type Database from 'better-sqlite3';
import type { Organization } from '../../proto/gen/fleet/app/v1/orgs';
import { ModelType, TrainingStatus } from '../../proto/gen/fleet/mltraining/v1/ml_training';
import { publishModel, type ModelRegistry } from './publish';
import { iso, TrainingStore } from './store';

const GB = 1024 ** 3;
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

interface DemoDataset {
  readonly name: string;
  readonly gb: number;
  readonly images: number;
  readonly labels: readonly string[];
  readonly daysAgo: number;
  readonly unreadable?: boolean;
}

const DATASETS: Readonly<Record<string, readonly DemoDataset[]>> = {
  'Acme Warehouse Robotics': [
    { name: 'Legacy dock scans 2024', gb: 14.9, images: 31_002, labels: ['pallet', 'truck', 'dock-door'], daysAgo: 410, unreadable: true },
    { name: 'Reno pallets 2026-Q3', gb: 19.7, images: 48_213, labels: ['pallet', 'pallet-pocket', 'forklift', 'person'], daysAgo: 40 },
    { name: 'Columbus tote damage', gb: 3.1, images: 9_874, labels: ['intact', 'crushed', 'torn', 'wet'], daysAgo: 25 },
    { name: 'Mezzanine PPE checks', gb: 5.2, images: 12_406, labels: ['person', 'safety-vest', 'hard-hat', 'no-vest'], daysAgo: 12 },
    { name: 'Barcode glare samples', gb: 0.6, images: 2_140, labels: ['glare', 'clean', 'smudged'], daysAgo: 5 },
  ],
  'Harborline Logistics AMR': [
    { name: 'Yard container IDs', gb: 7.4, images: 18_530, labels: ['container', 'iso-code', 'seal'], daysAgo: 60 },
    { name: 'Tug hitch camera', gb: 2.2, images: 6_115, labels: ['hitched', 'unhitched', 'obstructed'], daysAgo: 14 },
  ],
  'Northfield Agri-Bots': [
    { name: 'Leaf health 2026', gb: 11.3, images: 27_650, labels: ['healthy', 'blight', 'mildew', 'nutrient-stress'], daysAgo: 90 },
    { name: 'Orchard fruit count', gb: 8.8, images: 15_020, labels: ['apple', 'pear', 'blossom'], daysAgo: 21 },
    { name: 'Drone field survey (raw)', gb: 42.5, images: 96_400, labels: ['crop-row', 'weed', 'bare-soil'], daysAgo: 3, unreadable: true },
  ],
  'Polaris Inspection Drones': [
    { name: 'Flare stack thermal', gb: 6.9, images: 8_310, labels: ['hot-spot', 'normal', 'flare'], daysAgo: 75 },
    { name: 'Pipe corrosion close-ups', gb: 4.1, images: 11_760, labels: ['corrosion', 'pitting', 'clean-weld'], daysAgo: 30 },
  ],
};

const GENERIC: readonly DemoDataset[] = [
  { name: 'Site camera samples', gb: 1.5, images: 4_200, labels: ['person', 'vehicle', 'pallet'], daysAgo: 20 },
  { name: 'Floor hazards', gb: 0.9, images: 2_750, labels: ['spill', 'debris', 'clear'], daysAgo: 7 },
];

interface DemoJob {
  readonly dataset: string;
  readonly model: string;
  readonly version: string;
  readonly type: ModelType;
  readonly tags: readonly string[];
  /** For a custom job: the demo training script's name and version. */
  readonly script?: readonly [string, string];
  readonly createdAgo: number;
  /** What happened: final states with how long after creation they started and ended. */
  readonly outcome:
    | { readonly status: TrainingStatus.TRAINING_STATUS_SUCCEEDED; readonly startAfter: number; readonly runFor: number }
    | { readonly status: TrainingStatus.TRAINING_STATUS_FAILED; readonly code: number; readonly message: string; readonly startAfter: number; readonly runFor: number; readonly progress: number }
    | { readonly status: TrainingStatus.TRAINING_STATUS_CANCELED; readonly startAfter: number; readonly cancelAfter: number; readonly progress: number }
    | { readonly status: TrainingStatus.TRAINING_STATUS_RUNNING; readonly startedAgo: number }
    | { readonly status: TrainingStatus.TRAINING_STATUS_PENDING };
}

const JOBS: readonly DemoJob[] = [
  {
    dataset: 'Reno pallets 2026-Q3',
    model: 'pallet-detector',
    version: '2.1.0',
    type: ModelType.MODEL_TYPE_OBJECT_DETECTION,
    tags: ['pallet', 'pallet-pocket'],
    createdAgo: 9 * DAY,
    outcome: { status: TrainingStatus.TRAINING_STATUS_SUCCEEDED, startAfter: 4 * MIN, runFor: 2 * HOUR + 17 * MIN },
  },
  {
    dataset: 'Columbus tote damage',
    model: 'tote-damage',
    version: '1',
    type: ModelType.MODEL_TYPE_UNSPECIFIED,
    tags: [],
    script: ['detector-trainer', '0.3.0'],
    createdAgo: 6 * DAY,
    outcome: { status: TrainingStatus.TRAINING_STATUS_SUCCEEDED, startAfter: 2 * MIN, runFor: 48 * MIN },
  },
  {
    dataset: 'Legacy dock scans 2024',
    model: 'dock-detector',
    version: '1',
    type: ModelType.MODEL_TYPE_OBJECT_DETECTION,
    tags: ['truck', 'dock-door'],
    createdAgo: 4 * DAY,
    outcome: {
      status: TrainingStatus.TRAINING_STATUS_FAILED,
      code: 9,
      message: 'dataset Legacy dock scans 2024 cannot be read: its files are not available to the training service; pick another dataset or try again later',
      startAfter: 3 * 1000,
      runFor: 0,
      progress: 0,
    },
  },
  {
    dataset: 'Mezzanine PPE checks',
    model: 'ppe-detector',
    version: '1',
    type: ModelType.MODEL_TYPE_OBJECT_DETECTION,
    tags: ['person', 'safety-vest', 'gloves'],
    createdAgo: 3 * DAY,
    outcome: {
      status: TrainingStatus.TRAINING_STATUS_FAILED,
      code: 3,
      message: 'dataset Mezzanine PPE checks has no label "gloves"; its labels are "person", "safety-vest", "hard-hat", "no-vest": train on those',
      startAfter: 3 * 1000,
      runFor: 0,
      progress: 0,
    },
  },
  {
    dataset: 'Columbus tote damage',
    model: 'tote-damage',
    version: '2',
    type: ModelType.MODEL_TYPE_SINGLE_LABEL_CLASSIFICATION,
    tags: ['intact', 'crushed'],
    createdAgo: 2 * DAY,
    outcome: { status: TrainingStatus.TRAINING_STATUS_CANCELED, startAfter: MIN, cancelAfter: 38 * MIN, progress: 37 },
  },
  {
    dataset: 'Mezzanine PPE checks',
    model: 'ppe-detector',
    version: '2',
    type: ModelType.MODEL_TYPE_OBJECT_DETECTION,
    tags: ['person', 'safety-vest', 'hard-hat'],
    createdAgo: 75 * 1000,
    outcome: { status: TrainingStatus.TRAINING_STATUS_RUNNING, startedAgo: 70 * 1000 },
  },
  {
    dataset: 'Reno pallets 2026-Q3',
    model: 'pallet-detector',
    version: '3.0.0',
    type: ModelType.MODEL_TYPE_OBJECT_DETECTION,
    tags: ['pallet', 'pallet-pocket', 'forklift'],
    createdAgo: 33 * 1000,
    outcome: { status: TrainingStatus.TRAINING_STATUS_RUNNING, startedAgo: 30 * 1000 },
  },
  {
    dataset: 'Barcode glare samples',
    model: 'barcode-glare',
    version: '2026-11-25',
    type: ModelType.MODEL_TYPE_SINGLE_LABEL_CLASSIFICATION,
    tags: ['glare', 'clean'],
    createdAgo: 1000,
    outcome: { status: TrainingStatus.TRAINING_STATUS_PENDING },
  },
];

/** Datasets for every organization of `orgs`, and the first one's jobs. */
export function seedDemoTraining(db: Database.Database, registry: ModelRegistry, orgs: readonly Organization[], now: Date): void {
  const store = new TrainingStore(db);
  const at = now.getTime();
  const datasetIds = new Map<string, string>();
  for (const org of orgs) {
    for (const d of DATASETS[org.name] ?? GENERIC) {
      const id = store.addDataset({ orgId: org.id, name: d.name, sizeBytes: Math.round(d.gb * GB), imageCount: d.images, labels: d.labels, readable: d.unreadable !== true, createdOn: at - d.daysAgo * DAY });
      if (org === orgs[0]) datasetIds.set(d.name, id);
    }
  }
  const main = orgs[0];
  if (main === undefined) return;
  const set = db.prepare(
    `UPDATE training_jobs SET status = @status, progress_percent = @progress, training_started = @started, training_ended = @ended, cancel_requested = @cancel,
       error_code = @code, error_message = @message, last_modified = @modified WHERE id = @id`,
  );
  for (const job of JOBS) {
    const created = at - job.createdAgo;
    const script = job.script && (db.prepare(`SELECT id FROM registry_items WHERE organization_id = ? AND name = ?`).pluck().get(main.id, job.script[0]) as string | undefined);
    const id = store.submit(
      {
        orgId: main.id,
        datasetId: datasetIds.get(job.dataset) ?? job.dataset,
        modelName: job.model,
        modelVersion: job.version,
        modelType: job.type,
        tags: job.tags,
        script: job.script && script !== undefined ? { itemId: script, wireId: `${main.publicNamespace || main.id}:${job.script[0]}`, version: job.script[1] } : undefined,
      },
      created,
    );
    const o = job.outcome;
    const row = { id, status: o.status, progress: 0, started: null as string | null, ended: null as string | null, cancel: null as string | null, code: null as number | null, message: null as string | null, modified: iso(created) };
    switch (o.status) {
      case TrainingStatus.TRAINING_STATUS_SUCCEEDED: {
        // Published as the runner publishes: the model item, its version and a real artifact.
        set.run({ ...row, status: TrainingStatus.TRAINING_STATUS_RUNNING, started: iso(created + o.startAfter) });
        const dataset = store.dataset(main.id, datasetIds.get(job.dataset) ?? '');
        publishModel(db, registry, store, store.row(id), created + o.startAfter + o.runFor, dataset && { name: dataset.name, imageCount: dataset.image_count });
        break;
      }
      case TrainingStatus.TRAINING_STATUS_FAILED: {
        const ended = iso(created + o.startAfter + o.runFor);
        set.run({ ...row, progress: o.progress, started: iso(created + o.startAfter), ended, code: o.code, message: o.message, modified: ended });
        break;
      }
      case TrainingStatus.TRAINING_STATUS_CANCELED: {
        const cancel = iso(created + o.cancelAfter);
        const ended = iso(created + o.cancelAfter + 1000);
        set.run({ ...row, progress: o.progress, started: iso(created + o.startAfter), ended, cancel, modified: ended });
        break;
      }
      case TrainingStatus.TRAINING_STATUS_RUNNING:
        set.run({ ...row, started: iso(at - o.startedAgo), modified: iso(at - o.startedAgo) });
        break;
      case TrainingStatus.TRAINING_STATUS_PENDING:
        break;
    }
  }
}
