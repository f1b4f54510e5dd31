import { describe, expect, it } from 'vitest';
import type { PartConfig, PartHistoryEntry } from '../../../../common/config';
import { err, ok } from '../../../../common/result';
import { fakeBridge, settle } from '../../lib/testing/fake-transport';
import { PartConfigPage } from './part-config.svelte';

const part = (configJson: string, lastUpdated: string): PartConfig => ({ partId: 'p1', machineId: 'm1', name: 'amr-1-main', configJson, lastUpdated, fromCache: false, syncedAt: lastUpdated, draft: null });
const entry = (configJson: string, when: string): PartHistoryEntry => ({
  partId: 'p1',
  when,
  editedBy: { kind: 'key', id: 'k1', displayName: 'ops key' },
  previous: { name: 'amr-1-main', configJson, mainPart: true, markedForRestart: false, lastUpdated: when },
});

const base = '{\n  "components": [\n    { "name": "base", "api": "rdk:component:base" },\n    { "name": "lidar", "api": "rdk:component:camera" },\n    { "name": "arm", "api": "rdk:component:arm" }\n  ],\n  "services": []\n}';

/** A page over main faked: `service` is what the service has now. */
async function setup() {
  const { transport, bridge } = fakeBridge();
  let service = part(base, '2026-11-26T10:00:00.000Z');
  transport
    .handle('config.part', () => ok(service))
    .handle('config.history', () => ok({ partId: 'p1', entries: [entry('{}', '2026-11-25T10:00:00.000Z')], nextPageToken: '', fromCache: false, syncedAt: null }))
    .handle('config.save', (r) => {
      if (r.lastUpdated !== service.lastUpdated) return err('conflict', 'Someone else changed this config since you read it; merge your edit with theirs.');
      service = part(r.configJson, '2026-11-26T10:05:00.000Z');
      return ok(service);
    });
  const page = new PartConfigPage(bridge, 'p1');
  await page.load();
  await settle();
  const theyChange = (configJson: string) => (service = part(configJson, '2026-11-26T10:02:00.000Z'));
  return { transport, page, theyChange };
}

describe('a part config page', () => {
  it('loads the text verbatim and saves the edit with its conflict token', async () => {
    const { transport, page } = await setup();
    expect(page.document.text).toBe(base);
    expect(page.history.entries).toHaveLength(1);
    page.document.edit(base.replace('"services": []', '"services": [{ "name": "nav", "api": "rdk:service:navigation" }]'));
    await page.save();
    expect(transport.callsTo('config.save')).toEqual([{ partId: 'p1', configJson: page.document.text, lastUpdated: '2026-11-26T10:00:00.000Z' }]);
    expect(page.document.dirty).toBe(false);
    expect(page.edit.lastUpdated).toBe('2026-11-26T10:05:00.000Z');
  });

  it('someone saved meanwhile, not where I edited: merged by itself, shown for review, then saved against their version', async () => {
    const { transport, page, theyChange } = await setup();
    page.document.edit(base.replace('"services": []', '"services": [{ "name": "mine", "api": "rdk:service:navigation" }]'));
    theyChange(base.replace('"name": "base"', '"name": "base-2"'));
    await page.save();
    expect(page.edit.saveError).toBeNull();
    expect(page.edit.conflict).toBeNull();
    expect(page.edit.note).toMatch(/did not overlap/);
    expect(page.document.text).toContain('"base-2"');
    expect(page.document.text).toContain('"mine"');
    expect(page.edit.lastUpdated).toBe('2026-11-26T10:02:00.000Z');
    await page.save();
    expect(transport.callsTo('config.save').at(-1)).toMatchObject({ lastUpdated: '2026-11-26T10:02:00.000Z' });
    expect(page.document.dirty).toBe(false);
  });

  it('overlapping changes open the merge; the merged text is the edit of their version', async () => {
    const { page, theyChange } = await setup();
    page.document.edit(base.replace('"name": "base"', '"name": "mine"'));
    theyChange(base.replace('"name": "base"', '"name": "theirs"'));
    await page.save();
    const conflict = page.edit.conflict;
    if (!conflict) throw new Error('no conflict');
    expect(conflict.resolution.conflicts).toHaveLength(1);
    conflict.resolution.take('theirs');
    const merged = conflict.resolution.preview().text;
    page.edit.resolve(merged);
    expect(page.edit.conflict).toBeNull();
    expect(page.document.saved).toBe(conflict.theirs.configJson);
    expect(page.document.text).toContain('"theirs"');
    expect(page.edit.lastUpdated).toBe('2026-11-26T10:02:00.000Z');
  });

  it('refuses to save a text with errors, and says why; restore puts an older config in the editor as an edit', async () => {
    const { transport, page } = await setup();
    page.document.edit('{ "components": ');
    await page.save();
    expect(transport.callsTo('config.save')).toEqual([]);
    expect(page.edit.saveError).toMatch(/Fix the/);
    const older = page.history.entries[0];
    if (!older) throw new Error('no history');
    page.restore(older);
    expect(page.document.text).toBe('{}');
    expect(page.document.dirty).toBe(true);
    expect(page.after(older)).toBe(base);
  });
});

