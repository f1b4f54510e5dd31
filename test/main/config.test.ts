/**
 * Part configs through the backend, as the renderer calls them, against a real fleet service on a
 * loopback port, with two apps (real backends, real SQLite caches) editing the same parts: the text
 * kept verbatim, the conflict a stale save gets, paging through history, offline reads from the
 * cache after the service stops, and payloads the bridge refuses before anything reaches the service.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelNames } from '../../common/channel-names';
import { FleetClient } from '../../main/grpc/client';
import { trustedSender } from '../helpers/backend';
import { startConfigFleet, type ConfigFleet } from '../helpers/config-fleet';

let fleet: ConfigFleet;

beforeAll(async () => {
  fleet = await startConfigFleet('config');
}, 60_000);
afterAll(async () => {
  await fleet?.close();
});

/** The bridge error of a call expected to fail. */
async function failure(result: Promise<{ ok: boolean; error?: { kind: string; message: string } }>) {
  const r = await result;
  expect(r.ok).toBe(false);
  return r.error!;
}

describe('reading and saving a part config', () => {
  it('keeps the text verbatim (spacing, key order) and answers lastUpdated, which moves with every save', async () => {
    const { partId, machineId } = await fleet.machine('verbatim');
    const read = await fleet.a.value('config.part', { partId });
    expect(read).toMatchObject({ partId, machineId, fromCache: false, draft: null });
    expect(JSON.parse(read.configJson)).toEqual({});
    const text = '{\n    "zeta": 1,\n  "alpha":   {"b": 2, "a": [3, 1]},\n  "components": []\n}';
    const saved = await fleet.a.value('config.save', { partId, configJson: text, lastUpdated: read.lastUpdated });
    expect(saved.configJson).toBe(text);
    expect(saved.lastUpdated > read.lastUpdated).toBe(true);
    // The other app reads exactly the same text from the service.
    expect((await fleet.b.value('config.part', { partId })).configJson).toBe(text);
    expect((await fleet.a.value('config.part', { partId })).lastUpdated).toBe(saved.lastUpdated);
  });

  it('refuses a stale save from the second app as a conflict that says so, changes nothing, and takes the merge saved with the new lastUpdated', async () => {
    const { partId } = await fleet.machine('two-editors');
    const startA = await fleet.a.value('config.part', { partId });
    const startB = await fleet.b.value('config.part', { partId });
    expect(startB.lastUpdated).toBe(startA.lastUpdated);
    const mine = await fleet.a.value('config.save', { partId, configJson: '{"components": [{"name": "arm"}]}', lastUpdated: startA.lastUpdated });

    const conflict = await failure(fleet.b.call('config.save', { partId, configJson: '{"services": [{"name": "nav"}]}', lastUpdated: startB.lastUpdated }));
    expect(conflict.kind).toBe('conflict');
    expect(conflict.message).toMatch(/someone else changed/i);
    expect(conflict.message).toMatch(/merge/);
    // Nothing changed at the service.
    const now = await fleet.b.value('config.part', { partId });
    expect(now.configJson).toBe(mine.configJson);
    expect(now.lastUpdated).toBe(mine.lastUpdated);
    // The merge, saved with the lastUpdated just read, goes through; and A's old token is stale now.
    const merged = '{"components": [{"name": "arm"}], "services": [{"name": "nav"}]}';
    expect((await fleet.b.value('config.save', { partId, configJson: merged, lastUpdated: now.lastUpdated })).configJson).toBe(merged);
    expect((await failure(fleet.a.call('config.save', { partId, configJson: '{}', lastUpdated: mine.lastUpdated }))).kind).toBe('conflict');
    expect((await fleet.a.value('config.part', { partId })).configJson).toBe(merged);
  });

  it('passes on what the service refuses in a config with its reason, as invalid, and an unknown part as not-found', async () => {
    const { partId } = await fleet.machine('refused');
    const { lastUpdated } = await fleet.a.value('config.part', { partId });
    const unknown = await failure(fleet.a.call('config.save', { partId, configJson: '{"fragments": ["no-such-fragment"]}', lastUpdated }));
    expect(unknown.kind).toBe('invalid');
    expect(unknown.message).toMatch(/no-such-fragment/);
    expect(JSON.parse((await fleet.a.value('config.part', { partId })).configJson)).toEqual({});
    expect((await failure(fleet.a.call('config.part', { partId: 'no-such-part' }))).kind).toBe('not-found');
    expect((await failure(fleet.a.call('config.save', { partId: 'no-such-part', configJson: '{}', lastUpdated }))).kind).toBe('not-found');
  });

  it('never writes a part secret to the cache', async () => {
    const { partId } = await fleet.machine('secretive');
    await fleet.a.value('config.part', { partId });
    const client = new FleetClient(fleet.target);
    try {
      const part = (await client.call('read the part', client.app.getRobotPart, { robotPartId: partId })).part!;
      expect(part.secrets.length).toBeGreaterThan(0);
      const cacheDir = join(fleet.dir, 'a', 'profiles', (await fleet.a.value('profiles.list', {})).activeId!);
      const bytes = readdirSync(cacheDir)
        .filter((f) => f.startsWith('cache.sqlite'))
        .map((f) => readFileSync(join(cacheDir, f)).toString('latin1'))
        .join('');
      expect(bytes).toContain(partId);
      for (const secret of part.secrets) expect(bytes).not.toContain(secret.secret);
    } finally {
      client.close();
    }
  });
});

