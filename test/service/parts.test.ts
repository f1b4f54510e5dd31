// Part configs over a real socket: UpdateRobotPart changes only name and config, keeps
// robot_config_json verbatim (key order and all), refuses configs that are no object or do not
// resolve, and refuses a stale last_known_update; every change of a part (name, config, main flag,
// restart flag) leaves a history entry with the previous state, when and who; GetRobotPartHistory
// pages it newest first.
import type { Metadata } from '@grpc/grpc-js';
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appCall, expectError, ownerMetadata, scopedKey, startTestService, type TestService } from './helpers';
import { MAX_CONFIG_DEPTH } from '../../fleetconfig';

let t: TestService;
let owner: Metadata;
let orgId: string;
let machines = 0;
beforeAll(async () => {
  t = await startTestService();
  owner = await ownerMetadata(t);
  orgId = (await appCall(t, 'createOrganization', { name: 'Parts Co' }, owner)).organization!.id;
});
afterAll(async () => {
  await t.stop();
});

/** A new machine in a new location: its id and its main part. */
async function machine(): Promise<{ robotId: string; locationId: string; part: { id: string; name: string; lastUpdated: Date } }> {
  machines += 1;
  const locationId = (await appCall(t, 'createLocation', { orgId, name: `Site ${machines}` }, owner)).location!.id;
  const robotId = (await appCall(t, 'newRobot', { name: `bot-${machines}`, locationId }, owner)).id;
  const main = (await appCall(t, 'getRobotParts', { robotId }, owner)).parts[0]!;
  return { robotId, locationId, part: { id: main.id, name: main.name, lastUpdated: main.lastUpdated! } };
}

const read = (partId: string) => appCall(t, 'getRobotPart', { robotPartId: partId }, owner);
const history = async (partId: string, md = owner) => (await appCall(t, 'getRobotPartHistory', { robotPartId: partId }, md)).history;

