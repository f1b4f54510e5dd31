import { describe, expect, it } from 'vitest';
import type { UploadCandidate } from '../../../../common/registry';
import { err, ok } from '../../../../common/result';
import { deferred, fakeBridge, settle } from '../../lib/testing/fake-transport';
import { registryItem, registryModule, registryVersion, upload, uploadCandidate } from '../../lib/testing/fixtures';
import { draftErrors } from './draft-checks';
import type { StageFile, UploadDraft } from './staging';
import { PAGE_SIZE } from './list.svelte';
import { RegistryStore } from './store.svelte';


function setup(stage?: StageFile) {
  const { transport, bridge } = fakeBridge();
  transport.handle('registry.uploads', []);
  const store = new RegistryStore(bridge, { stage: stage ?? (async (file) => ok({ stagedId: `staged-${file.name}-0123456789`, fileName: file.name })) });
  const stop = store.follow();
  return { transport, store, stop };
}

const file = (name: string, bytes = 10) => new File([new Uint8Array(bytes)], name, { type: 'application/gzip' });

describe('the registry browser', () => {
  it('lists with the filters as main takes them, and appends the next page', async () => {
    const { transport, store } = setup();
    transport.handle('registry.list', (r) => ok({ items: [registryItem(r.pageToken ? 'b' : 'a')], nextPageToken: r.pageToken ? '' : 'p2' }));
    store.show('org-acme');
    await settle();
    expect(store.page).toEqual({ kind: 'list' });
    expect(store.list.items.map((i) => i.name)).toEqual(['a']);
    expect(store.list.more).toBe(true);
    await store.list.load({ type: 'ml_model', visibility: 'public', platform: 'linux/any', status: 'published', search: '  slam ' });
    expect(transport.callsTo('registry.list').at(-1)).toEqual({
      orgId: 'org-acme',
      types: ['ml_model'],
      visibilities: ['public'],
      platforms: ['linux/any'],
      statuses: ['published'],
      search: 'slam',
      pageToken: '',
      pageSize: PAGE_SIZE,
    });
    await store.list.loadMore();
    expect(store.list.items.map((i) => i.name)).toEqual(['a', 'b']);
    expect(store.list.more).toBe(false);
    expect(store.list.filtered).toBe(true);
  });

  it('keeps only the answer for the newest filter, and keeps a failure to show', async () => {
    const { transport, store } = setup();
    const slow = deferred<null>();
    transport.handle('registry.list', async (r) => {
      if (r.search === 'old') await slow.promise;
      return ok({ items: [registryItem(r.search || 'all')], nextPageToken: '' });
    });
    const first = store.list.load({ search: 'old' });
    await store.list.load({ search: 'new' });
    slow.resolve(null);
    await first;
    expect(store.list.items.map((i) => i.name)).toEqual(['new']);

    transport.handle('registry.list', () => err('offline', 'The service cannot be reached.'));
    const result = await store.list.load({ search: 'x' });
    expect(result.ok).toBe(false);
    expect(store.list.error).toEqual({ kind: 'offline', message: 'The service cannot be reached.' });
    expect(store.list.items.map((i) => i.name)).toEqual(['new']);
  });

  it('reads the list again on opening only when something changed', async () => {
    const { transport, store } = setup();
    transport.handle('registry.list', { items: [registryItem('a')], nextPageToken: '' });
    store.show();
    await settle();
    store.show();
    await settle();
    expect(transport.callsTo('registry.list')).toHaveLength(1);
    store.list.stale = true;
    store.show();
    await settle();
    expect(transport.callsTo('registry.list')).toHaveLength(2);
    store.reset();
    expect(store.page).toBeNull();
    expect(store.list.items).toEqual([]);
  });
});