/** Save `count` configs in turn (`{"n": 1}`, `{"n": 2}`, …), each with the lastUpdated the one before answered. */
async function saveSeries(partId: string, count: number): Promise<string[]> {
  let { lastUpdated } = await fleet.a.value('config.part', { partId });
  const texts: string[] = [];
  for (let n = 1; n <= count; n++) {
    const text = `{"n": ${n}}`;
    ({ lastUpdated } = await fleet.a.value('config.save', { partId, configJson: text, lastUpdated }));
    texts.push(text);
  }
  return texts;
}

describe('part history', () => {
  it('pages newest first, each entry with who, when and the previous config and name, to the end', async () => {
    const { partId } = await fleet.machine('history-pages');
    await saveSeries(partId, 23);
    const seen: { when: string | null; n: unknown }[] = [];
    let pageToken: string | undefined;
    let pages = 0;
    do {
      const page = await fleet.b.value('config.history', { partId, pageSize: 10, ...(pageToken ? { pageToken } : {}) });
      expect(page.fromCache).toBe(false);
      expect(page.entries.length).toBeLessThanOrEqual(10);
      for (const entry of page.entries) {
        expect(entry.editedBy).toMatchObject({ kind: 'key', id: fleet.target.apiKeyId });
        expect(entry.editedBy!.displayName).not.toBe('');
        expect(entry.previous.name).toBe('history-pages-main');
        seen.push({ when: entry.when, n: (JSON.parse(entry.previous.configJson) as { n?: number }).n });
      }
      pageToken = page.nextPageToken || undefined;
      pages += 1;
    } while (pageToken && pages < 10);
    expect(pages).toBe(3);
    // Save k found config k-1 (the first found the empty config).
    expect(seen.map((e) => e.n)).toEqual([...Array.from({ length: 22 }, (_, i) => 22 - i), undefined]);
    const whens = seen.map((e) => e.when!);
    expect([...whens].sort().reverse()).toEqual(whens);
  });

  it('refuses a page token it did not give out, as invalid', async () => {
    const { partId } = await fleet.machine('history-token');
    const bad = await failure(fleet.a.call('config.history', { partId, pageToken: 'forged' }));
    expect(bad.kind).toBe('invalid');
    expect(bad.message).toMatch(/not a page token this app gave out/);
  });
});

describe('payloads the bridge refuses, with what is wrong', () => {
  const channels = channelNames.filter((c) => c.startsWith('config.') || c.startsWith('fragments.'));

  it.each(channels)('%s refuses a field it does not know, naming it', async (channel) => {
    const result = await fleet.a.host.dispatch(trustedSender, channel, { partId: 'p', fragmentId: 'f', machineId: 'm', orgId: 'o', unexpected: true });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.kind).toBe('invalid');
      expect(result.error.message).toContain(`Invalid ${channel} request`);
      expect(result.error.message).toMatch(/unexpected/);
    }
  });

  it.each(channels.filter((c) => c !== 'config.drafts' && c !== 'fragments.drafts'))('%s refuses a payload without its id, naming it', async (channel) => {
    const result = await fleet.a.host.dispatch(trustedSender, channel, {});
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.kind).toBe('invalid');
      expect(result.error.message).toMatch(/(partId|fragmentId|machineId|orgId)/);
    }
  });

  const long = `{"a": "${'x'.repeat(1.5 * 1024 * 1024)}"}`;
  const deep = `${'['.repeat(60)}${'{"a":'.repeat(50)}1${'}'.repeat(50)}${']'.repeat(60)}`;
  it.each([
    ['config.part', {}, /partId/],
    ['config.part', { partId: '' }, /partId must not be empty/],
    ['config.part', { partId: 'p', extra: 1 }, /extra/],
    ['config.save', { partId: 'p', configJson: '[1, 2]', lastUpdated: '2026-01-01T00:00:00.000Z' }, /configJson must be a JSON object/],
    ['config.save', { partId: 'p', configJson: '{"a": ', lastUpdated: '2026-01-01T00:00:00.000Z' }, /configJson is not valid JSON/],
    ['config.save', { partId: 'p', configJson: 'null', lastUpdated: '2026-01-01T00:00:00.000Z' }, /configJson must be a JSON object/],
    ['config.save', { partId: 'p', configJson: long, lastUpdated: '2026-01-01T00:00:00.000Z' }, /configJson .*1\.5 MiB/],
    ['config.save', { partId: 'p', configJson: `{"d": ${deep}}`, lastUpdated: '2026-01-01T00:00:00.000Z' }, /configJson nests more than 32 levels/],
    ['config.save', { partId: 'p', configJson: '{}', lastUpdated: 'yesterday' }, /lastUpdated must be an ISO-8601 time/],
    ['config.save', { partId: 'p', configJson: '{}' }, /lastUpdated/],
    ['config.save', { partId: 'p', configJson: 42, lastUpdated: '2026-01-01T00:00:00.000Z' }, /configJson/],
    ['config.history', { partId: 'p', pageSize: 0 }, /pageSize must be at least 1/],
    ['config.history', { partId: 'p', pageSize: 1001 }, /pageSize is at most 1000/],
    ['config.history', { partId: 'p', pageSize: 2.5 }, /pageSize must be a whole number/],
    ['config.history', { partId: 'p', pageToken: 'x'.repeat(5000) }, /pageToken is not a page token/],
  ])('%s %#', async (channel, payload, message) => {
    const result = await fleet.a.host.dispatch(trustedSender, channel, payload);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.kind).toBe('invalid');
      expect(result.error.message).toMatch(message);
    }
  });
});

