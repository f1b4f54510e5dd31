import { describe, expect, it } from 'vitest';
import type { EffectiveConfig } from '../../../../common/config';
import type { Fragment, FragmentDraft, FragmentHistoryEntry, FragmentUsage, FragmentView } from '../../../../common/fragments';
import type { Part } from '../../../../common/machines';
import { err, ok } from '../../../../common/result';
import { fakeBridge, settle } from '../../lib/testing/fake-transport';
import { FragmentPage } from './fragment-page.svelte';

const base = '{\n  "components": [\n    { "name": "lidar", "api": "rdk:component:camera" },\n    { "name": "base", "api": "rdk:component:base" },\n    { "name": "arm", "api": "rdk:component:arm" }\n  ]\n}';

const fragment = (revision: number, lastUpdated: string, over: Partial<Fragment> = {}): Fragment => ({
  id: 'f1',
  name: 'amr-base',
  orgId: 'o1',
  orgName: 'Acme',
  visibility: 'private',
  createdOn: '2026-11-01T10:00:00.000Z',
  lastUpdated,
  latestRevision: String(revision),
  revisions: Array.from({ length: revision }, (_, i) => ({ revision: String(i + 1), createdOn: null })),
  tags: [{ tag: 'stable', revision: '1', updatedOn: null }],
  partCount: 2,
  ...over,
});
const viewOf = (configJson: string, revision: number, lastUpdated: string, draft: FragmentDraft | null = null): FragmentView => ({
  fragment: fragment(revision, lastUpdated),
  revision: String(revision),
  configJson,
  fromCache: false,
  syncedAt: lastUpdated,
  draft,
});
const users = (count: number): FragmentUsage => ({
  fragmentId: 'f1',
  orgId: 'o1',
  partCount: count,
  machineCount: count,
  machines: Array.from({ length: count }, (_, i) => ({ machineId: `m${i + 1}`, machineName: `amr-${i + 1}`, locationId: 'l1', locationName: 'Floor 1' })),
});
const mainPart = (machineId: string): Part => ({
  id: `${machineId}-main`,
  name: `${machineId}-main`,
  machineId,
  locationId: 'l1',
  mainPart: true,
  fqdn: '',
  localFqdn: '',
  lastAccess: null,
  createdOn: null,
  lastUpdated: null,
  markedForRestart: false,
  secretCount: 0,
});
const effective = (partId: string, value: object): EffectiveConfig => ({
  partId,
  machineId: 'm1',
  configJson: '{}',
  lastUpdated: '2026-11-26T10:00:00.000Z',
  effective: value as EffectiveConfig['effective'],
  fragments: [],
  blocks: [],
  fields: [],
  mods: [],
  issues: [],
  fromCache: false,
  syncedAt: '2026-11-26T10:00:00.000Z',
});
const entry = (revision: string, previous: string | null): FragmentHistoryEntry => ({
  fragmentId: 'f1',
  revision,
  editedOn: '2026-11-25T10:00:00.000Z',
  editedBy: { kind: 'key', id: 'k1', displayName: 'ops key' },
  previous: previous === null ? null : { name: 'amr-base', configJson: previous, visibility: 'private', lastUpdated: null },
});