describe('an item', () => {
  it('shows what the list knew at once, then the item with its documentation; an edit keeps the documentation', async () => {
    const { transport, store } = setup();
    transport.handle('registry.list', { items: [registryItem('lidar-slam')], nextPageToken: '' });
    await store.list.load();
    transport.handle('registry.get', registryItem('lidar-slam', { markdown: '# lidar-slam' }));
    const view = store.showItem('acme:lidar-slam');
    expect(view.item?.name).toBe('lidar-slam');
    await settle();
    expect(transport.callsTo('registry.get')).toEqual([{ itemId: 'acme:lidar-slam', markdown: true }]);
    expect(view.item?.markdown).toBe('# lidar-slam');

    transport.handle('registry.update', (r) => ok(registryItem('lidar-slam', { description: r.description, visibility: r.visibility, url: r.url ?? '' })));
    const result = await store.updateItem(view, { description: 'New words', visibility: 'public', url: 'https://example.com/x' });
    expect(result.ok).toBe(true);
    expect(transport.callsTo('registry.update')).toEqual([{ itemId: 'acme:lidar-slam', type: 'module', description: 'New words', visibility: 'public', url: 'https://example.com/x' }]);
    expect(view.item).toMatchObject({ description: 'New words', markdown: '# lidar-slam' });
    expect(store.list.items[0]?.description).toBe('New words');
  });

  it('deleted: leaves the list and the registry shows the list again; a refusal is kept', async () => {
    const { transport, store } = setup();
    transport.handle('registry.list', { items: [registryItem('a'), registryItem('b')], nextPageToken: '' });
    await store.list.load();
    transport.handle('registry.get', registryItem('a'));
    store.showItem('acme:a');
    transport.handle('registry.delete', () => err('permission-denied', 'Only owners delete items.'));
    expect(await store.deleteItem('acme:a')).toEqual({ ok: false, error: { kind: 'permission-denied', message: 'Only owners delete items.' } });
    expect(store.page).toEqual({ kind: 'item', itemId: 'acme:a' });
    transport.handle('registry.delete', null);
    await store.deleteItem('acme:a');
    expect(store.page).toEqual({ kind: 'list' });
    expect(store.list.items.map((i) => i.name)).toEqual(['b']);
  });

  it('created: a module opens on its page, another item on its own', async () => {
    const { transport, store } = setup();
    transport.handle('registry.createModule', { moduleId: 'acme:stepper', url: 'http://x/registry/acme/stepper' });
    transport.handle('registry.module', registryModule('stepper'));
    await store.createModule('org-acme', 'stepper');
    expect(store.page).toEqual({ kind: 'module', moduleId: 'acme:stepper' });
    await settle();
    expect(store.module?.module?.name).toBe('stepper');
    transport.handle('registry.create', registryItem('detector', { type: 'ml_model' }));
    transport.handle('registry.get', registryItem('detector', { type: 'ml_model' }));
    await store.createItem('org-acme', 'detector', 'ml_model');
    expect(transport.callsTo('registry.create')).toEqual([{ orgId: 'org-acme', name: 'detector', type: 'ml_model' }]);
    expect(store.page).toEqual({ kind: 'item', itemId: 'acme:detector' });
  });
});

describe('an item\'s versions', () => {
  it('an ML model, a training script or an archive shows its uploaded versions; a module does not ask (its page has them)', async () => {
    const { transport, store } = setup();
    transport.handle('registry.get', registryItem('yard-detector', { type: 'ml_model' }));
    transport.handle('registry.versions', [registryVersion('3', ['linux/any']), registryVersion('4', ['linux/any'])]);
    const view = store.showItem('acme:yard-detector');
    await settle();
    expect(transport.callsTo('registry.versions')).toEqual([{ itemId: 'acme:yard-detector' }]);
    expect(view.versions?.map((v) => v.version)).toEqual(['3', '4']);

    transport.handle('registry.versions', () => err('offline', 'The service cannot be reached.'));
    await view.loadVersions();
    expect(view.versionsError?.kind).toBe('offline');
    expect(view.versions).toHaveLength(2);

    transport.handle('registry.get', registryItem('stepper'));
    store.showItem('acme:stepper');
    await settle();
    expect(transport.callsTo('registry.versions')).toHaveLength(2);
  });
});

