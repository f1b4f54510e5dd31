// GetRobotPartLogs over a real socket: the spec's defaults (num_log_entries absent = 100, 0 = all,
// the first N or all), newest first, filter (substring of the message), levels, source, time range,
// limit/page_token paging under the total cap, and every error PROTOCOL.md lists. Entries are
// written with the service's own LogStore on a second connection, as the simulation writes them.
import type { Metadata } from '@grpc/grpc-js';
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LogStore, type LogLevel, type NewLogEntry } from '../../service/logs/store';
import { appCall, expectError, ownerMetadata, startTestService, type TestService } from './helpers';

let t: TestService;
let owner: Metadata;
let partId: string;
let quietPartId: string;
const T0 = Date.parse('2026-11-01T00:00:00.000Z') * 1000;
const LEVELS: LogLevel[] = ['DEBUG', 'INFO', 'WARN', 'ERROR'];
/** 250 entries, one a second: every 4th an ERROR…, sources alternating, "motor" in every 10th. */
const entries: NewLogEntry[] = [];

beforeAll(async () => {
  t = await startTestService();
  owner = await ownerMetadata(t);
  const orgId = (await appCall(t, 'createOrganization', { name: 'Logs Co' }, owner)).organization!.id;
  const locationId = (await appCall(t, 'createLocation', { orgId, name: 'Site' }, owner)).location!.id;
  const robotId = (await appCall(t, 'newRobot', { name: 'bot', locationId }, owner)).id;
  const quietId = (await appCall(t, 'newRobot', { name: 'quiet', locationId }, owner)).id;
  partId = (await appCall(t, 'getRobotParts', { robotId }, owner)).parts[0]!.id;
  quietPartId = (await appCall(t, 'getRobotParts', { robotId: quietId }, owner)).parts[0]!.id;
  for (let i = 0; i < 250; i++) {
    entries.push({
      partId,
      timeUs: T0 + i * 1_000_000,
      level: LEVELS[i % 4]!,
      message: i % 10 === 0 ? `motor ${i} stalled` : `tick ${i}`,
      source: i % 2 === 0 ? 'rdk.robot_server' : 'module.camera',
      host: 'bot-main',
      caller: i % 4 === 3 ? { file: 'server.go', line: i } : null,
      stack: i % 4 === 3 ? `goroutine ${i} [running]:\nmain.go:12` : '',
      fields: i % 5 === 0 ? [{ attempt: i }] : [],
    });
  }
  const db = t.db();
  new LogStore(db).append(entries);
  db.close();
});
afterAll(async () => {
  await t.stop();
});

const get = (request: Parameters<typeof appCall<'getRobotPartLogs'>>[2]) => appCall(t, 'getRobotPartLogs', { robotPartId: partId, ...request }, owner);
const messages = (logs: { message: string }[]) => logs.map((l) => l.message);
/** Every page of a listing, following next_page_token. */
async function all(request: Parameters<typeof appCall<'getRobotPartLogs'>>[2]) {
  const out: { message: string; level: string; source: string }[] = [];
  let pageToken = '';
  let pages = 0;
  do {
    const r = await get({ ...request, pageToken });
    out.push(...r.logs);
    pageToken = r.nextPageToken;
    pages += 1;
  } while (pageToken !== '');
  return { logs: out, pages };
}