/** A page over main faked: `state.service` is the fragment on the service now, `state.usage` who uses it. */
async function setup(options: { usage?: FragmentUsage; draft?: FragmentDraft | null; offline?: boolean } = {}) {
  const { transport, bridge } = fakeBridge();
  const state = { service: viewOf(base, 2, '2026-11-26T10:00:00.000Z', options.draft ?? null), usage: options.usage ?? users(0), offline: options.offline ?? false };
  transport
    .handle('fragments.get', (r) => (r.version ? ok({ ...viewOf('{}', 1, '2026-11-01T10:00:00.000Z'), revision: '1' }) : ok(state.service)))
    .handle('fragments.history', () => ok({ fragmentId: 'f1', entries: [entry('2', '{}'), entry('1', null)], nextPageToken: '', fromCache: false, syncedAt: null }))
    .handle('fragments.usage', () => ok(state.usage))
    .handle('machines.parts', (r) => ok([mainPart(r.machineId)]))
    .handle('config.effective', (r) => ok(effective(r.partId, r.preview ? { components: [{ name: 'changed', part: r.partId }] } : { components: [{ name: 'now', part: r.partId }] })))
    .handle('fragments.update', (r) => {
      if (r.lastUpdated !== state.service.fragment.lastUpdated) return err('conflict', 'Someone else changed this fragment since you read it.');
      const revision = Number(state.service.revision) + 1;
      state.service = viewOf(r.configJson ?? state.service.configJson, revision, '2026-11-26T10:05:00.000Z');
      if (r.name) state.service = { ...state.service, fragment: { ...state.service.fragment, name: r.name } };
      return ok(state.service);
    })
    .handle('fragments.setTag', (r) => {
      const tags = [...state.service.fragment.tags.filter((t) => t.tag !== r.tag), { tag: r.tag, revision: r.revision ?? '2', updatedOn: null }];
      state.service = { ...state.service, fragment: { ...state.service.fragment, tags } };
      return ok({ fragmentId: 'f1', tags });
    })
    .handle('fragments.deleteTag', () => err('conflict', 'The tag "stable" is in use by 2 parts; it cannot be deleted.'))
    .handle('fragments.delete', () => (state.usage.partCount > 0 ? err('conflict', 'The fragment is used by 2 machine parts; it cannot be deleted.') : ok({})))
    .handle('fragments.saveDraft', (r) => ok({ fragmentId: r.fragmentId, orgId: 'o1', name: 'amr-base', configJson: r.configJson, baseConfigJson: r.baseConfigJson, baseLastUpdated: r.baseLastUpdated, savedAt: '2026-11-26T10:03:00.000Z' }))
    .handle('fragments.dropDraft', () => ok({}));
  const page = new FragmentPage(bridge, 'f1', { offline: () => state.offline });
  await page.load();
  await settle();
  const theyChange = (configJson: string) => (state.service = viewOf(configJson, 3, '2026-11-26T10:02:00.000Z'));
  return { transport, page, state, theyChange };
}