describe('the newest read wins on item and module pages', () => {
  it('an item read answered after a newer one does not replace it', async () => {
    const { transport, store } = setup();
    const slow = deferred<null>();
    let reads = 0;
    transport.handle('registry.get', async () => {
      reads += 1;
      if (reads === 1) {
        await slow.promise;
        return ok(registryItem('lidar-slam', { description: 'old' }));
      }
      return ok(registryItem('lidar-slam', { description: 'new' }));
    });
    transport.handle('registry.versions', []);
    const view = store.showItem('acme:lidar-slam');
    await settle();
    await view.load();
    expect(view.item?.description).toBe('new');
    slow.resolve(null);
    await settle();
    expect(view.item?.description).toBe('new');
    expect(view.loading).toBe(false);
  });

  it('a module read started before a save does not undo the save', async () => {
    const { transport, store } = setup();
    transport.handle('registry.module', registryModule('stepper', { entrypoint: '' }));
    const view = store.showModule('acme:stepper');
    await settle();
    const slow = deferred<null>();
    transport.handle('registry.module', async () => {
      await slow.promise;
      return ok(registryModule('stepper', { entrypoint: '' }));
    });
    const reading = view.load();
    transport.handle('registry.updateModule', (r) => ok(registryModule('stepper', { entrypoint: r.entrypoint })));
    await view.save({ url: '', description: '', models: [], entrypoint: 'bin/stepper', visibility: 'private', apps: [], firstRun: '' });
    slow.resolve(null);
    await reading;
    expect(view.module?.entrypoint).toBe('bin/stepper');
    expect(view.loading).toBe(false);
  });
});

