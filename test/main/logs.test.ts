/**
 * Logs through the real backend and bridge router, against the real embedded service (forked, demo
 * fleet logging 2,000 lines a second across its live parts), the real cache file and worker: a view
 * gets history then live lines in batches; filters, errors and the histogram; the tail survives a
 * service restart with no gap and no duplicate (checked against the service's own log); the cache
 * is searchable offline; exports are written by main; retention evicts.
 */
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogViewUpdate, TailStatuses } from '../../common/logs';
import { isLive } from '../../common/machines';
import { FleetClient } from '../../main/grpc/client';
import { FLUSH_MS } from '../../main/logs/tails';
import { forkService } from '../../main/local-service/supervisor';
import { serviceLogEntries } from '../helpers/service-logs';
import { openTestBackend, tempDir, type TestBackend } from '../helpers/backend';

let dir: ReturnType<typeof tempDir>;
let app: TestBackend;
let partId: string;
let machineParts: string[];
/** Every live part of the organization (a merged view of them all takes most of the demo's lines). */
let liveParts: string[];
const updates: LogViewUpdate[] = [];
let statuses: TailStatuses = {};

beforeAll(async () => {
  dir = tempDir('fleet-desk-logs-');
  app = await openTestBackend(dir.path, {
    spawnService: (entry, args, options) => forkService(entry, [...args, '--log-rate', '2000'], options),
    timing: { retryMinMs: 100, retryMaxMs: 500, refreshMs: 60_000, deadlineMs: 5_000, tailRetryMinMs: 100, tailRetryMaxMs: 400 },
  });
  await app.backend.start();
  const acme = (await app.value('orgs.list', {})).orgs.find((o) => o.name === 'Acme Warehouse Robotics')!.id;
  const tree = await app.value('locations.tree', { orgId: acme });
  const now = Date.now();
  const live = tree.machines.filter((m) => m.parts.length > 1 && m.parts.every((p) => isLive(p.lastAccess, now)));
  machineParts = live[0]!.parts.map((p) => p.id);
  liveParts = tree.machines.flatMap((m) => m.parts.filter((p) => isLive(p.lastAccess, now)).map((p) => p.id)).slice(0, 200);
  partId = machineParts[0]!;
  // Let the demo log for a moment, as a service that has been running would have.
  await new Promise((r) => setTimeout(r, 1500));
  app.backend.events.subscribe((event, payload) => {
    if (event === 'logs.view') updates.push(payload as LogViewUpdate);
    if (event === 'logs.tails') statuses = payload as TailStatuses;
  });
}, 60_000);
afterAll(async () => {
  await app.close();
  dir.remove();
});