describe('a fragment page', () => {
  it('saves straight on when no machine uses it, with its conflict token', async () => {
    const { transport, page } = await setup();
    expect(page.document.text).toBe(base);
    expect(page.history.entries).toHaveLength(2);
    page.document.edit(base.replace('"arm"', '"arm-2"'));
    await page.requestSave();
    expect(page.blast).toBeNull();
    expect(transport.callsTo('config.effective')).toEqual([]);
    expect(transport.callsTo('fragments.update')).toEqual([{ fragmentId: 'f1', lastUpdated: '2026-11-26T10:00:00.000Z', configJson: page.document.text }]);
    expect(page.document.dirty).toBe(false);
    expect(page.view?.revision).toBe('3');
  });

  it('shows the first machine the change alters: one pinned to another version stays the same and is passed over', async () => {
    const { transport, page } = await setup({ usage: users(3) });
    // m1 asks for a tag: its effective config does not follow the next revision.
    transport.handle('config.effective', (r) =>
      ok(effective(r.partId, r.preview && r.partId !== 'm1-main' ? { components: [{ name: 'changed', part: r.partId }] } : { components: [{ name: 'now', part: r.partId }] })),
    );
    page.document.edit(base.replace('"arm"', '"arm-2"'));
    await page.requestSave();
    const blast = page.blast;
    if (!blast) throw new Error('no blast radius');
    expect(blast.machineId).toBe('m2');
    expect(blast.diff?.after).toContain('"changed"');
    // Not one more machine than needed was resolved.
    expect(transport.callsTo('config.effective').map((c) => (c as { partId: string }).partId)).toEqual(['m1-main', 'm1-main', 'm2-main', 'm2-main']);
  });

  it('weighs a save first: counts the machines, previews the first one’s effective config, another on request; saves when confirmed', async () => {
    const { transport, page } = await setup({ usage: users(2) });
    const edited = base.replace('"arm"', '"arm-2"');
    page.document.edit(edited);
    await page.requestSave();
    const blast = page.blast;
    if (!blast) throw new Error('no blast radius');
    expect(blast.machineCount).toBe(2);
    expect(transport.callsTo('fragments.update')).toEqual([]);
    expect(transport.callsTo('config.effective')).toEqual([{ partId: 'm1-main' }, { partId: 'm1-main', preview: { fragmentId: 'f1', configJson: edited } }]);
    expect(blast.diff?.before).toContain('"now"');
    expect(blast.diff?.after).toContain('"changed"');
    await blast.pick('m2');
    expect(transport.callsTo('config.effective').slice(2)).toEqual([{ partId: 'm2-main' }, { partId: 'm2-main', preview: { fragmentId: 'f1', configJson: edited } }]);
    expect(blast.diff?.partName).toBe('m2-main');
    await page.confirmBlast();
    expect(page.blast).toBeNull();
    expect(transport.callsTo('fragments.update')).toHaveLength(1);
    expect(page.document.dirty).toBe(false);
  });

  it('cancelling the weighing saves nothing and keeps the edit', async () => {
    const { transport, page } = await setup({ usage: users(1) });
    page.document.edit(base.replace('"arm"', '"arm-2"'));
    await page.requestSave();
    page.cancelBlast();
    expect(page.blast).toBeNull();
    expect(transport.callsTo('fragments.update')).toEqual([]);
    expect(page.document.dirty).toBe(true);
  });

  it('someone saved meanwhile: changes that do not overlap merge by themselves; overlapping ones open the merge', async () => {
    const { transport, page, theyChange } = await setup();
    page.document.edit(base.replace('"name": "arm"', '"name": "mine"'));
    theyChange(base.replace('"name": "lidar"', '"name": "lidar-2"'));
    await page.requestSave();
    expect(page.edit.note).toMatch(/did not overlap/);
    expect(page.document.text).toContain('"lidar-2"');
    expect(page.document.text).toContain('"mine"');
    expect(page.edit.lastUpdated).toBe('2026-11-26T10:02:00.000Z');
    await page.requestSave();
    expect(transport.callsTo('fragments.update').at(-1)).toMatchObject({ lastUpdated: '2026-11-26T10:02:00.000Z' });
    expect(page.document.dirty).toBe(false);

    const now = page.document.text;
    page.document.edit(now.replace('"name": "base"', '"name": "mine-base"'));
    theyChange(now.replace('"name": "base"', '"name": "their-base"'));
    await page.requestSave();
    const conflict = page.edit.conflict;
    if (!conflict) throw new Error('no conflict');
    conflict.resolution.take('theirs');
    page.edit.resolve(conflict.resolution.preview().text);
    expect(page.document.saved).toBe(conflict.theirs.configJson);
    expect(page.document.text).toContain('"their-base"');
    expect(page.edit.lastUpdated).toBe('2026-11-26T10:02:00.000Z');
  });

  it('a new tag is set at once; moving one is weighed with a tag preview first', async () => {
    const { transport, page } = await setup({ usage: users(2) });
    await page.requestTag('canary', '2');
    expect(transport.callsTo('fragments.setTag')).toEqual([{ fragmentId: 'f1', tag: 'canary', revision: '2' }]);
    expect(page.blast).toBeNull();

    await page.requestTag('stable', '1');
    await page.requestTag('stable', '2');
    expect(transport.callsTo('fragments.setTag')).toHaveLength(1);
    const blast = page.blast;
    if (!blast) throw new Error('no blast radius');
    expect(blast.machineCount).toBe(2);
    expect(transport.callsTo('config.effective').at(-1)).toEqual({ partId: 'm1-main', preview: { fragmentId: 'f1', tag: 'stable', revision: '2' } });
    await page.confirmBlast();
    expect(transport.callsTo('fragments.setTag').at(-1)).toEqual({ fragmentId: 'f1', tag: 'stable', revision: '2' });
    expect(page.view?.fragment.tags.find((t) => t.tag === 'stable')?.revision).toBe('2');
  });

  it('a tag in use is not deleted: the service’s reason is shown', async () => {
    const { page } = await setup();
    const result = await page.deleteTag('stable');
    expect(result.ok).toBe(false);
    expect(page.tagError).toMatch(/in use by 2 parts/);
  });

  it('delete lists who still uses it and is refused; unused, it asks, then deletes', async () => {
    const { transport, page, state } = await setup({ usage: users(2) });
    await page.startDelete();
    expect(page.deleteStep).toBe('refused');
    expect(page.deleteUsage?.machines.map((m) => m.machineName)).toEqual(['amr-1', 'amr-2']);
    expect(transport.callsTo('fragments.delete')).toEqual([]);
    page.cancelDelete();

    // Someone started using it between the check and the yes: the service refuses, its message is kept.
    state.usage = users(0);
    await page.startDelete();
    expect(page.deleteStep).toBe('confirm');
    state.usage = users(2);
    const refused = await page.delete();
    expect(refused.ok).toBe(false);
    expect(page.deleteStep).toBe('refused');
    expect(page.deleteError).toMatch(/used by 2 machine parts/);

    state.usage = users(0);
    await page.startDelete();
    expect((await page.delete()).ok).toBe(true);
    expect(page.deleteStep).toBeNull();
  });

  it('offline, a save keeps the edit as a draft; so does a save the service cannot be reached for', async () => {
    const { transport, page, state } = await setup({ offline: true });
    const edited = base.replace('"arm"', '"arm-2"');
    page.document.edit(edited);
    await page.requestSave();
    expect(transport.callsTo('fragments.update')).toEqual([]);
    expect(transport.callsTo('fragments.saveDraft')).toEqual([{ fragmentId: 'f1', configJson: edited, baseConfigJson: base, baseLastUpdated: '2026-11-26T10:00:00.000Z' }]);
    expect(page.edit.draft?.configJson).toBe(edited);
    expect(page.edit.note).toMatch(/kept as a draft/);

    state.offline = false;
    transport.handle('fragments.usage', () => err('offline', 'The service cannot be reached.'));
    page.document.edit(`${edited} `);
    await page.requestSave();
    expect(transport.callsTo('fragments.saveDraft')).toHaveLength(2);
    expect(transport.callsTo('fragments.update')).toEqual([]);
  });

  it('leaving the page offline with an unsaved edit keeps it as a draft', async () => {
    const { transport, page } = await setup({ offline: true });
    page.document.edit(base.replace('"arm"', '"arm-2"'));
    await page.leaving();
    expect(transport.callsTo('fragments.saveDraft')).toHaveLength(1);
  });

  it('a kept draft is restored over its base, and its save is conflict-checked and merged against it', async () => {
    const draftText = base.replace('"name": "arm"', '"name": "drafted"');
    const draft: FragmentDraft = { fragmentId: 'f1', orgId: 'o1', name: 'amr-base', configJson: draftText, baseConfigJson: base, baseLastUpdated: '2026-11-25T09:00:00.000Z', savedAt: '2026-11-25T09:30:00.000Z' };
    const { transport, page } = await setup({ draft });
    expect(page.document.text).toBe(draftText);
    expect(page.document.saved).toBe(base);
    expect(page.document.dirty).toBe(true);
    expect(page.edit.lastUpdated).toBe('2026-11-25T09:00:00.000Z');
    expect(page.edit.note).toMatch(/Your edit of .* kept as a draft .* is in the editor/);
    // The service moved on since the draft's base (same text, newer token): the save conflicts, merges, and is saved against the new token.
    await page.requestSave();
    expect(page.edit.note).toMatch(/did not overlap/);
    await page.requestSave();
    expect(transport.callsTo('fragments.update').at(-1)).toMatchObject({ lastUpdated: '2026-11-26T10:00:00.000Z', configJson: draftText });
    expect(page.edit.draft).toBeNull();
  });

  it('discarding a draft goes back to the latest revision', async () => {
    const draft: FragmentDraft = { fragmentId: 'f1', orgId: 'o1', name: 'amr-base', configJson: '{}', baseConfigJson: base, baseLastUpdated: '2026-11-26T10:00:00.000Z', savedAt: '2026-11-25T09:30:00.000Z' };
    const { transport, page } = await setup({ draft });
    await page.edit.discardDraft();
    expect(transport.callsTo('fragments.dropDraft')).toEqual([{ fragmentId: 'f1' }]);
    expect(page.document.text).toBe(base);
    expect(page.document.dirty).toBe(false);
  });

  it('history: each entry’s config before and after; restore puts a revision in the editor; a version shows read-only', async () => {
    const { page } = await setup();
    const [newest, creation] = page.history.entries;
    if (!newest || !creation) throw new Error('no history');
    expect(page.after(newest)).toBe(base);
    expect(page.before(newest)).toBe('{}');
    expect(page.after(creation)).toBe('{}');
    expect(page.before(creation)).toBe('{}');
    page.restore(creation);
    expect(page.document.text).toBe('{}');
    expect(page.document.dirty).toBe(true);
    page.showVersion('1');
    await settle();
    expect(page.versionView?.revision).toBe('1');
    expect(page.versionDocument.text).toBe('{}');
  });

  it('a rename keeps an edit going, on the new conflict token', async () => {
    const { page } = await setup();
    page.document.edit(base.replace('"arm"', '"arm-2"'));
    const result = await page.rename('amr-base-v2');
    expect(result.ok).toBe(true);
    expect(page.view?.fragment.name).toBe('amr-base-v2');
    expect(page.document.dirty).toBe(true);
    expect(page.edit.lastUpdated).toBe('2026-11-26T10:05:00.000Z');
  });
});
