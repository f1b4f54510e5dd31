/**
 * Issue #16: 20,000 PENDING training jobs of one organization must not slow the service down:
 * ListOrganizations p99 with them queued ≤ 1.5× its p99 with none, measured in the same run on the
 * same service.
 *
 * The service runs in its own process with its default training pace (120 s runs, a tick a second).
 * Baseline: ListOrganizations on a quiet service, one call every 10 ms (so that the calls span
 * several runner ticks, whatever they cost). Then 20,000 PENDING jobs of the bootstrap organization,
 * created an hour ago on a readable dataset, are written straight into the data dir's database by
 * a second connection (as a second service instance would; one transaction, well under a second:
 * submitting them by RPC would take minutes, and the queue's cap would refuse them); the runner
 * starts two of them and the rest wait. Measured: the same calls again.
 *
 *   npm run bench -- training-queue
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import { credentials, Metadata } from '@grpc/grpc-js';
import Database from 'better-sqlite3';
import { AppServiceClient } from '../proto/gen/fleet/app/v1/app';
import { AuthServiceClient } from '../proto/gen/fleet/auth/v1/auth';
import { machine, ms, percentile, report, startServiceProcess } from './lib';

const QUEUED = 20_000;
const SAMPLES = 500;
const WARMUP = 50;
/** One call this often: 500 calls span five ticks of the runner. */
const PACE_MS = 10;

function listOrganizations(app: AppServiceClient, md: Metadata): Promise<void> {
  return new Promise((resolve, reject) => app.listOrganizations({}, md, (e) => (e ? reject(e) : resolve())));
}

/** Latencies of `n` ListOrganizations calls, one every PACE_MS (or right after the previous one when it took longer). */
async function paced(app: AppServiceClient, md: Metadata, n: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await listOrganizations(app, md);
    const took = performance.now() - start;
    times.push(took);
    if (took < PACE_MS) await new Promise((r) => setTimeout(r, PACE_MS - took));
  }
  return times;
}

/** QUEUED PENDING jobs of the data dir's organization, an hour old, on a readable dataset; answers how long writing them took. */
function queueJobs(db: Database.Database): number {
  const start = performance.now();
  const orgId = db.prepare('SELECT id FROM organizations ORDER BY created_on LIMIT 1').pluck().get() as string;
  const datasetId = randomUUID();
  const created = Date.now() - 3_600_000;
  const job = db.prepare(
    `INSERT INTO training_jobs (id, organization_id, dataset_id, model_name, model_version, model_type, tags, is_custom, status, created_on, last_modified)
     VALUES (?, ?, ?, 'queued', ?, 3, '["pallet"]', 0, 1, ?, ?)`,
  );
  db.transaction(() => {
    db.prepare(`INSERT INTO training_datasets (id, organization_id, name, size_bytes, image_count, labels, created_on) VALUES (?, ?, 'Pallets', 1000000, 1200, '["pallet"]', ?)`).run(
      datasetId,
      orgId,
      new Date(created).toISOString(),
    );
    for (let i = 0; i < QUEUED; i++) {
      const at = new Date(created + i).toISOString();
      job.run(randomUUID(), orgId, datasetId, String(i + 1), at, at);
    }
  })();
  return performance.now() - start;
}

function counts(db: Database.Database): string {
  const rows = db.prepare('SELECT status, count(*) AS n FROM training_jobs GROUP BY status ORDER BY status').all() as { status: number; n: number }[];
  const names: Record<number, string> = { 1: 'PENDING', 2: 'RUNNING', 3: 'SUCCEEDED', 4: 'FAILED', 5: 'CANCELING', 6: 'CANCELED' };
  return rows.map((r) => `${r.n} ${names[r.status] ?? r.status}`).join(', ');
}

async function main(): Promise<boolean> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fleet-bench-'));
  const service = await startServiceProcess([], { dataDir });
  const auth = new AuthServiceClient(service.address, credentials.createInsecure());
  const app = new AppServiceClient(service.address, credentials.createInsecure());
  const db = new Database(join(dataDir, 'fleet.db'));
  try {
    db.pragma('busy_timeout = 5000');
    const token = await new Promise<string>((resolve, reject) =>
      auth.authenticate({ entity: service.apiKeyId, credentials: { type: 'api-key', payload: service.apiKey } }, (e, r) => (e ? reject(e) : resolve(r.accessToken))),
    );
    const md = new Metadata();
    md.set('authorization', `Bearer ${token}`);

    await paced(app, md, WARMUP);
    const unloaded = await paced(app, md, SAMPLES);

    const writing = queueJobs(db);
    // Two ticks: the runner has started what it may and settled on the queue.
    await new Promise((r) => setTimeout(r, 2_500));
    const before = counts(db);
    const loaded = await paced(app, md, SAMPLES);
    const after = counts(db);

    const base = percentile(unloaded, 99);
    const under = percentile(loaded, 99);
    console.log(`training-queue on ${machine()}`);
    console.log(`  no jobs: p50 ${ms(percentile(unloaded, 50))}, p99 ${ms(base)}, max ${ms(Math.max(...unloaded))} (${SAMPLES} ListOrganizations, one every ${PACE_MS} ms)`);
    console.log(`  ${QUEUED} jobs written in ${ms(writing)}; jobs before: ${before}; after: ${after}`);
    console.log(`  ${QUEUED} jobs queued: p50 ${ms(percentile(loaded, 50))}, p99 ${ms(under)}, max ${ms(Math.max(...loaded))}`);
    return report({
      name: `ListOrganizations with ${QUEUED} PENDING training jobs (p99)`,
      ratio: under / base,
      limit: 1.5,
      detail: `${ms(under)} vs ${ms(base)} with none`,
    });
  } finally {
    db.close();
    auth.close();
    app.close();
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

process.exitCode = (await main()) ? 0 : 1;