describe('offline, after the service stops', () => {
  let partId: string;
  let saved: { configJson: string; lastUpdated: string };
  /** The history as read online, page by page (5 a page), with the token each page gave. */
  const online: { entries: readonly unknown[]; nextPageToken: string }[] = [];

  beforeAll(async () => {
    ({ partId } = await fleet.machine('offline-reader'));
    await saveSeries(partId, 12);
    const { lastUpdated } = await fleet.a.value('config.part', { partId });
    saved = await fleet.a.value('config.save', { partId, configJson: '{\n  "components": [{"name": "cam", "model": "rgb"}]\n}', lastUpdated });
    // Two of the three pages read online: the third was never read, so offline has nothing of it.
    let pageToken: string | undefined;
    for (let i = 0; i < 2; i++) {
      const page = await fleet.a.value('config.history', { partId, pageSize: 5, ...(pageToken ? { pageToken } : {}) });
      online.push(page);
      pageToken = page.nextPageToken;
    }
    await fleet.stopService();
  });
  afterAll(async () => {
    await fleet.startService();
  });

  it('reads a part config from the cache, saying so and since when', async () => {
    const read = await fleet.a.value('config.part', { partId });
    expect(read).toMatchObject({ partId, configJson: saved.configJson, lastUpdated: saved.lastUpdated, fromCache: true });
    expect(Date.parse(read.syncedAt)).not.toBeNaN();
    expect((await fleet.a.value('connection.get', {})).status).toBe('offline');
  });

  it('pages through the history read online, from the cache: with the tokens given online and from the first page again', async () => {
    const first = await fleet.a.value('config.history', { partId, pageSize: 5 });
    expect(first.fromCache).toBe(true);
    expect(first.syncedAt).not.toBeNull();
    expect(first.entries).toEqual(online[0]!.entries);
    const second = await fleet.a.value('config.history', { partId, pageSize: 5, pageToken: first.nextPageToken });
    expect(second.entries).toEqual(online[1]!.entries);
    // The token the service gave for the third page: the cache never held it, so the history ends here.
    const third = await fleet.a.value('config.history', { partId, pageSize: 5, pageToken: online[1]!.nextPageToken });
    expect(third).toMatchObject({ entries: [], nextPageToken: '', fromCache: true });
    expect(second.nextPageToken).toBe('');
    // Other page sizes cut the same cached entries differently.
    const all = await fleet.a.value('config.history', { partId, pageSize: 100 });
    expect(all.entries).toEqual([...online[0]!.entries, ...online[1]!.entries]);
  });

  it('says a config never read is not in the cache, and that a save needs the service and changed nothing', async () => {
    const never = await failure(fleet.b.call('config.part', { partId }));
    expect(never.kind).toBe('offline');
    expect(never.message).toMatch(/not in the cache/);
    const save = await failure(fleet.a.call('config.save', { partId, configJson: '{}', lastUpdated: saved.lastUpdated }));
    expect(save.kind).toBe('offline');
    expect(save.message).toMatch(/Nothing was changed/);
  });
});

