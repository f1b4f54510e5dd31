/**
 * The training tables of a profile's cache (migration 10): jobs as the service last answered them,
 * and the jobs the user is notified about. Writes run as cache jobs (jobs.ts); reads are
 * small and stay on the main thread.
 */
import type { TrainingJob, TrainingListAfter, TrainingStatus, TrainingSummary } from '../../common/training';
import { ACTIVE_TRAINING_STATUSES } from '../../common/training';
import { markSynced, syncedAt, type CacheDb } from '../cache/cache';
import type { CachedJob } from './convert';

/** The sync_state key of an organization's jobs. */
export const trainingResourceKey = (orgId: string): string => `training:${orgId}`;
/** The sync_state key holding the newest `lastModified` the service listed for the organization: where the next delta read starts. */
const modifiedKey = (orgId: string): string => `training-modified:${orgId}`;

/** Raise the organization's newest known `lastModified` to the newest of `jobs` (never lower it). */
function noteModified(db: CacheDb, orgId: string, jobs: readonly CachedJob[]): void {
  let newest = syncedAt(db, modifiedKey(orgId)) ?? '';
  for (const job of jobs) if (job.lastModified !== null && job.lastModified > newest) newest = job.lastModified;
  if (newest !== '') markSynced(db, modifiedKey(orgId), newest);
}

/** The newest `lastModified` the service listed for the organization; null before its first whole list. */
export function trainingModifiedSince(db: CacheDb, orgId: string): string | null {
  return syncedAt(db, modifiedKey(orgId));
}

interface Row {
  job: string;
  watched: number;
}

const SELECT = `SELECT j.job, (w.job_id IS NOT NULL) AS watched FROM training_jobs j LEFT JOIN training_watched w ON w.job_id = j.id`;

function fromRow(row: Row): TrainingJob {
  return { ...(JSON.parse(row.job) as CachedJob), watched: row.watched === 1 };
}

/** What a write changed: whether anything did, and the watched jobs it saw end (succeeded or failed). */
export interface TrainingWrite {
  readonly changed: boolean;
  readonly ended: TrainingJob[];
  /**
   * Whether a job came into an active status it did not have: new and pending or running (a submit, a
   * job another client submitted), or a status change among the active ones (running, canceling).
   * The watcher then polls from its shortest interval: a status the user just caused must not wait
   * out a backoff grown while other jobs ran unchanged (a short job could end unseen).
   */
  readonly activated: boolean;
}

const UPSERT = `INSERT INTO training_jobs (id, org_id, status, created_on, job, cached_at) VALUES (?, ?, ?, ?, ?, ?)
  ON CONFLICT (id) DO UPDATE SET org_id = excluded.org_id, status = excluded.status, created_on = excluded.created_on, job = excluded.job, cached_at = excluded.cached_at`;

/** Upsert `jobs`, noting which changed and which watched ones went from active to succeeded or failed. */
function put(db: CacheDb, jobs: readonly CachedJob[], at: string): TrainingWrite {
  const before = db.prepare('SELECT status, job FROM training_jobs WHERE id = ?');
  const upsert = db.prepare(UPSERT);
  const watched = db.prepare('SELECT 1 FROM training_watched WHERE job_id = ?').pluck();
  let changed = false;
  let activated = false;
  const ended: TrainingJob[] = [];
  for (const job of jobs) {
    const json = JSON.stringify(job);
    const old = before.get(job.id) as { status: TrainingStatus; job: string } | undefined;
    if (old?.job === json) continue;
    changed = true;
    upsert.run(job.id, job.orgId, job.status, job.createdOn, json, at);
    const wasActive = old === undefined || ACTIVE_TRAINING_STATUSES.includes(old.status);
    if (old?.status !== job.status && ACTIVE_TRAINING_STATUSES.includes(job.status)) activated = true;
    if (wasActive && (job.status === 'succeeded' || job.status === 'failed') && watched.get(job.id) !== undefined) {
      ended.push({ ...job, watched: true });
    }
  }
  return { changed, ended, activated };
}