describe('UpdateRobotPart', () => {
  it('stores robot_config_json verbatim and reads it back with its key order, over robot_config; changes only name and config', async () => {
    const { robotId, locationId, part } = await machine();
    const text = '{\n  "services": [],\n  "components": [{"name": "z", "type": "camera"}, {"name": "a", "type": "arm"}],\n  "2": "digit keys stay where they were",\n  "agent": {"b": 1, "a": 2}\n}';
    const answered = (await appCall(t, 'updateRobotPart', { robotPartId: part.id, name: part.name, robotConfigJson: text, robotConfig: { ignored: true } }, owner)).part!;
    expect(answered).toMatchObject({ id: part.id, name: part.name, robotId, locationId, mainPart: true });
    expect(answered.robotConfig).toEqual(JSON.parse(text));
    expect(answered.lastUpdated!.getTime()).toBeGreaterThan(part.lastUpdated.getTime());
    const stored = await read(part.id);
    expect(stored.configJson).toBe(text);
    expect(stored.part!.robotConfig).toEqual(JSON.parse(text));
    expect((await appCall(t, 'getRobotParts', { robotId }, owner)).parts[0]!.robotConfig).toEqual(JSON.parse(text));
    expect((await appCall(t, 'getRobotPartByNameAndLocation', { name: part.name, locationId }, owner)).part!.robotConfig).toEqual(JSON.parse(text));

    // robot_config alone is stored as its JSON.
    await appCall(t, 'updateRobotPart', { robotPartId: part.id, name: 'renamed-main', robotConfig: { components: [{ name: 'base', type: 'base' }] } }, owner);
    expect((await read(part.id)).configJson).toBe('{"components":[{"name":"base","type":"base"}]}');
    // No config: the name changes and the config stays.
    await appCall(t, 'updateRobotPart', { robotPartId: part.id, name: '  trimmed  ' }, owner);
    const after = await read(part.id);
    expect(after.part).toMatchObject({ name: 'trimmed', robotId, locationId, mainPart: true });
    expect(after.configJson).toBe('{"components":[{"name":"base","type":"base"}]}');
  });

  it('refuses a config that is no JSON object, or too deep, or does not resolve, keeping the stored one', async () => {
    const { part } = await machine();
    await appCall(t, 'updateRobotPart', { robotPartId: part.id, name: part.name, robotConfigJson: '{"kept": true}' }, owner);
    const refuse = (request: { robotConfigJson?: string; robotConfig?: Record<string, unknown> }, field: string, message: RegExp) =>
      expectError(appCall(t, 'updateRobotPart', { robotPartId: part.id, name: part.name, ...request }, owner), { code: status.INVALID_ARGUMENT, reason: 'CONFIG_INVALID', field, message });
    await refuse({ robotConfigJson: '[1, 2]' }, 'robot_config_json', /must be a JSON object, not an array/);
    await refuse({ robotConfigJson: 'null' }, 'robot_config_json', /not null/);
    await refuse({ robotConfigJson: '"text"' }, 'robot_config_json', /not a string/);
    await refuse({ robotConfigJson: '{"a": ' }, 'robot_config_json', /not valid JSON/);
    await refuse({ robotConfigJson: '' }, 'robot_config_json', /not valid JSON/);
    // JSON.parse quotes the text it stopped at, cut short, sometimes halfway through an emoji: the lone
    // surrogate left must not keep the answer from being sent (grpc-js cannot encode it).
    await refuse({ robotConfigJson: `x${'😀'.repeat(30)}` }, 'robot_config_json', /not valid JSON/);
    await refuse({ robotConfigJson: `${'{"a":'.repeat(33)}1${'}'.repeat(33)}` }, 'robot_config_json', /nests more than 32 levels/);
    await refuse({ robotConfigJson: `{"a": "${'x'.repeat(1_600_000)}"}` }, 'robot_config_json', /MiB/);
    await refuse({ robotConfigJson: '{"fragments": "abc"}' }, 'robot_config_json', /fragments must be an array/);
    await refuse({ robotConfigJson: '{"fragments": [{"version": "1"}]}' }, 'robot_config_json', /fragments\[0\] has no id/);
    await refuse({ robotConfig: { fragments: ['00000000-0000-4000-8000-000000000000'] } }, 'robot_config', /fragments\[0\] names fragment "00000000-0000-4000-8000-000000000000", which does not exist or which this organization cannot read/);
    await refuse({ robotConfig: { fragment_mods: [{ fragment_id: 'x', mods: [{ $push: {} }] }] } }, 'robot_config', /fragment_mods\[0\]\.mods\[0\] must be an object with one key/);
    expect((await read(part.id)).configJson).toBe('{"kept": true}');
    expect(await history(part.id)).toHaveLength(1);
  });

  it('stores the deepest config allowed, and every read of the part decodes it (answered as a Struct too)', async () => {
    // The bound is what a client's Struct decoder reads back: a text one level deeper once made every
    // later GetRobotPart and GetRobotPartHistory of the part fail to decode on the client (INTERNAL).
    const { part } = await machine();
    const deepest = `${'{"a":'.repeat(MAX_CONFIG_DEPTH)}1${'}'.repeat(MAX_CONFIG_DEPTH)}`;
    const arrays = `{"a": ${'['.repeat(MAX_CONFIG_DEPTH - 1)}1${']'.repeat(MAX_CONFIG_DEPTH - 1)}}`;
    for (const text of [deepest, arrays]) {
      const saved = await appCall(t, 'updateRobotPart', { robotPartId: part.id, name: part.name, robotConfigJson: text }, owner);
      expect(saved.part!.robotConfig).toEqual(JSON.parse(text));
      expect((await read(part.id)).configJson).toBe(text);
    }
    // The newest change's previous state is the deepest objects' config.
    expect((await history(part.id))[0]!.old!.robotConfig).toEqual(JSON.parse(deepest));
  });

  it('refuses a blank, too long or taken name', async () => {
    const { robotId, part } = await machine();
    const other = (await appCall(t, 'newRobotPart', { robotId, partName: `${part.name}-cam` }, owner)).partId;
    await expectError(appCall(t, 'updateRobotPart', { robotPartId: part.id, name: ' ' }, owner), { code: status.INVALID_ARGUMENT, reason: 'REQUIRED_FIELD_MISSING', field: 'name' });
    await expectError(appCall(t, 'updateRobotPart', { robotPartId: part.id, name: 'x'.repeat(201) }, owner), { code: status.INVALID_ARGUMENT, reason: 'FIELD_TOO_LONG', field: 'name' });
    await expectError(appCall(t, 'updateRobotPart', { robotPartId: other, name: part.name }, owner), { code: status.ALREADY_EXISTS, reason: 'NAME_TAKEN' });
    await expectError(appCall(t, 'updateRobotPart', { robotPartId: '00000000-0000-4000-8000-000000000000', name: 'x' }, owner), { code: status.NOT_FOUND, reason: 'ROBOT_PART_NOT_FOUND' });
  });

  it('needs owner on the machine: a machine owner saves, a machine operator reads the history but may not save', async () => {
    const { robotId, part } = await machine();
    const machineOwner = await scopedKey(t, [{ resourceType: 'robot', resourceId: robotId, role: 'owner', organizationId: orgId }]);
    const machineOperator = await scopedKey(t, [{ resourceType: 'robot', resourceId: robotId, role: 'operator', organizationId: orgId }]);
    await appCall(t, 'updateRobotPart', { robotPartId: part.id, name: part.name, robotConfigJson: '{"by": "machine owner"}' }, machineOwner.metadata);
    await expectError(appCall(t, 'updateRobotPart', { robotPartId: part.id, name: part.name, robotConfigJson: '{}' }, machineOperator.metadata), {
      code: status.PERMISSION_DENIED,
      reason: 'PERMISSION_DENIED',
      message: /needs owner on the machine of part/,
    });
    expect((await history(part.id, machineOperator.metadata)).map((e) => e.editedBy!.identityId)).toEqual([machineOwner.keyId]);
  });

  it('last_known_update earlier than the stored config is ABORTED (STALE_UPDATE); the current one goes through; absent overwrites', async () => {
    const { part } = await machine();
    const first = (await read(part.id)).part!.lastUpdated!;
    // Two editors read the same state; the first save wins, the second is told to merge.
    const a = await appCall(t, 'updateRobotPart', { robotPartId: part.id, name: part.name, robotConfigJson: '{"by": "a"}', lastKnownUpdate: first }, owner);
    await expectError(appCall(t, 'updateRobotPart', { robotPartId: part.id, name: part.name, robotConfigJson: '{"by": "b"}', lastKnownUpdate: first }, owner), {
      code: status.ABORTED,
      reason: 'STALE_UPDATE',
      message: /was changed at .*after the last_known_update given.*read it again, merge/,
    });
    expect((await read(part.id)).configJson).toBe('{"by": "a"}');
    // The merged save names the new last_updated.
    const b = await appCall(t, 'updateRobotPart', { robotPartId: part.id, name: part.name, robotConfigJson: '{"by": "a and b"}', lastKnownUpdate: a.part!.lastUpdated }, owner);
    expect(b.part!.lastUpdated!.getTime()).toBeGreaterThan(a.part!.lastUpdated!.getTime());
    // A rename is a change of the part too: a stale save of the config after it is refused.
    await appCall(t, 'updateRobotPart', { robotPartId: part.id, name: `${part.name}-x` }, owner);
    await expectError(appCall(t, 'updateRobotPart', { robotPartId: part.id, name: part.name, robotConfigJson: '{}', lastKnownUpdate: b.part!.lastUpdated }, owner), { code: status.ABORTED, reason: 'STALE_UPDATE' });
    await appCall(t, 'updateRobotPart', { robotPartId: part.id, name: part.name, robotConfigJson: '{"blind": true}' }, owner);
    expect((await read(part.id)).configJson).toBe('{"blind": true}');
  });

  it('of many concurrent saves from one read, exactly one wins', async () => {
    const { part } = await machine();
    const seen = (await read(part.id)).part!.lastUpdated!;
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        appCall(t, 'updateRobotPart', { robotPartId: part.id, name: part.name, robotConfigJson: `{"writer": ${i}}`, lastKnownUpdate: seen }, owner).then(
          () => 'ok',
          (e: { code: status }) => e.code,
        ),
      ),
    );
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(1);
    expect(outcomes.filter((o) => o === status.ABORTED)).toHaveLength(7);
    expect(await history(part.id)).toHaveLength(1);
  });
});