const until = async (check: () => boolean | Promise<boolean>, timeoutMs = 15_000, what = 'condition') => {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

/** The service's own log of a part, every entry, read with the local service's bootstrap key. */
async function serviceLog(id: string): Promise<{ id: string; timeMs: number }[]> {
  const credentials = JSON.parse(readFileSync(join(dir.path, 'local-service', 'bootstrap-credentials.json'), 'utf8')) as { api_key_id: string; api_key: string };
  const { address } = await app.value('connection.get', {});
  const client = new FleetClient({ address, tls: false, apiKeyId: credentials.api_key_id, apiKey: credentials.api_key });
  try {
    return await serviceLogEntries(client, id);
  } finally {
    client.close();
  }
}

/** The cache's entries of a part, read from the cache file itself. */
function cachedIds(id: string): string[] {
  const db = new Database(join(dir.path, 'profiles', 'local', 'cache.sqlite'), { readonly: true });
  try {
    return db.prepare('SELECT entry_id FROM logs WHERE part_id = ?').pluck().all(id) as string[];
  } finally {
    db.close();
  }
}

describe('a view of a live part', () => {
  it('opens with the recent history, then takes live lines, in time order', async () => {
    const view = await app.value('logs.open', { partIds: [partId] });
    expect(view.total).toBeGreaterThan(0);
    expect(view.sources.length).toBeGreaterThan(0);
    const start = view.total;
    await until(async () => (await app.value('logs.rows', { viewId: view.viewId, from: 0, count: 1 })).total > start + 10, 15_000, 'live lines');
    const rows = await app.value('logs.rows', { viewId: view.viewId, from: 0, count: 1000 });
    const keys = rows.lines.map((l) => l.key);
    expect([...keys].sort((a, b) => a - b)).toEqual(keys);
    expect(rows.lines.every((l) => l.partId === partId)).toBe(true);
    expect((await app.value('logs.status', {}))[partId]).toMatchObject({ state: 'live', error: null });
    await app.value('logs.close', { viewId: view.viewId });
  });

  it('merges many parts into one view, sent in batches: at most one message per view per flush, never one per line', async () => {
    const view = await app.value('logs.open', { partIds: liveParts });
    const from = updates.length;
    const started = Date.now();
    await new Promise((r) => setTimeout(r, 3000));
    const elapsed = Date.now() - started;
    const mine = updates.slice(from).filter((u) => u.viewId === view.viewId);
    const appended = mine.reduce((n, u) => n + u.appended, 0);
    expect(appended).toBeGreaterThan(1000);
    // One message per flush at most (a few more for fills landing in between).
    expect(mine.length).toBeLessThanOrEqual(Math.ceil(elapsed / FLUSH_MS) + 5);
    expect(appended / mine.length).toBeGreaterThan(10);
    const last = mine.at(-1)!;
    expect(last.lines.length).toBeGreaterThan(0);
    expect(last.linesFrom + last.lines.length).toBe(last.total);
    const rows = await app.value('logs.rows', { viewId: view.viewId, from: Math.max(0, last.total - 1000), count: 1000 });
    expect(new Set(rows.lines.map((l) => l.partId)).size).toBeGreaterThan(5);
    await app.value('logs.close', { viewId: view.viewId });
  });
});

describe('a broken tail', () => {
  it('reconnects after the service restarts, says when it was disconnected and for how long, and the cache has no gap and no duplicate', async () => {
    const view = await app.value('logs.open', { partIds: machineParts });
    await new Promise((r) => setTimeout(r, 1500));
    await app.value('localService.stop', {});
    await until(async () => Object.values(await app.value('logs.status', {})).every((s) => s.state === 'disconnected'), 15_000, 'tails disconnected');
    const down = await app.value('logs.status', {});
    expect(down[partId]!.error).toMatch(/reach|unavailable|shut/i);
    await new Promise((r) => setTimeout(r, 1000));
    await app.value('localService.start', {});
    await until(
      async () => machineParts.every((p) => {
        const s = statuses[p];
        return s?.state === 'live' && s.outages.length > 0;
      }),
      30_000,
      'tails live again with their outage',
    );
    const outage = statuses[partId]!.outages.at(-1)!;
    expect(outage.toMs - outage.fromMs).toBeGreaterThanOrEqual(900);
    // Let lines flow, then compare the cache with the service's own log, up to a moment ago (the demo
    // stamps lines up to a second ahead). The newest are still on their way, how long depends on the
    // machine's load: wait for them, bounded; a line lost for good still fails.
    await new Promise((r) => setTimeout(r, 2500));
    const horizon = Date.now() - 1500;
    const gaps = async (): Promise<{ duplicates: string[]; missing: string[]; fewest: number }> => {
      const out = { duplicates: [] as string[], missing: [] as string[], fewest: Infinity };
      for (const id of machineParts) {
        const cached = cachedIds(id);
        if (new Set(cached).size !== cached.length) out.duplicates.push(id);
        const service = await serviceLog(id);
        const oldestCached = Math.min(...service.filter((e) => cached.includes(e.id)).map((e) => e.timeMs));
        out.missing.push(...service.filter((e) => e.timeMs >= oldestCached && e.timeMs <= horizon && !cached.includes(e.id)).map((e) => `${id}/${e.id}`));
        out.fewest = Math.min(out.fewest, cached.length);
      }
      return out;
    };
    let found = await gaps();
    for (const deadline = Date.now() + 15_000; found.missing.length > 0 && Date.now() < deadline; found = await gaps()) await new Promise((r) => setTimeout(r, 500));
    expect(found.duplicates).toEqual([]);
    expect(found.missing).toEqual([]);
    expect(found.fewest).toBeGreaterThan(10);
    await app.value('logs.close', { viewId: view.viewId });
  }, 90_000);
});

describe('offline review', () => {
  it('searches every cached line of the fleet with the service stopped, newest first, with where each line comes from and when it was cached', async () => {
    const view = await app.value('logs.open', { partIds: machineParts });
    await app.value('localService.stop', {});
    await until(async () => (await app.value('connection.get', {})).status === 'offline', 15_000, 'offline');
    const all = await app.value('logs.search', { filter: {} });
    expect(all.hits.length).toBe(100);
    expect(all.more).toBe(true);
    const hit = all.hits[0]!;
    expect(hit.machineName).not.toBe('');
    expect(hit.partName).not.toBe('');
    expect(hit.cachedAtMs).toBeGreaterThan(0);
    expect(all.hits.map((h) => h.key)).toEqual([...all.hits.map((h) => h.key)].sort((a, b) => b - a));
    const word = hit.message.split(' ').find((w) => w.length >= 4) ?? hit.message.slice(0, 4);
    const found = await app.value('logs.search', { filter: { text: word.toUpperCase() } });
    expect(found.hits.length).toBeGreaterThan(0);
    expect(found.hits.every((h) => h.message.toLowerCase().includes(word.toLowerCase()))).toBe(true);
    const errors = await app.value('logs.search', { filter: { levels: ['ERROR'] } });
    expect(errors.hits.every((h) => h.level === 'ERROR')).toBe(true);
    // The view still reads from the cache.
    expect((await app.value('logs.rows', { viewId: view.viewId, from: 0, count: 10 })).lines.length).toBe(10);
    await app.value('localService.start', {});
    await until(async () => (await app.value('connection.get', {})).status === 'online', 30_000, 'online');
    await app.value('logs.close', { viewId: view.viewId });
  }, 60_000);
});

describe('export', () => {
  it('writes what the view shows, as text or JSON Lines, offered once for download in browser mode', async () => {
    const view = await app.value('logs.open', { partIds: [partId], filter: { levels: ['WARN', 'ERROR'] } });
    const shown = await app.value('logs.rows', { viewId: view.viewId, from: 0, count: 1000 });
    for (const format of ['text', 'jsonl'] as const) {
      const out = await app.value('logs.export', { viewId: view.viewId, format });
      expect(out.url).toMatch(/^\/downloads\/[\w-]+$/);
      expect(out.lines).toBeGreaterThanOrEqual(shown.total);
      const download = app.backend.downloads.take(out.url!.slice('/downloads/'.length))!;
      expect(download.name).toMatch(format === 'text' ? /\.log$/ : /\.jsonl$/);
      const text = readFileSync(download.path, 'utf8');
      const lines = text.trimEnd().split('\n');
      expect(lines.length).toBe(out.lines);
      expect(Buffer.byteLength(text)).toBe(out.bytes);
      if (format === 'jsonl') {
        const first = JSON.parse(lines[0]!) as { level: string; message: string; part: string };
        expect(first).toMatchObject({ level: shown.lines[0]!.level, message: shown.lines[0]!.message, part: partId });
        expect(lines.every((l) => ['WARN', 'ERROR'].includes((JSON.parse(l) as { level: string }).level))).toBe(true);
      } else {
        expect(lines[0]).toContain(shown.lines[0]!.message);
        expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z (WARN |ERROR) /);
      }
      expect(app.backend.downloads.take(out.url!.slice('/downloads/'.length))).toBeNull();
    }
    await app.value('logs.close', { viewId: view.viewId });
  });
});

describe('retention', () => {
  it('evicts the oldest lines beyond a new bound at once, and refuses bounds too small to be useful', async () => {
    const before = await app.value('logs.retention', {});
    expect(before.maxLines).toBe(2_000_000);
    expect(before.lines).toBeGreaterThan(2000);
    const after = await app.value('logs.setRetention', { maxLines: 1000, maxBytes: 1024 * 1024 * 1024 });
    expect(after.lines).toBeLessThanOrEqual(1000);
    expect(after.maxLines).toBe(1000);
    const refused = await app.call('logs.setRetention', { maxLines: 10, maxBytes: 10 });
    expect(refused.ok).toBe(false);
    await app.value('logs.setRetention', { maxLines: 2_000_000, maxBytes: 1024 * 1024 * 1024 });
  });
});