/** Store jobs read one by one (a Get, a submit, a poll) without touching the organization's others. */
export function putTrainingJobs(db: CacheDb, jobs: readonly CachedJob[], at: string): TrainingWrite {
  return db.transaction(() => put(db, jobs, at))();
}

/**
 * Make the organization's cached jobs equal to `jobs`, the service's whole list, in one transaction:
 * a failure halfway leaves the previous list. Jobs no longer listed (deleted elsewhere) go, and so
 * does their watch.
 */
export function replaceTrainingJobs(db: CacheDb, orgId: string, jobs: readonly CachedJob[], at: string): TrainingWrite {
  return db.transaction(() => {
    const keep = new Set(jobs.map((j) => j.id));
    const existing = db.prepare('SELECT id FROM training_jobs WHERE org_id = ?').pluck().all(orgId) as string[];
    const gone = existing.filter((id) => !keep.has(id));
    removeJobs(db, gone);
    const write = put(db, jobs, at);
    markSynced(db, trainingResourceKey(orgId), at);
    db.prepare('DELETE FROM sync_state WHERE resource = ?').run(modifiedKey(orgId));
    noteModified(db, orgId, jobs);
    return { ...write, changed: write.changed || gone.length > 0 };
  })();
}

/**
 * Merge the jobs the service listed as changed since the organization's last read (ListTrainingJobs'
 * modified_since) into its cached ones, in one transaction: jobs not listed did not change and are
 * not touched. Deletions elsewhere are not seen here; a whole list now and then finds them.
 */
export function mergeTrainingJobs(db: CacheDb, orgId: string, jobs: readonly CachedJob[], at: string): TrainingWrite {
  return db.transaction(() => {
    const write = put(db, jobs, at);
    markSynced(db, trainingResourceKey(orgId), at);
    noteModified(db, orgId, jobs);
    return write;
  })();
}

function removeJobs(db: CacheDb, ids: readonly string[]): void {
  const job = db.prepare('DELETE FROM training_jobs WHERE id = ?');
  const watch = db.prepare('DELETE FROM training_watched WHERE job_id = ?');
  for (const id of ids) {
    job.run(id);
    watch.run(id);
  }
}

/** Forget deleted jobs (and their watch). */
export function removeTrainingJobs(db: CacheDb, ids: readonly string[]): void {
  db.transaction(() => removeJobs(db, ids))();
}

/** Forget the jobs of organizations the profile no longer sees. */
export function dropTrainingExcept(db: CacheDb, orgIds: readonly string[]): void {
  const keep = new Set(orgIds);
  db.transaction(() => {
    const orgs = db.prepare('SELECT DISTINCT org_id FROM training_jobs').pluck().all() as string[];
    for (const orgId of orgs) {
      if (keep.has(orgId)) continue;
      removeJobs(db, db.prepare('SELECT id FROM training_jobs WHERE org_id = ?').pluck().all(orgId) as string[]);
      db.prepare('DELETE FROM sync_state WHERE resource IN (?, ?)').run(trainingResourceKey(orgId), modifiedKey(orgId));
    }
  })();
}

export function setWatched(db: CacheDb, jobId: string, watch: boolean, at: string): void {
  if (watch) db.prepare('INSERT INTO training_watched (job_id, since) VALUES (?, ?) ON CONFLICT (job_id) DO NOTHING').run(jobId, at);
  else db.prepare('DELETE FROM training_watched WHERE job_id = ?').run(jobId);
}

/** A part of a list: at most `limit` jobs (null: all), starting after `after` (null: from the first). */
export interface TrainingListPart {
  readonly limit: number | null;
  readonly after: TrainingListAfter | null;
}

/**
 * The SQL condition "comes after `after`" in the order `created_on DESC, id` (SQLite puts NULLs
 * last when descending), with its parameters: a keyset, so a part is read through the
 * (org_id, created_on DESC, id) index from where the last one stopped, whatever was added before it.
 */
