/** How training is said on screen: status and model-type labels, a job's name, kind and duration, and what to tell when one ends. Pure functions of a job. */
import type { ModelType, TrainingJob } from '../../../../common/training';
import { ACTIVE_TRAINING_STATUSES, FINAL_TRAINING_STATUSES, type TrainingStatus } from '../../../../common/training-statuses';
import { formatDuration } from '../../lib/format';

export const TRAINING_STATUS_LABEL: Record<TrainingStatus, string> = {
  pending: 'Pending',
  running: 'Running',
  succeeded: 'Succeeded',
  failed: 'Failed',
  canceling: 'Canceling',
  canceled: 'Canceled',
};

export const MODEL_TYPE_LABEL: Record<ModelType, string> = {
  single_label_classification: 'Single-label classification',
  multi_label_classification: 'Multi-label classification',
  object_detection: 'Object detection',
};

/** The filter's choices, in the order shown: '' is "All". */
export const TRAINING_FILTERS: readonly (TrainingStatus | '')[] = ['', 'pending', 'running', 'succeeded', 'failed', 'canceling', 'canceled'];

/** Still moving by itself (main polls it). */
export function jobActive(job: TrainingJob): boolean {
  return ACTIVE_TRAINING_STATUSES.includes(job.status);
}

/** Ended: only these can be deleted. */
export function jobFinal(job: TrainingJob): boolean {
  return FINAL_TRAINING_STATUSES.includes(job.status);
}

/** Can still be asked to stop (a canceling job already was). */
export function jobCancelable(job: TrainingJob): boolean {
  return job.status === 'pending' || job.status === 'running';
}

/** "yard-detector 4": how a job is named everywhere (rows, dialogs, notifications). */
export function jobLabel(job: Pick<TrainingJob, 'modelName' | 'modelVersion'>): string {
  return `${job.modelName} ${job.modelVersion}`;
}

/** A registry item id's name (`acme:trainer` → `trainer`). */
function itemName(itemId: string): string {
  return itemId.slice(itemId.lastIndexOf(':') + 1) || itemId;
}

/** What trains: the model type, or `custom: <script>@<version>`. */
export function jobKind(job: TrainingJob): string {
  if (job.custom) return `custom: ${itemName(job.registryItemId)}@${job.registryItemVersion}`;
  return job.modelType ? MODEL_TYPE_LABEL[job.modelType] : 'Unknown type';
}

/** Seconds the job ran: from starting to ending, or to `now` while it is still under way; null if it never started. */
export function jobSeconds(job: TrainingJob, now: number): number | null {
  const start = job.startedOn ? Date.parse(job.startedOn) : Number.NaN;
  if (Number.isNaN(start)) return null;
  const end = job.endedOn ? Date.parse(job.endedOn) : jobActive(job) ? now : Number.NaN;
  if (Number.isNaN(end)) return null;
  return Math.max(0, (end - start) / 1000);
}

/** "12 min 5 s", or null when it never started. */
export function jobDuration(job: TrainingJob, now: number): string | null {
  const seconds = jobSeconds(job, now);
  return seconds === null ? null : formatDuration(seconds);
}

/** What to tell people when a job ended: the notification's title and body (a toast says both). */
export function endedMessage(job: TrainingJob): { title: string; body: string } {
  const what = jobLabel(job);
  if (job.status === 'succeeded') {
    const took = jobDuration(job, Date.now());
    return { title: `Training succeeded: ${what}`, body: took ? `Trained in ${took}.` : 'The model is trained.' };
  }
  if (job.status === 'failed') {
    const error = job.error;
    return { title: `Training failed: ${what}`, body: error ? `${error.message}${error.code ? ` (${error.code})` : ''}` : 'The service gave no reason.' };
  }
  return { title: `Training ${TRAINING_STATUS_LABEL[job.status].toLowerCase()}: ${what}`, body: '' };
}

/**
 * The line over the jobs table: how many jobs it shows (of the status asked for) and how many are
 * ticked; while only the first part of the list is held (`partial`), that it is and of how many in all,
 * so a count that is still growing is not read as the organization's.
 */
export function jobCountLabel(shown: number, status: TrainingStatus | null, selected: number, partial: boolean, total: number): string {
  const jobs = shown === 1 ? '1 job' : `${shown.toLocaleString()} jobs`;
  const which = status ? ` ${TRAINING_STATUS_LABEL[status].toLowerCase()}` : '';
  const loading = partial ? ` so far — loading the rest of ${total.toLocaleString()} jobs…` : '';
  return `${jobs}${which}${loading}${selected > 0 ? ` · ${selected} selected` : ''}`;
}
