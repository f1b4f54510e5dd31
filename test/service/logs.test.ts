// GetRobotPartLogs over a real socket: the spec's defaults (num_log_entries absent = 100, 0 = all,
// the first N or all), newest first, filter (substring of the message), levels, source, time range,
// limit/page_token paging under the total cap, and every error PROTOCOL.md lists. Entries are
// written with the service's own LogStore on a second connection, as the simulation writes them.
import type { ClientReadableStream, Metadata, ServiceError } from '@grpc/grpc-js';
import { status } from '@grpc/grpc-js';
import { ApiKeyStore } from '../../service/access/keys';
import { TAIL_BUFFER } from '../../service/logs/handlers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LogStore, type LogLevel, type NewLogEntry } from '../../service/logs/store';
import { appCall, expectError, openStream, ownerMetadata, scopedKey, startTestService, streamAdmitted, type TestService } from './helpers';
import type { TailRobotPartLogsResponse } from '../../proto/gen/fleet/app/v1/logs';

let t: TestService;
let owner: Metadata;
let partId: string;
let quietPartId: string;
let orgId: string;
let robotId: string;
const T0 = Date.parse('2026-11-01T00:00:00.000Z') * 1000;
const LEVELS: LogLevel[] = ['DEBUG', 'INFO', 'WARN', 'ERROR'];
/** 250 entries, one a second: every 4th an ERROR…, sources alternating, "motor" in every 10th. */
const entries: NewLogEntry[] = [];