function afterCondition(after: TrainingListAfter): { sql: string; params: string[] } {
  if (after.createdOn === null) return { sql: ' AND j.created_on IS NULL AND j.id > ?', params: [after.id] };
  return {
    sql: ' AND (j.created_on < ? OR (j.created_on = ? AND j.id > ?) OR j.created_on IS NULL)',
    params: [after.createdOn, after.createdOn, after.id],
  };
}

/**
 * An organization's cached jobs, newest first, optionally of one status; with `part`, only that
 * part of the list (the first screenful of a page, then the rest).
 */
export function listTrainingJobs(db: CacheDb, orgId: string, status: TrainingStatus | null, part: TrainingListPart = { limit: null, after: null }): TrainingJob[] {
  let sql = `${SELECT} WHERE j.org_id = ?`;
  const params: (string | number)[] = [orgId];
  if (status) {
    sql += ' AND j.status = ?';
    params.push(status);
  }
  if (part.after) {
    const after = afterCondition(part.after);
    sql += after.sql;
    params.push(...after.params);
  }
  sql += ' ORDER BY j.created_on DESC, j.id';
  if (part.limit !== null) {
    sql += ' LIMIT ?';
    params.push(part.limit);
  }
  return (db.prepare(sql).all(...params) as Row[]).map(fromRow);
}

/**
 * An organization's cached jobs written at `since` or later (`cached_at`: a write that changed
 * nothing keeps the old time), newest first: what a page holding the list since then lacks.
 */
export function changedTrainingJobs(db: CacheDb, orgId: string, since: string): TrainingJob[] {
  return (db.prepare(`${SELECT} WHERE j.org_id = ? AND j.cached_at >= ? ORDER BY j.created_on DESC, j.id`).all(orgId, since) as Row[]).map(fromRow);
}

/** How many jobs of the organization the cache holds. */
export function countTrainingJobs(db: CacheDb, orgId: string): number {
  return db.prepare('SELECT count(*) FROM training_jobs WHERE org_id = ?').pluck().get(orgId) as number;
}

export function getTrainingJob(db: CacheDb, jobId: string): TrainingJob | null {
  const row = db.prepare(`${SELECT} WHERE j.id = ?`).get(jobId) as Row | undefined;
  return row ? fromRow(row) : null;
}

/** Cached jobs still changing by themselves (pending, running, canceling): what the watcher polls. */
export function activeTrainingJobs(db: CacheDb): TrainingJob[] {
  return (db.prepare(`${SELECT} WHERE j.status IN ('pending', 'running', 'canceling') ORDER BY j.created_on, j.id`).all() as Row[]).map(fromRow);
}

export function trainingSummary(db: CacheDb): TrainingSummary {
  const rows = db.prepare(`SELECT org_id, status, count(*) AS n FROM training_jobs WHERE status IN ('pending', 'running') GROUP BY org_id, status`).all() as {
    org_id: string;
    status: 'pending' | 'running';
    n: number;
  }[];
  const byOrg: Record<string, { running: number; pending: number }> = {};
  let running = 0;
  let pending = 0;
  for (const row of rows) {
    const org = (byOrg[row.org_id] ??= { running: 0, pending: 0 });
    org[row.status] = row.n;
    if (row.status === 'running') running += row.n;
    else pending += row.n;
  }
  return { running, pending, byOrg };
}

/** When the organization's jobs were last listed whole from the service; null when never. */
export function trainingSyncedAt(db: CacheDb, orgId: string): string | null {
  return syncedAt(db, trainingResourceKey(orgId));
}

/** The last time a job of the organization trained on each dataset. */
export function datasetsLastUsed(db: CacheDb, orgId: string): Map<string, string> {
  const rows = db
    .prepare(`SELECT json_extract(job, '$.datasetId') AS dataset, max(created_on) AS at FROM training_jobs WHERE org_id = ? AND created_on IS NOT NULL GROUP BY dataset`)
    .all(orgId) as { dataset: string; at: string }[];
  return new Map(rows.map((r) => [r.dataset, r.at]));
}