describe('GetRobotPartLogs', () => {
  it('answers the newest 100 when num_log_entries is absent, newest first, with every field of the entry', async () => {
    const r = await get({});
    expect(r.logs).toHaveLength(100);
    expect(r.nextPageToken).toBe('');
    expect(r.logs[0]).toMatchObject({ message: 'tick 249', level: 'INFO', source: 'module.camera', host: 'bot-main', caller: undefined, stack: '', fields: [] });
    expect(r.logs[2]).toMatchObject({ message: 'tick 247', level: 'ERROR', caller: { file: 'server.go', line: 247 }, stack: expect.stringContaining('goroutine 247') });
    expect(r.logs[0]!.time!.toISOString()).toBe(new Date((T0 + 249_000_000) / 1000).toISOString());
    expect(r.logs[4]).toMatchObject({ message: 'tick 245', fields: [{ attempt: 245 }] });
    expect(messages(r.logs).at(-1)).toBe('motor 150 stalled');
  });

  it('answers all with num_log_entries = 0, and the first N (or all, whichever comes first) otherwise, however the pages are cut', async () => {
    expect((await all({ numLogEntries: 0, limit: 1000 })).logs).toHaveLength(250);
    const paged = await all({ numLogEntries: 0, limit: 60 });
    expect(paged.pages).toBe(5);
    expect(messages(paged.logs)).toEqual(entries.map((e) => e.message).reverse());
    const capped = await all({ numLogEntries: 130, limit: 50 });
    expect(capped.pages).toBe(3);
    expect(capped.logs).toHaveLength(130);
    expect((await all({ numLogEntries: 5000 })).logs).toHaveLength(250);
  });

  it('filters by a substring of the message, by levels (any case), by source and by time range (inclusive)', async () => {
    expect(messages((await get({ filter: 'motor', numLogEntries: 0 })).logs)).toEqual(entries.filter((e) => e.message.includes('motor')).map((e) => e.message).reverse());
    expect((await get({ filter: 'MOTOR' })).logs).toEqual([]);
    const errorsAndWarnings = (await all({ logLevels: ['error', 'Warn'], numLogEntries: 0 })).logs;
    expect(errorsAndWarnings).toHaveLength(124);
    expect(new Set(errorsAndWarnings.map((l) => l.level))).toEqual(new Set(['ERROR', 'WARN']));
    const camera = (await all({ source: 'module.camera', numLogEntries: 0 })).logs;
    expect(camera).toHaveLength(125);
    expect(camera.every((l) => l.source === 'module.camera')).toBe(true);
    const range = await get({ start: new Date((T0 + 10_000_000) / 1000), end: new Date((T0 + 19_000_000) / 1000), numLogEntries: 0 });
    expect(messages(range.logs)).toEqual(['tick 19', 'tick 18', 'tick 17', 'tick 16', 'tick 15', 'tick 14', 'tick 13', 'tick 12', 'tick 11', 'motor 10 stalled']);
    expect((await get({ filter: 'motor', logLevels: ['DEBUG'], source: 'rdk.robot_server', numLogEntries: 0 })).logs).toHaveLength(13);
  });

  it('answers an empty list for a part that logged nothing', async () => {
    expect(await appCall(t, 'getRobotPartLogs', { robotPartId: quietPartId }, owner)).toEqual({ logs: [], nextPageToken: '' });
  });

  it('refuses what PROTOCOL.md lists, with the reason and the field', async () => {
    await expectError(appCall(t, 'getRobotPartLogs', { robotPartId: '' }, owner), { code: status.INVALID_ARGUMENT, reason: 'REQUIRED_FIELD_MISSING', field: 'robot_part_id' });
    await expectError(appCall(t, 'getRobotPartLogs', { robotPartId: 'no-such-part' }, owner), { code: status.NOT_FOUND, reason: 'ROBOT_PART_NOT_FOUND' });
    await expectError(get({ logLevels: ['INFO', 'verbose'] }), { code: status.INVALID_ARGUMENT, reason: 'LOG_LEVEL_INVALID', field: 'log_levels[1]' });
    await expectError(get({ numLogEntries: -1 }), { code: status.INVALID_ARGUMENT, reason: 'PAGE_SIZE_INVALID', field: 'num_log_entries' });
    await expectError(get({ limit: -1 }), { code: status.INVALID_ARGUMENT, reason: 'PAGE_SIZE_INVALID', field: 'limit' });
    await expectError(get({ start: new Date(2000), end: new Date(1000) }), { code: status.INVALID_ARGUMENT, reason: 'TIME_RANGE_INVALID', field: 'start' });
    await expectError(get({ pageToken: 'garbage' }), { code: status.INVALID_ARGUMENT, reason: 'PAGE_TOKEN_INVALID', field: 'page_token' });
    // A token is bound to its listing: another filter cannot use it.
    const first = await get({ numLogEntries: 0, limit: 10 });
    await expectError(get({ numLogEntries: 0, limit: 10, filter: 'tick', pageToken: first.nextPageToken }), { code: status.INVALID_ARGUMENT, reason: 'PAGE_TOKEN_INVALID' });
  });
});
