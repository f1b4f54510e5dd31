import { routePath } from '../../lib/router/router.svelte';

/** Training's pages: an organization's jobs, and one job over them. */
export const TRAINING_ROUTES = {
  list: '/orgs/:orgId/training',
  job: '/orgs/:orgId/training/jobs/:jobId',
} as const;

export function trainingPath(orgId: string, jobId?: string): string {
  return jobId === undefined ? routePath(TRAINING_ROUTES.list, { orgId }) : routePath(TRAINING_ROUTES.job, { orgId, jobId });
}
