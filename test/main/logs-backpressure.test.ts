/**
 * Backpressure of the log tails, through the real backend, service (forked, 2,000 lines a second)
 * and cache worker: with main's queue bound set to a single byte, the queue overflows all the time —
 * messages arriving while it is full are dropped, and each part fills what it lost once the worker
 * has written the queue — and with a one-byte write bound, each write takes one part, the rest waits;
 * the cache still ends with every line the service logged, once each.
 */
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLive } from '../../common/machines';
import { FleetClient } from '../../main/grpc/client';
import { forkService } from '../../main/local-service/supervisor';
import { serviceLogEntries } from '../helpers/service-logs';
import { openTestBackend, tempDir, type TestBackend } from '../helpers/backend';

let dir: ReturnType<typeof tempDir>;
let app: TestBackend;

beforeAll(async () => {
  dir = tempDir('fleet-desk-logs-pressure-');
  app = await openTestBackend(dir.path, {
    spawnService: (entry, args, options) => forkService(entry, [...args, '--log-rate', '2000'], options),
    timing: { retryMinMs: 100, retryMaxMs: 500, refreshMs: 60_000, deadlineMs: 5_000, tailRetryMinMs: 100, tailRetryMaxMs: 400, tailMaxQueuedBytes: 1, tailMaxWriteBytes: 1 },
  });
  await app.backend.start();
}, 60_000);
afterAll(async () => {
  await app.close();
  dir.remove();
});

async function serviceIds(id: string): Promise<{ id: string; timeMs: number }[]> {
  const credentials = JSON.parse(readFileSync(join(dir.path, 'local-service', 'bootstrap-credentials.json'), 'utf8')) as { api_key_id: string; api_key: string };
  const { address } = await app.value('connection.get', {});
  const client = new FleetClient({ address, tls: false, apiKeyId: credentials.api_key_id, apiKey: credentials.api_key });
  try {
    return await serviceLogEntries(client, id);
  } finally {
    client.close();
  }
}

describe('log tails under backpressure', () => {
  it('drop what arrives while the queue is full, fill it once the cache worker has caught up, and lose nothing', async () => {
    const acme = (await app.value('orgs.list', {})).orgs.find((o) => o.name === 'Acme Warehouse Robotics')!.id;
    const tree = await app.value('locations.tree', { orgId: acme });
    const now = Date.now();
    const parts = tree.machines.flatMap((m) => m.parts.filter((p) => isLive(p.lastAccess, now)).map((p) => p.id)).slice(0, 40);
    expect(parts.length).toBeGreaterThan(5);
    const opened = Date.now();
    const view = await app.value('logs.open', { partIds: parts });
    // Each mechanism has to have run a few times; how soon depends on how fast this machine writes
    // (a fixed 6 s saw 5 overflows on one run), so wait for it, bounded.
    const stats = app.backend.logStats;
    await expect.poll(() => Math.min(stats.overflows, stats.fills, stats.splitWrites), { timeout: 30_000, interval: 250 }).toBeGreaterThan(5);
    // And the service has logged for a while under that pressure (it began when the view opened):
    // the lines compared below are those of these seconds.
    await new Promise((r) => setTimeout(r, Math.max(0, opened + 6_000 - Date.now())));
    // Every line the service logged up to now must reach the cache, once. How soon depends on the
    // machine's load (the worker writes one part per write here), so this waits for it, up to a bound:
    // a line lost for good still fails, a line late under load does not.
    const horizon = Date.now() - 1000;
    const db = new Database(join(dir.path, 'profiles', 'local', 'cache.sqlite'), { readonly: true });
    try {
      const cachedOf = db.prepare('SELECT entry_id FROM logs WHERE part_id = ?').pluck();
      const check = async (): Promise<{ missing: string[]; duplicates: string[]; compared: number }> => {
        const out = { missing: [] as string[], duplicates: [] as string[], compared: 0 };
        for (const id of parts) {
          const cached = cachedOf.all(id) as string[];
          const have = new Set(cached);
          if (have.size !== cached.length) out.duplicates.push(id);
          const service = await serviceIds(id);
          const oldestCached = Math.min(...service.filter((e) => have.has(e.id)).map((e) => e.timeMs));
          const due = service.filter((e) => e.timeMs >= oldestCached && e.timeMs <= horizon);
          out.missing.push(...due.filter((e) => !have.has(e.id)).map((e) => `${id}/${e.id}`));
          out.compared += due.length;
        }
        return out;
      };
      let result = await check();
      for (const deadline = Date.now() + 30_000; result.missing.length > 0 && Date.now() < deadline; result = await check()) {
        await new Promise((r) => setTimeout(r, 500));
      }
      expect(result.duplicates, 'parts with a line cached twice').toEqual([]);
      expect(result.missing, 'lines the service logged and the cache never got').toEqual([]);
      expect(result.compared).toBeGreaterThan(1000);
    } finally {
      db.close();
    }
    const state = await app.value('logs.status', {});
    expect(parts.every((p) => state[p]?.state === 'live')).toBe(true);
    await app.value('logs.close', { viewId: view.viewId });
  }, 90_000);
});