describe('drafts of a part config', () => {
  it('a save that cannot reach the service keeps the edit as a draft, against the text it started from', async () => {
    const { transport, page } = await setup();
    transport.handle('config.save', () => err('offline', 'The service cannot be reached.'));
    transport.handle('config.saveDraft', (r) => ok({ ...r, machineId: 'm1', partName: 'amr-1-main', savedAt: '2026-11-26T11:00:00.000Z' }));
    const edited = base.replace('"services": []', '"services": [{ "name": "nav", "api": "rdk:service:navigation" }]');
    page.document.edit(edited);
    await page.save();
    expect(transport.callsTo('config.saveDraft')).toEqual([{ partId: 'p1', configJson: edited, baseConfigJson: base, baseLastUpdated: '2026-11-26T10:00:00.000Z' }]);
    expect(page.edit.draft?.configJson).toBe(edited);
    expect(page.edit.note).toMatch(/kept as a draft/);
    // The same edit is not written again.
    await page.edit.keepDraft();
    expect(transport.callsTo('config.saveDraft')).toHaveLength(1);
    // A text that is no config yet is not kept: the last one that was stays the draft.
    page.document.edit('{ "components": ');
    await page.edit.keepDraft();
    expect(transport.callsTo('config.saveDraft')).toHaveLength(1);
  });

  it('opening a part with a draft shows the draft as an edit of its base; saving it is checked against that base and merged', async () => {
    const { transport, bridge } = fakeBridge();
    const edited = base.replace('"services": []', '"services": [{ "name": "mine", "api": "rdk:service:navigation" }]');
    const draft = { partId: 'p1', machineId: 'm1', partName: 'amr-1-main', configJson: edited, baseConfigJson: base, baseLastUpdated: '2026-11-26T10:00:00.000Z', savedAt: '2026-11-26T10:30:00.000Z' };
    // Someone renamed a component since the draft's base was read.
    let service: PartConfig = { ...part(base.replace('"name": "base"', '"name": "base-2"'), '2026-11-26T10:40:00.000Z'), draft };
    transport
      .handle('config.part', () => ok(service))
      .handle('config.history', () => ok({ partId: 'p1', entries: [], nextPageToken: '', fromCache: false, syncedAt: null }))
      .handle('config.save', (r) => {
        if (r.lastUpdated !== service.lastUpdated) return err('conflict', 'Someone else changed this config since you read it.');
        service = { ...part(r.configJson, '2026-11-26T10:50:00.000Z'), draft: null };
        return ok(service);
      });
    const page = new PartConfigPage(bridge, 'p1');
    await page.load();
    expect(page.document.saved).toBe(base);
    expect(page.document.text).toBe(edited);
    expect(page.document.dirty).toBe(true);
    expect(page.edit.lastUpdated).toBe('2026-11-26T10:00:00.000Z');
    expect(page.edit.note).toMatch(/kept as a draft/);
    await page.save();
    expect(page.edit.note).toMatch(/did not overlap/);
    await page.save();
    expect(service.configJson).toContain('"base-2"');
    expect(service.configJson).toContain('"mine"');
    expect(page.edit.draft).toBeNull();
    expect(page.document.dirty).toBe(false);
  });

  it('discarding the draft shows the config as last read', async () => {
    const { transport, bridge } = fakeBridge();
    const draft = { partId: 'p1', machineId: 'm1', partName: 'amr-1-main', configJson: '{ "services": [] }', baseConfigJson: base, baseLastUpdated: '2026-11-26T10:00:00.000Z', savedAt: '2026-11-26T10:30:00.000Z' };
    transport
      .handle('config.part', () => ok({ ...part(base, '2026-11-26T10:00:00.000Z'), draft }))
      .handle('config.history', () => ok({ partId: 'p1', entries: [], nextPageToken: '', fromCache: false, syncedAt: null }))
      .handle('config.dropDraft', () => ok({}));
    const page = new PartConfigPage(bridge, 'p1');
    await page.load();
    await page.edit.discardDraft();
    expect(transport.callsTo('config.dropDraft')).toEqual([{ partId: 'p1' }]);
    expect(page.edit.draft).toBeNull();
    expect(page.document.text).toBe(base);
    expect(page.document.dirty).toBe(false);
  });
});
