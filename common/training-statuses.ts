/**
 * Where a training job is, in a module that imports nothing: the page's training badge and job
 * labels are on the window's boot path, which does not load the training domain's request schemas
 * (zod). common/training.ts re-exports them.
 */
/** Where a job is (TrainingStatus). pending → running → succeeded | failed; pending/running → canceling → canceled. */
export const TRAINING_STATUSES = ['pending', 'running', 'succeeded', 'failed', 'canceling', 'canceled'] as const;
export type TrainingStatus = (typeof TRAINING_STATUSES)[number];

/** Statuses in which a job still changes by itself: main polls while a job is in one of them. */
export const ACTIVE_TRAINING_STATUSES: readonly TrainingStatus[] = ['pending', 'running', 'canceling'];
/** Final statuses: only these can be deleted; a succeeded or failed job cannot be canceled. */
export const FINAL_TRAINING_STATUSES: readonly TrainingStatus[] = ['succeeded', 'failed', 'canceled'];