describe('drafts: an edit made offline, kept across a restart, saved (conflict-checked) when the service is back', () => {
  it('keeps the edit, offers it after a restart of the app, refuses it as a conflict when someone saved meanwhile, and drops it once the merge is saved', async () => {
    const { partId, machineId } = await fleet.machine('draft-conflict');
    const base = await fleet.a.value('config.part', { partId });
    // Someone else saves while this app is about to lose the service.
    const theirs = await fleet.b.value('config.save', { partId, configJson: '{"services": [{"name": "theirs"}]}', lastUpdated: (await fleet.b.value('config.part', { partId })).lastUpdated });
    await fleet.stopService();
    try {
      const mine = '{\n  "components": [{"name": "mine"}]\n}';
      expect((await failure(fleet.a.call('config.save', { partId, configJson: mine, lastUpdated: base.lastUpdated }))).kind).toBe('offline');
      const kept = await fleet.a.value('config.saveDraft', { partId, configJson: mine, baseConfigJson: base.configJson, baseLastUpdated: base.lastUpdated });
      expect(kept).toMatchObject({ partId, machineId, partName: 'draft-conflict-main', configJson: mine, baseConfigJson: base.configJson, baseLastUpdated: base.lastUpdated });
      expect((await fleet.a.value('config.part', { partId })).draft).toEqual(kept);

      await fleet.restartA();
      expect((await fleet.a.value('connection.get', {})).status).toBe('offline');
      expect(await fleet.a.value('config.drafts', {})).toContainEqual(kept);
      expect(await fleet.a.value('config.draft', { partId })).toEqual(kept);
      expect((await fleet.a.value('config.part', { partId })).draft).toEqual(kept);
    } finally {
      await fleet.startService();
    }
    expect((await fleet.a.value('connection.get', {})).status).toBe('online');

    const draft = (await fleet.a.value('config.draft', { partId }))!;
    const conflict = await failure(fleet.a.call('config.save', { partId, configJson: draft.configJson, lastUpdated: draft.baseLastUpdated }));
    expect(conflict.kind).toBe('conflict');
    // Refused: the draft stays for the merge.
    expect(await fleet.a.value('config.draft', { partId })).toEqual(draft);
    const current = await fleet.a.value('config.part', { partId });
    expect(current).toMatchObject({ configJson: theirs.configJson, fromCache: false, draft });
    const merged = '{"components": [{"name": "mine"}], "services": [{"name": "theirs"}]}';
    await fleet.a.value('config.save', { partId, configJson: merged, lastUpdated: current.lastUpdated });
    expect(await fleet.a.value('config.draft', { partId })).toBeNull();
    expect((await fleet.a.value('config.drafts', {})).map((d) => d.partId)).not.toContain(partId);
    expect((await fleet.b.value('config.part', { partId })).configJson).toBe(merged);
  });

  it('saves a draft nobody raced with its base token, and keeps, replaces and drops drafts of parts never read here', async () => {
    const { partId } = await fleet.machine('draft-clean');
    const base = await fleet.a.value('config.part', { partId });
    await fleet.a.value('config.saveDraft', { partId, configJson: '{"a": 1}', baseConfigJson: base.configJson, baseLastUpdated: base.lastUpdated });
    const replaced = await fleet.a.value('config.saveDraft', { partId, configJson: '{"a": 2}', baseConfigJson: base.configJson, baseLastUpdated: base.lastUpdated });
    expect(replaced.configJson).toBe('{"a": 2}');
    const saved = await fleet.a.value('config.save', { partId, configJson: replaced.configJson, lastUpdated: replaced.baseLastUpdated });
    expect(saved).toMatchObject({ configJson: '{"a": 2}', draft: null });

    const unknown = await fleet.a.value('config.saveDraft', { partId: 'never-read', configJson: '{}', baseConfigJson: '{}', baseLastUpdated: '2026-01-01T00:00:00.000Z' });
    expect(unknown).toMatchObject({ partId: 'never-read', machineId: '', partName: '' });
    expect(await fleet.a.value('config.dropDraft', { partId: 'never-read' })).toEqual({});
    expect(await fleet.a.value('config.draft', { partId: 'never-read' })).toBeNull();
  });

  it.each([
    [{ partId: 'p', configJson: '{}', baseConfigJson: '{}' }, /baseLastUpdated/],
    [{ partId: 'p', configJson: '{', baseConfigJson: '{}', baseLastUpdated: '2026-01-01T00:00:00.000Z' }, /configJson is not valid JSON/],
    [{ partId: 'p', configJson: '{}', baseConfigJson: '[]', baseLastUpdated: '2026-01-01T00:00:00.000Z' }, /baseConfigJson must be a JSON object/],
  ])('refuses a bad draft %#', async (payload, message) => {
    const result = await fleet.a.host.dispatch(trustedSender, 'config.saveDraft', payload);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.kind).toBe('invalid');
      expect(result.error.message).toMatch(message);
    }
  });
});