describe('part history', () => {
  it('keeps the previous state, when and who, for every change of name, config, main flag and restart flag, newest first', async () => {
    const { robotId, part } = await machine();
    const editor = await scopedKey(t, [{ resourceType: 'organization', resourceId: orgId, role: 'owner', organizationId: orgId }]);
    const before = Date.now();
    await appCall(t, 'updateRobotPart', { robotPartId: part.id, name: part.name, robotConfigJson: '{"v": 1}' }, owner);
    await appCall(t, 'updateRobotPart', { robotPartId: part.id, name: `${part.name}-renamed`, robotConfigJson: '{"v": 2,  "spaced": true}' }, editor.metadata);
    // Nothing changes: no entry.
    await appCall(t, 'updateRobotPart', { robotPartId: part.id, name: `${part.name}-renamed` }, owner);
    await appCall(t, 'markPartForRestart', { robotPartId: part.id }, editor.metadata);
    await appCall(t, 'markPartForRestart', { robotPartId: part.id }, editor.metadata);
    const cam = (await appCall(t, 'newRobotPart', { robotId, partName: `${part.name}-cam` }, owner)).partId;
    await appCall(t, 'markPartAsMain', { robotPartId: cam }, owner);
    await appCall(t, 'markPartAsMain', { robotPartId: cam }, owner);

    const entries = await history(part.id);
    expect(entries.map((e) => [e.old!.name, JSON.stringify(e.old!.robotConfig), e.old!.markedForRestart, e.old!.mainPart, e.editedBy!.displayName])).toEqual([
      [`${part.name}-renamed`, '{"v":2,"spaced":true}', true, true, 'bootstrap'],
      [`${part.name}-renamed`, '{"v":2,"spaced":true}', false, true, 'scoped'],
      [part.name, '{"v":1}', false, true, 'scoped'],
      [part.name, '{}', false, true, 'bootstrap'],
    ]);
    for (const e of entries) {
      expect(e).toMatchObject({ partId: part.id, robotId });
      expect(e.when!.getTime()).toBeGreaterThanOrEqual(before - 1000);
      expect(e.old!.secrets).toHaveLength(1);
      expect(e.old!.secrets[0]!.secret).toBe('');
    }
    expect(entries[1]!.editedBy).toEqual({ identityType: '', identityId: editor.keyId, displayName: 'scoped' });
    expect(entries.map((e) => e.when!.getTime())).toEqual(entries.map((e) => e.when!.getTime()).sort((a, b) => b - a));
    // A config change's entry is stamped with the part's new last_updated: the old state's own is in `old`.
    expect(entries[3]!.old!.lastUpdated!.getTime()).toBe(part.lastUpdated.getTime());
    // The part that became main has its own entry (it was not main before).
    const camHistory = await history(cam);
    expect(camHistory.map((e) => e.old!.mainPart)).toEqual([false]);
  });

  it('pages newest first with page_size and page_token, tokens bound to the part', async () => {
    const { robotId, part } = await machine();
    for (let i = 1; i <= 7; i++) await appCall(t, 'updateRobotPart', { robotPartId: part.id, name: part.name, robotConfigJson: `{"n": ${i}}` }, owner);
    const seen: number[] = [];
    let token = '';
    let pages = 0;
    do {
      const page = await appCall(t, 'getRobotPartHistory', { robotPartId: part.id, pageSize: 3, pageToken: token }, owner);
      seen.push(...page.history.map((e) => ((e.old!.robotConfig as { n?: number }).n ?? 0)));
      token = page.nextPageToken;
      pages += 1;
    } while (token !== '' && pages < 10);
    expect(seen).toEqual([6, 5, 4, 3, 2, 1, 0]);
    expect(pages).toBe(3);
    const first = await appCall(t, 'getRobotPartHistory', { robotPartId: part.id, pageSize: 2 }, owner);
    const other = (await appCall(t, 'newRobotPart', { robotId, partName: `${part.name}-arm` }, owner)).partId;
    await expectError(appCall(t, 'getRobotPartHistory', { robotPartId: other, pageToken: first.nextPageToken }, owner), { code: status.INVALID_ARGUMENT, reason: 'PAGE_TOKEN_INVALID' });
    await expectError(appCall(t, 'getRobotPartHistory', { robotPartId: part.id, pageSize: -1 }, owner), { code: status.INVALID_ARGUMENT, reason: 'PAGE_SIZE_INVALID', field: 'page_size' });
    await expectError(appCall(t, 'getRobotPartHistory', { robotPartId: '00000000-0000-4000-8000-000000000000' }, owner), { code: status.NOT_FOUND, reason: 'ROBOT_PART_NOT_FOUND' });
  });

  it('goes with its machine', async () => {
    const { robotId, part } = await machine();
    await appCall(t, 'updateRobotPart', { robotPartId: part.id, name: part.name, robotConfigJson: '{"x": 1}' }, owner);
    await appCall(t, 'deleteRobot', { robotId }, owner);
    expect(t.db().prepare('SELECT count(*) FROM robot_part_history WHERE part_id = ?').pluck().get(part.id)).toBe(0);
  });
});