describe('a module', () => {
  it('saves the manifest whole', async () => {
    const { transport, store } = setup();
    transport.handle('registry.module', registryModule('stepper', { entrypoint: '' }));
    const view = store.showModule('acme:stepper');
    await settle();
    transport.handle('registry.updateModule', (r) => ok(registryModule('stepper', { entrypoint: r.entrypoint, description: r.description ?? '' })));
    const result = await view.save({ url: '', description: 'Drives steppers', models: [{ api: 'rdk:component:motor', model: 'acme:motor:stepper' }], entrypoint: 'bin/stepper', visibility: 'private', apps: [], firstRun: '' });
    expect(result.ok).toBe(true);
    expect(transport.callsTo('registry.updateModule')).toEqual([
      { moduleId: 'acme:stepper', url: '', description: 'Drives steppers', models: [{ api: 'rdk:component:motor', model: 'acme:motor:stepper' }], entrypoint: 'bin/stepper', visibility: 'private', apps: [], firstRun: '' },
    ]);
    expect(view.module?.entrypoint).toBe('bin/stepper');
  });

  it('browser mode: stages each dropped file, has main look into them, and offers what meta.json proposes', async () => {
    const staged: string[] = [];
    const { transport, store } = setup(async (f) => {
      staged.push(f.name);
      return f.name === 'bad.tar.gz' ? err('invalid', "Couldn't hand bad.tar.gz to the app: too large") : ok({ stagedId: `staged-${f.name.replace(/\W/g, '')}-0123456789`, fileName: f.name });
    });
    transport.handle('registry.module', registryModule('stepper'));
    transport.handle('registry.inspect', (r) => ok(r.sources.map((s, i) => uploadCandidate(s, `file${i}.tar.gz`, i === 1 ? { proposal: { version: null, platform: 'linux/amd64', moduleId: null, entrypoint: null } } : {}))));
    const view = store.showModule('acme:stepper');
    await settle();
    const adding = view.addFiles([file('a.tar.gz'), file('b.tar.gz'), file('bad.tar.gz')], () => null);
    expect(view.drafts.map((d) => d.state)).toEqual(['preparing', 'preparing', 'preparing']);
    await adding;
    expect(staged).toEqual(['a.tar.gz', 'b.tar.gz', 'bad.tar.gz']);
    expect(transport.callsTo('registry.inspect')).toEqual([{ sources: [{ stagedId: 'staged-atargz-0123456789' }, { stagedId: 'staged-btargz-0123456789' }] }]);
    expect(view.drafts.map((d) => [d.state, d.version, d.platform, d.problem])).toEqual([
      ['ready', '1.2.0', 'linux/arm64', null],
      ['ready', '', 'linux/amd64', null],
      ['ready', '', '', "Couldn't hand bad.tar.gz to the app: too large"],
    ]);
    // Only the first can go as it is; the second needs its version.
    expect(view.uploadable.map((d) => d.key)).toEqual([view.drafts[0]?.key]);
    view.edit(view.drafts[1]!.key, { version: '1.2.0' });
    expect(view.uploadable).toHaveLength(2);
  });

  it('Electron: hands main the dropped file\'s path, nothing is staged', async () => {
    let stages = 0;
    const { transport, store } = setup(async () => {
      stages++;
      return err('internal', 'no');
    });
    transport.handle('registry.module', registryModule('stepper'));
    transport.handle('registry.inspect', (r) => ok(r.sources.map((s) => uploadCandidate(s, 'a.tar.gz'))));
    const view = store.showModule('acme:stepper');
    await view.addFiles([file('a.tar.gz')], (f) => `/home/me/${f.name}`);
    expect(stages).toBe(0);
    expect(transport.callsTo('registry.inspect')).toEqual([{ sources: [{ path: '/home/me/a.tar.gz' }] }]);
    expect(view.drafts[0]?.source).toEqual({ path: '/home/me/a.tar.gz' });
  });

  it('checks version and platform with the schemas main uses, against the other files and the versions uploaded', () => {
    const mod = registryModule('stepper', { versions: [{ version: '1.0.0', platforms: ['linux/amd64'], models: [], entrypoint: 'run.sh', uploadedAt: null, files: [{ platform: 'linux/amd64', sizeBytes: 1, sha256: 'x', uploadedAt: null, url: '' }] }] });
    const draft = (key: number, version: string, platform: string): UploadDraft => ({ key, fileName: 'f', sizeBytes: 1, source: { path: '/f' }, state: 'ready', problem: null, proposal: null, version, platform, error: null });
    expect(draftErrors(draft(1, '1.2', 'linux'), [], mod)).toEqual({
      version: 'Must be a semantic version MAJOR.MINOR.PATCH such as 1.2.3.',
      platform: 'Must be <os>/<arch> or <os>/any in lowercase, e.g. linux/arm64.',
    });
    expect(draftErrors(draft(1, '1.0.0', 'linux/amd64'), [], mod).platform).toMatch(/already has a file for linux\/amd64/);
    const twins = [draft(1, '1.1.0', 'linux/arm64'), draft(2, '1.1.0', 'linux/arm64')];
    expect(draftErrors(twins[0]!, twins, mod).platform).toBe('Another file is set to 1.1.0 for linux/arm64 too.');
    expect(draftErrors(draft(1, ' 1.1.0 ', 'linux/arm64'), [], mod)).toEqual({ version: null, platform: null });
  });

  it('queues the ready files; one main refuses stays with why', async () => {
    const { transport, store } = setup();
    transport.handle('registry.module', registryModule('stepper'));
    transport.handle('registry.inspect', (r) => ok(r.sources.map((s, i) => uploadCandidate(s, `f${i}.tar.gz`, { proposal: { version: '1.0.0', platform: i === 0 ? 'linux/amd64' : 'linux/arm64', moduleId: null, entrypoint: null } }))));
    transport.handle('registry.upload', (r) => (r.platform === 'linux/arm64' ? err('conflict', 'Already queued.') : ok(upload('u1', { platform: r.platform, version: r.version }))));
    const view = store.showModule('acme:stepper');
    await view.addFiles([file('f0.tar.gz'), file('f1.tar.gz')], () => null);
    const { queued, failed } = await view.queue();
    expect(queued.map((u) => u.id)).toEqual(['u1']);
    expect(failed).toBe(1);
    expect(transport.callsTo('registry.upload')).toEqual([
      { moduleId: 'acme:stepper', version: '1.0.0', platform: 'linux/amd64', source: { stagedId: 'staged-f0.tar.gz-0123456789' } },
      { moduleId: 'acme:stepper', version: '1.0.0', platform: 'linux/arm64', source: { stagedId: 'staged-f1.tar.gz-0123456789' } },
    ]);
    expect(view.drafts.map((d) => [d.fileName, d.state, d.error])).toEqual([['f1.tar.gz', 'ready', 'Already queued.']]);
  });

  it('Choose files: main\'s dialog where there is one, else the page picks (null)', async () => {
    const { transport, store } = setup();
    transport.handle('registry.module', registryModule('stepper'));
    const view = store.showModule('acme:stepper');
    transport.handle('registry.pickFiles', null);
    expect(await store.pickFiles(view)).toEqual({ ok: true, value: false });
    transport.handle('registry.pickFiles', [uploadCandidate({ path: '/m/a.tar.gz' }, 'a.tar.gz')]);
    expect(await store.pickFiles(view)).toEqual({ ok: true, value: true });
    expect(view.drafts.map((d) => [d.fileName, d.state, d.version, d.platform])).toEqual([['a.tar.gz', 'ready', '1.2.0', 'linux/arm64']]);
  });
});