beforeAll(async () => {
  t = await startTestService({ tailCheckMs: 200 });
  owner = await ownerMetadata(t);
  orgId = (await appCall(t, 'createOrganization', { name: 'Logs Co' }, owner)).organization!.id;
  const locationId = (await appCall(t, 'createLocation', { orgId, name: 'Site' }, owner)).location!.id;
  robotId = (await appCall(t, 'newRobot', { name: 'bot', locationId }, owner)).id;
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
  new LogStore(t.db()).append(entries);
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

/** Store entries for `part` now, as the simulation would (another connection to the database). */
function store(part: string, items: { level: LogLevel; message: string }[]): void {
  const now = Date.now() * 1000;
  new LogStore(t.db()).append(items.map((e, i) => ({ partId: part, timeUs: now + i, level: e.level, message: e.message, source: 'test' })));
}

/** A tail, collecting what it receives and how it ended. */
function tail(request: Record<string, unknown>, metadata = owner, on?: TestService) {
  const stream = openStream(on ?? t, 'tailRobotPartLogs', { robotPartId: partId, filter: '', ...request }, metadata) as ClientReadableStream<TailRobotPartLogsResponse>;
  const received: TailRobotPartLogsResponse[] = [];
  stream.on('data', (m: TailRobotPartLogsResponse) => received.push(m));
  const ended = new Promise<ServiceError | 'end'>((resolve) => {
    stream.on('error', (e: ServiceError) => resolve(e));
    stream.on('end', () => resolve('end'));
  });
  const messages = () => received.flatMap((m) => m.logs.map((l) => l.message));
  // The service sends its headers once the tail is subscribed: from then on, nothing stored is missed
  // (a wait of a few hundred ms guessed at it, and lost the race on a loaded machine).
  const admitted = new Promise<void>((resolve) => stream.once('metadata', () => resolve()));
  return { stream, received, ended, messages, admitted };
}

const until = async (what: () => boolean, ms = 5_000) => {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('TailRobotPartLogs', () => {
  it('streams only entries stored after it started, oldest first; errors only unless errors_only is false; the filter applies', async () => {
    store(partId, [{ level: 'ERROR', message: 'before the tail' }]);
    const errors = tail({});
    const everything = tail({ errorsOnly: false });
    const filtered = tail({ errorsOnly: false, filter: 'motor' });
    await Promise.all([errors, everything, filtered].map((x) => x.admitted));
    store(partId, [
      { level: 'INFO', message: 'info one' },
      { level: 'ERROR', message: 'motor error one' },
      { level: 'WARN', message: 'motor warn' },
      { level: 'ERROR', message: 'error two' },
    ]);
    store(quietPartId, [{ level: 'ERROR', message: 'another part' }]);
    await until(() => errors.messages().length >= 2 && everything.messages().length >= 4 && filtered.messages().length >= 2);
    expect(errors.messages()).toEqual(['motor error one', 'error two']);
    expect(everything.messages()).toEqual(['info one', 'motor error one', 'motor warn', 'error two']);
    expect(filtered.messages()).toEqual(['motor error one', 'motor warn']);
    // An entry has the same id in the stream and in a listing, and ids are unique: clients deduplicate on them.
    const streamed = everything.received.flatMap((m) => m.logs);
    const listed = (await get({ numLogEntries: 5, logLevels: [] })).logs.filter((l) => l.message !== 'before the tail').slice(0, 4).reverse();
    expect(streamed.map((l) => l.id)).toEqual(listed.map((l) => l.id));
    expect(new Set(streamed.map((l) => l.id)).size).toBe(4);
    expect(streamed.every((l) => /^\d+$/.test(l.id))).toBe(true);
    expect(everything.received.every((m) => Number(m.dropped) === 0)).toBe(true);
    for (const x of [errors, everything, filtered]) x.stream.cancel();
    for (const x of [errors, everything, filtered]) expect(((await x.ended) as ServiceError).code).toBe(status.CANCELLED);
    // The service keeps serving.
    expect((await get({ numLogEntries: 1 })).logs).toHaveLength(1);
  });

  it('is refused before streaming for an unknown part, an empty id, or a caller without a role on the machine', async () => {
    await expectError(streamAdmitted(openStream(t, 'tailRobotPartLogs', { robotPartId: 'no-such-part' }, owner)), { code: status.NOT_FOUND, reason: 'ROBOT_PART_NOT_FOUND' });
    await expectError(streamAdmitted(openStream(t, 'tailRobotPartLogs', { robotPartId: '' }, owner)), { code: status.INVALID_ARGUMENT, reason: 'REQUIRED_FIELD_MISSING' });
    const other = await appCall(t, 'createOrganization', { name: 'Elsewhere' }, owner);
    const outsider = await scopedKey(t, [{ resourceType: 'organization', resourceId: other.organization!.id, role: 'owner', organizationId: other.organization!.id }]);
    await expectError(streamAdmitted(openStream(t, 'tailRobotPartLogs', { robotPartId: partId }, outsider.metadata)), { code: status.NOT_FOUND });
  });

  it('ends with UNAUTHENTICATED (API_KEY_DELETED) when its key is deleted, and with NOT_FOUND when its part is', async () => {
    const key = await scopedKey(t, [{ resourceType: 'robot', resourceId: robotId, role: 'operator', organizationId: orgId }]);
    const keyed = tail({}, key.metadata);
    await keyed.admitted;
    new ApiKeyStore(t.db()).delete(key.keyId);
    const ended = (await keyed.ended) as ServiceError;
    expect(ended.code).toBe(status.UNAUTHENTICATED);
    expect(ended.metadata.get('fleet-error-reason')).toEqual(['API_KEY_DELETED']);

    const extra = (await appCall(t, 'newRobotPart', { robotId, partName: 'bot-doomed' }, owner)).partId;
    const doomed = tail({ robotPartId: extra });
    await doomed.admitted;
    await appCall(t, 'deleteRobotPart', { robotPartId: extra }, owner);
    expect(((await doomed.ended) as ServiceError).code).toBe(status.NOT_FOUND);
  });

  it(`keeps at most ${TAIL_BUFFER} entries for a reader that does not keep up, and says how many it dropped`, async () => {
    const slow = tail({ errorsOnly: false, filter: 'flood' });
    slow.stream.pause();
    await slow.admitted;
    const total = 30_000;
    const padding = 'x'.repeat(1000);
    for (let i = 0; i < total; i += 5_000) store(partId, Array.from({ length: 5_000 }, (_, j) => ({ level: 'INFO' as const, message: `flood ${i + j} ${padding}` })));
    await new Promise((r) => setTimeout(r, 1_500));
    slow.stream.resume();
    const count = () => slow.messages().length + slow.received.reduce((sum, m) => sum + Number(m.dropped), 0);
    await until(() => count() >= total, 15_000);
    const dropped = slow.received.reduce((sum, m) => sum + Number(m.dropped), 0);
    expect(dropped).toBeGreaterThan(0);
    expect(count()).toBe(total);
    // What arrived is in order, with the gaps where entries were dropped.
    const numbers = slow.messages().map((m) => Number(m.split(' ')[1]));
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    slow.stream.cancel();
  }, 30_000);

  it('serves 200 tails at once: each receives every entry once, in order, none fails, and the service serves on after they are cancelled', async () => {
    const tails = Array.from({ length: 200 }, () => tail({ errorsOnly: false, filter: 'crowd' }));
    await Promise.all(tails.map((x) => x.admitted));
    for (let round = 0; round < 10; round++) store(partId, Array.from({ length: 500 }, (_, i) => ({ level: 'INFO' as const, message: `crowd ${round * 500 + i}` })));
    const expected = Array.from({ length: 5_000 }, (_, i) => `crowd ${i}`);
    await until(() => tails.every((x) => x.messages().length >= 5_000), 40_000);
    for (const x of tails) {
      expect(x.messages()).toEqual(expected);
      expect(x.received.every((m) => Number(m.dropped) === 0)).toBe(true);
    }
    for (const x of tails) x.stream.cancel();
    const endings = await Promise.all(tails.map((x) => x.ended));
    expect(endings.every((e) => e !== 'end' && e.code === status.CANCELLED)).toBe(true);
    // The service still answers, and no tail is left behind in it.
    expect((await get({ numLogEntries: 1 })).logs).toHaveLength(1);
  }, 60_000);

  it('ends with UNAVAILABLE when the service shuts down', async () => {
    const other = await startTestService();
    const md = await ownerMetadata(other);
    const org = (await appCall(other, 'createOrganization', { name: 'Shutdown Co' }, md)).organization!.id;
    const loc = (await appCall(other, 'createLocation', { orgId: org, name: 'Site' }, md)).location!.id;
    const robot = (await appCall(other, 'newRobot', { name: 'bot', locationId: loc }, md)).id;
    const part = (await appCall(other, 'getRobotParts', { robotId: robot }, md)).parts[0]!.id;
    const open = tail({ robotPartId: part }, md, other);
    await new Promise((r) => setTimeout(r, 200));
    const stopping = other.stop();
    const ended = (await open.ended) as ServiceError;
    expect(ended.code).toBe(status.UNAVAILABLE);
    await stopping;
  });
});

