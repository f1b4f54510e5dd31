import { describe, expect, it } from 'vitest';
import { err, ok, type Result } from '../../../../common/result';
import { EditedConfig, type KeptDraft } from './edited-config.svelte';

/** A version on a fake service: its text and conflict token, and the draft kept of an edit of it. */
interface Version {
  readonly configJson: string;
  readonly lastUpdated: string;
  readonly draft: KeptDraft | null;
}

const base = '{\n  "components": [\n    { "name": "base", "api": "rdk:component:base" },\n    { "name": "lidar", "api": "rdk:component:camera" },\n    { "name": "arm", "api": "rdk:component:arm" }\n  ]\n}';

/** An edited config over a fake service: `service` is its version now; `offline` makes saves fail as unreachable. */
async function setup(draft: KeptDraft | null = null) {
  const state = { service: { configJson: base, lastUpdated: 't1', draft } as Version, offline: false, saved: 0, draftsChanged: 0 };
  const calls = { save: [] as { configJson: string; lastUpdated: string }[], keep: [] as Omit<KeptDraft, 'savedAt'>[], drop: 0 };
  const edit = new EditedConfig<Version, KeptDraft>({
    what: 'config',
    read: () => Promise.resolve(ok(state.service)),
    save: (configJson, lastUpdated): Promise<Result<Version>> => {
      calls.save.push({ configJson, lastUpdated });
      if (state.offline) return Promise.resolve(err('offline', 'The service cannot be reached.'));
      if (lastUpdated !== state.service.lastUpdated) return Promise.resolve(err('conflict', 'Changed since you read it.'));
      state.service = { configJson, lastUpdated: `${lastUpdated}+`, draft: null };
      return Promise.resolve(ok(state.service));
    },
    keep: (kept) => {
      calls.keep.push(kept);
      return Promise.resolve(ok({ ...kept, savedAt: '2026-11-26T10:00:00.000Z' }));
    },
    drop: () => {
      calls.drop++;
      return Promise.resolve(ok({}));
    },
    version: (v) => v,
    saved: () => void state.saved++,
    draftsChanged: () => void state.draftsChanged++,
  });
  await edit.load();
  const theyChange = (configJson: string) => (state.service = { configJson, lastUpdated: 't2', draft: null });
  return { edit, state, calls, theyChange };
}

describe('an edited config', () => {
  it('saves the edit with the token it started from, and keeps an edit under way across a read', async () => {
    const { edit, state, calls } = await setup();
    edit.document.edit(base.replace('"arm"', '"arm-2"'));
    await edit.load();
    expect(edit.document.dirty).toBe(true);
    const result = await edit.save();
    expect(result?.ok).toBe(true);
    expect(calls.save).toEqual([{ configJson: edit.document.text, lastUpdated: 't1' }]);
    expect(edit.lastUpdated).toBe('t1+');
    expect(edit.document.dirty).toBe(false);
    expect(state.saved).toBe(1);
  });

  it('someone saved meanwhile: changes that do not overlap merge by themselves and save against their token', async () => {
    const { edit, calls, theyChange } = await setup();
    edit.document.edit(base.replace('"arm"', '"arm-2"'));
    theyChange(base.replace('"name": "base"', '"name": "base-2"'));
    await edit.save();
    expect(edit.conflict).toBeNull();
    expect(edit.note).toMatch(/did not overlap/);
    expect(edit.document.text).toContain('"base-2"');
    expect(edit.document.text).toContain('"arm-2"');
    await edit.save();
    expect(calls.save.at(-1)?.lastUpdated).toBe('t2');
  });

  it('overlapping changes open the merge; the resolved text is an edit of their version; cancelling keeps the edit', async () => {
    const { edit, theyChange } = await setup();
    const mine = base.replace('"name": "arm"', '"name": "mine"');
    edit.document.edit(mine);
    theyChange(base.replace('"name": "arm"', '"name": "theirs"'));
    await edit.save();
    expect(edit.conflict?.theirs.lastUpdated).toBe('t2');
    edit.cancelMerge();
    expect(edit.conflict).toBeNull();
    expect(edit.document.text).toBe(mine);
    await edit.save();
    edit.resolve(mine);
    expect(edit.document.saved).toContain('"theirs"');
    expect(edit.lastUpdated).toBe('t2');
    expect(edit.note).toMatch(/Merged with the version on the service/);
  });

  it('refuses a text with errors, saying why', async () => {
    const { edit, calls } = await setup();
    edit.document.edit('{ "components": ');
    expect(await edit.save()).toBeNull();
    expect(edit.saveError).toMatch(/^Fix the/);
    expect(calls.save).toEqual([]);
  });

  it('unreachable: the edit is kept as a draft against its base, once per text, never mid-typing; a kept edit is not unkept', async () => {
    const { edit, state, calls } = await setup();
    state.offline = true;
    const edited = base.replace('"arm"', '"arm-2"');
    edit.document.edit(edited);
    expect(edit.unkept).toBe(true);
    await edit.save();
    expect(calls.keep).toEqual([{ configJson: edited, baseConfigJson: base, baseLastUpdated: 't1' }]);
    expect(edit.note).toMatch(/kept as a draft/);
    expect(edit.unkept).toBe(false);
    expect(state.draftsChanged).toBe(1);
    expect(await edit.keepDraft()).toBeNull();
    edit.document.edit('{ "components": ');
    expect(await edit.keepDraft()).toBeNull();
    expect(edit.unkept).toBe(true);
    expect(calls.keep).toHaveLength(1);
  });

  it('a kept draft is restored as an edit of its base; discarding it shows the version as read', async () => {
    const edited = base.replace('"arm"', '"drafted"');
    const { edit, calls, state } = await setup({ configJson: edited, baseConfigJson: base, baseLastUpdated: 't0', savedAt: '2026-11-25T09:30:00.000Z' });
    expect(edit.document.saved).toBe(base);
    expect(edit.document.text).toBe(edited);
    expect(edit.lastUpdated).toBe('t0');
    expect(edit.unkept).toBe(false);
    expect(edit.note).toMatch(/kept as a draft because it could not be saved then/);
    await edit.discardDraft();
    expect(calls.drop).toBe(1);
    expect(edit.draft).toBeNull();
    expect(edit.document.text).toBe(base);
    expect(edit.lastUpdated).toBe('t1');
    expect(state.draftsChanged).toBe(1);
  });

  it('a version changed but not its config (a rename) moves an edit that started from it to the new token', async () => {
    const { edit } = await setup();
    edit.document.edit(base.replace('"arm"', '"arm-2"'));
    edit.changed({ configJson: base, lastUpdated: 't1b', draft: null });
    expect(edit.lastUpdated).toBe('t1b');
    expect(edit.document.dirty).toBe(true);
  });
});