describe('a training script takes uploads like a module', () => {
  const script = (overrides = {}) => registryItem('yard-trainer', { type: 'ml_training', description: 'Trains the yard detector.', ...overrides });
  const scriptCandidate = (source: UploadCandidate['source'], fileName: string, version: string | null) =>
    uploadCandidate(source, fileName, { proposal: { version, platform: 'linux/any', moduleId: null, entrypoint: null } });

  it('readies dropped files against the versions uploaded, and queues them naming the item; no entrypoint is asked for', async () => {
    const { transport, store } = setup();
    transport.handle('registry.get', script());
    transport.handle('registry.versions', [registryVersion('0.1.0', ['linux/any'])]);
    transport.handle('registry.inspect', (r) => ok(r.sources.map((s, i) => scriptCandidate(s, `yard-trainer-${i}.tar.gz`, i === 0 ? '0.1.0' : '0.2.0'))));
    transport.handle('registry.upload', (r) => ok(upload('u1', { moduleId: r.moduleId, version: r.version, platform: r.platform, fileName: 'yard-trainer-0.tar.gz' })));
    const view = store.showItem('acme:yard-trainer');
    await settle();
    expect(view.takesUploads).toBe(true);
    expect(store.page).toEqual({ kind: 'item', itemId: 'acme:yard-trainer' });

    await view.addFiles([file('yard-trainer-0.tar.gz'), file('yard-trainer-1.tar.gz')], (f) => `/home/me/${f.name}`);
    expect(transport.callsTo('registry.inspect')).toEqual([{ sources: [{ path: '/home/me/yard-trainer-0.tar.gz' }, { path: '/home/me/yard-trainer-1.tar.gz' }] }]);
    expect(view.drafts.map((d) => [d.fileName, d.state, d.version, d.platform])).toEqual([
      ['yard-trainer-0.tar.gz', 'ready', '0.1.0', 'linux/any'],
      ['yard-trainer-1.tar.gz', 'ready', '0.2.0', 'linux/any'],
    ]);
    // 0.1.0 is uploaded already (the script's versions as read); 0.2.0 can go.
    const [first, second] = view.drafts;
    expect(view.errorsOf(first!).platform).toMatch(/^Version 0\.1\.0 already has a file for linux\/any/);
    expect(view.uploadable.map((d) => d.key)).toEqual([second!.key]);
    // Both set to 0.2.0: the twin is caught too.
    view.edit(first!.key, { version: '0.2.0' });
    expect(view.errorsOf(view.drafts[0]!).platform).toBe('Another file is set to 0.2.0 for linux/any too.');
    view.edit(first!.key, { version: '0.3.0' });
    expect(view.uploadable).toHaveLength(2);

    const { queued, failed } = await view.queue();
    expect(failed).toBe(0);
    expect(queued).toHaveLength(2);
    expect(transport.callsTo('registry.upload')).toEqual([
      { moduleId: 'acme:yard-trainer', version: '0.3.0', platform: 'linux/any', source: { path: '/home/me/yard-trainer-0.tar.gz' } },
      { moduleId: 'acme:yard-trainer', version: '0.2.0', platform: 'linux/any', source: { path: '/home/me/yard-trainer-1.tar.gz' } },
    ]);
    expect(view.drafts).toEqual([]);
    expect(transport.callsTo('registry.module')).toEqual([]);
  });

  it('reads its versions (and the item) again when one of its uploads finishes, not when another item\'s does', async () => {
    const { transport, store } = setup();
    transport.handle('registry.get', script());
    transport.handle('registry.versions', []);
    const view = store.showItem('acme:yard-trainer');
    await settle();
    expect(view.versions).toEqual([]);
    const mine = upload('u1', { moduleId: 'acme:yard-trainer', version: '0.1.0', platform: 'linux/any' });
    const other = upload('u2', { moduleId: 'acme:stepper' });
    transport.emit('registry.uploads', [mine, other]);
    expect(store.uploads.forModule('acme:yard-trainer').map((u) => u.id)).toEqual(['u1']);
    const reads = transport.callsTo('registry.versions').length;

    transport.emit('registry.uploads', [mine, { ...other, state: 'done' }]);
    await settle();
    expect(transport.callsTo('registry.versions')).toHaveLength(reads);

    transport.handle('registry.get', script({ platforms: ['linux/any'], status: 'published' }));
    transport.handle('registry.versions', [registryVersion('0.1.0', ['linux/any'])]);
    transport.emit('registry.uploads', [{ ...mine, state: 'done' }, { ...other, state: 'done' }]);
    await settle();
    expect(transport.callsTo('registry.versions')).toHaveLength(reads + 1);
    expect(view.versions?.map((v) => v.version)).toEqual(['0.1.0']);
    expect(view.item?.platforms).toEqual(['linux/any']);
    expect(store.list.stale).toBe(true);
  });

  it('Choose files: main\'s dialog fills its drafts as on a module\'s page', async () => {
    const { transport, store } = setup();
    transport.handle('registry.get', script());
    transport.handle('registry.versions', []);
    const view = store.showItem('acme:yard-trainer');
    await settle();
    transport.handle('registry.pickFiles', [scriptCandidate({ path: '/s/yard-trainer.tar.gz' }, 'yard-trainer.tar.gz', '1.0.0')]);
    expect(await store.pickFiles(view)).toEqual({ ok: true, value: true });
    expect(view.drafts.map((d) => [d.fileName, d.version, d.platform])).toEqual([['yard-trainer.tar.gz', '1.0.0', 'linux/any']]);
    expect(view.uploadable).toHaveLength(1);
  });

  it('an ML model takes uploads too; an archive, and a module\'s registry entry (its module page does), do not', async () => {
    const { transport, store } = setup();
    transport.handle('registry.versions', []);
    const takes: Record<string, boolean> = {};
    for (const type of ['ml_model', 'archive', 'module'] as const) {
      transport.handle('registry.get', registryItem(type, { type }));
      const view = store.showItem(`acme:${type}`);
      await settle();
      takes[type] = view.takesUploads;
    }
    expect(takes).toEqual({ ml_model: true, archive: false, module: false });
  });
});

describe('the upload queue', () => {
  it('loads, follows main, and refreshes the open module when one of its uploads finishes', async () => {
    const { transport, store, stop } = setup();
    transport.handle('registry.uploads', [upload('u1', { state: 'uploading', sentBytes: 500 })]);
    transport.handle('registry.module', registryModule('stepper'));
    await store.uploads.load();
    expect(store.uploads.items.map((u) => u.state)).toEqual(['uploading']);
    store.showModule('acme:stepper');
    await settle();
    const reads = transport.callsTo('registry.module').length;
    transport.emit('registry.uploads', [upload('u1', { state: 'uploading', sentBytes: 900 })]);
    expect(transport.callsTo('registry.module')).toHaveLength(reads);
    transport.emit('registry.uploads', [upload('u1', { state: 'done', sentBytes: 1000, result: { url: 'u', sha256: 'h', sizeBytes: 1000 } })]);
    expect(transport.callsTo('registry.module')).toHaveLength(reads + 1);
    expect(store.uploads.forModule('acme:stepper')).toHaveLength(1);
    expect(store.uploads.forModule('acme:other')).toHaveLength(0);
    expect(store.list.stale).toBe(true);
    stop();
    expect(transport.listenerCount('registry.uploads')).toBe(0);
  });

  it('cancel, retry and remove answer results; a failure is kept beside its upload', async () => {
    const { transport, store } = setup();
    transport.handle('registry.uploads', [upload('u1', { state: 'done' }), upload('u2', { state: 'uploading' })]);
    await store.uploads.load();
    transport.handle('registry.cancelUpload', () => err('not-found', 'That upload is not in the queue.'));
    expect((await store.uploads.cancel('u2')).ok).toBe(false);
    expect(store.uploads.rowErrors).toEqual({ u2: 'That upload is not in the queue.' });
    transport.handle('registry.cancelUpload', upload('u2', { state: 'cancelled' }));
    await store.uploads.cancel('u2');
    expect(store.uploads.rowErrors).toEqual({});
    transport.handle('registry.removeUpload', null);
    await store.uploads.remove('u1');
    expect(store.uploads.items.map((u) => u.id)).toEqual(['u2']);
    transport.handle('registry.retryUpload', upload('u2', { state: 'queued' }));
    await store.uploads.retry('u2');
    expect(transport.callsTo('registry.retryUpload')).toEqual([{ uploadId: 'u2' }]);
  });
});
