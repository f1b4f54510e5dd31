import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { deferred, fakeBridge, settle } from './lib/testing/fake-transport';
import { ok } from '../../common/result';
import { connectionState, localServiceState, org, orgsSnapshot, profilesState } from './lib/testing/fixtures';
import type { LinkState, WebSocketTransport } from './lib/bridge/ws-transport';
import { FleetApp } from './app.svelte';
import { memoryHistory } from './lib/router/history';
import type { UiStateKey } from '../../common/ui';
import { LazyPage } from './lib/router/lazy-page.svelte';

/** Just enough of the WebSocket transport to drive the link from the test. */
function fakeLink(): { transport: WebSocketTransport; set: (link: LinkState) => void } {
  let link: LinkState = { status: 'open', retryAt: null, failures: 0, everOpened: true };
  const listeners = new Set<(l: LinkState) => void>();
  const transport: WebSocketTransport = {
    get link() {
      return link;
    },
    onLinkChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    reconnectNow() {},
    dispose() {},
    invoke: () => Promise.resolve(null),
    subscribe: () => () => {},
  };
  return {
    transport,
    set(next) {
      link = next;
      for (const l of listeners) l(next);
    },
  };
}

/** Every answer chained on another (the last page is read after the tree's state) has arrived. */
async function idle(): Promise<void> {
  for (let i = 0; i < 8; i++) await settle();
}

/** `saved`: what main remembers, per profile id (the active one is 'local'). */
function setup(options: { address?: string; saved?: Record<string, Partial<Record<UiStateKey, unknown>>> } = {}) {
  const { transport, bridge } = fakeBridge();
  const saved = options.saved ?? {};
  let active = 'local';
  transport
    .handle('profiles.list', profilesState())
    .handle('connection.get', connectionState())
    .handle('localService.get', localServiceState())
    .handle('orgs.list', orgsSnapshot([org('o1', 'Acme')]))
    .handleTree((r) => ok({ orgId: r.orgId, locations: [], machines: [], fromCache: false, syncedAt: null }))
    .handle('ui.get', (r) => ok({ value: saved[active]?.[r.key] ?? null }))
    .handle('ui.set', (r) => {
      saved[active] = { ...saved[active], [r.key]: r.value };
      return ok({});
    })
    .handle('registry.uploads', [])
    .handle('training.summary', { byOrg: {}, running: 0, pending: 0 })
    .handle('ui.restored', {});
  const link = fakeLink();
  const history = memoryHistory(options.address ?? '');
  const app = new FleetApp(bridge, link.transport, history);
  const switchTo = (id: string) => {
    active = id;
    transport.emit('profiles.changed', profilesState({ activeId: id }));
  };
  return { transport, app, link, history, saved, switchTo };
}

/** The app started as a launch starts it, with the fleet feature's tree loads (its effect does not run without a component); `shown` says whether `treeShown` has resolved. */
async function launch(app: FleetApp): Promise<{ shown: () => boolean; stop: () => void }> {
  let shown = false;
  void app.treeShown.then(() => (shown = true));
  const stop = app.follow();
  await idle();
  app.fleet.ensureTrees();
  await idle();
  return { shown: () => shown, stop };
}

describe('FleetApp', () => {
  // A route shown here starts its page's code loading (a dynamic import of the page and what it
  // imports), also after a test's last line (a restore answering late). A load still running when
  // the file ends fails as "loaded after the environment was torn down" (in the shared unit pool it
  // failed the next file): every load is tracked, and each test ends when none is left.
  const loads: Promise<void>[] = [];
  const drain = async () => {
    while (loads.length > 0) await Promise.all(loads.splice(0));
  };
  beforeAll(() => {
    const load = LazyPage.prototype.load;
    vi.spyOn(LazyPage.prototype, 'load').mockImplementation(function (this: LazyPage<object>) {
      const loading = load.call(this);
      loads.push(loading);
      return loading;
    });
  });
  afterEach(drain);
  afterAll(async () => {
    await drain();
    vi.restoreAllMocks();
  });

  test('follow loads every snapshot and subscribes to every event; stopping unsubscribes', async () => {
    const { transport, app } = setup();
    const stop = app.follow();
    await settle();
    expect(app.profiles.loaded && app.connection.loaded && app.orgs.loaded && app.localService.loaded).toBe(true);
    for (const event of ['profiles.changed', 'connection.changed', 'orgs.changed', 'localService.changed', 'fleet.changed', 'machines.liveness'] as const) {
      expect(transport.listenerCount(event)).toBe(1);
    }
    stop();
    for (const event of ['profiles.changed', 'connection.changed', 'orgs.changed', 'localService.changed', 'fleet.changed', 'machines.liveness'] as const) {
      expect(transport.listenerCount(event)).toBe(0);
    }
  });

  test('main hears once that the first view is drawn: after the organizations and every tree are in, not before', async () => {
    const { transport, app } = setup();
    transport.handle('orgs.list', orgsSnapshot([org('o1', 'Acme'), org('o2', 'Bravo')]));
    const slow = deferred<undefined>();
    transport.handleTree(async (r) => {
      if (r.orgId === 'o2') await slow.promise;
      return ok({ orgId: r.orgId, locations: [], machines: [], fromCache: false, syncedAt: null });
    });
    const stop = app.follow();
    await idle();
    // What the fleet feature's tree does once the list is in (its effect does not run without a component).
    app.fleet.ensureTrees();
    await idle();
    expect(transport.callsTo('locations.treeColumns').length).toBeGreaterThanOrEqual(2);
    // Acme's tree is in; Bravo's is not: the view is not drawn yet.
    expect(transport.callsTo('ui.restored')).toEqual([]);
    slow.resolve(undefined);
    await idle();
    expect(transport.callsTo('ui.restored')).toEqual([{}]);
    // Later loads (a change, a reload of the link) say nothing more.
    transport.emit('fleet.changed', { orgIds: ['o1'], all: false });
    await idle();
    expect(transport.callsTo('ui.restored')).toEqual([{}]);
    stop();
  });

  test('the tree counts as shown once every organization has rows to draw (a head will do), before the parts and the first view', async () => {
    const { transport, app } = setup();
    transport.handle('orgs.list', orgsSnapshot([org('o1', 'Acme'), org('o2', 'Bravo')]));
    const bravo = deferred<undefined>();
    const parts = deferred<undefined>();
    transport.handleTree(async (r) => {
      if (r.orgId === 'o2') await bravo.promise;
      if (r.parts !== false) await parts.promise;
      return ok({ orgId: r.orgId, locations: [], machines: [], fromCache: false, syncedAt: null });
    });
    const { shown, stop } = await launch(app);
    // Acme's head is in, Bravo's not.
    expect(shown()).toBe(false);
    bravo.resolve(undefined);
    await idle();
    expect(shown()).toBe(true);
    // The parts are still on their way: the first view (for main) is not drawn yet.
    expect(transport.callsTo('ui.restored')).toEqual([]);
    parts.resolve(undefined);
    await idle();
    expect(transport.callsTo('ui.restored')).toEqual([{}]);
    stop();
  });

  test('with a machine of the last run open, the tree counts as shown only with that organization’s parts in; a failed tree does not hold it up', async () => {
    const { transport, app } = setup({ saved: { local: { 'tree.expanded': ['org:o1:o1', 'machine:o1:m1'] } } });
    transport.handle('orgs.list', orgsSnapshot([org('o1', 'Acme'), org('o2', 'Bravo')]));
    const parts = deferred<undefined>();
    transport.handleTree(async (r) => {
      if (r.orgId === 'o2') return { ok: false, error: { kind: 'internal', message: 'The fleet tree could not be read.' } };
      if (r.parts !== false) await parts.promise;
      return ok({ orgId: r.orgId, locations: [], machines: [], fromCache: false, syncedAt: null });
    });
    const { shown, stop } = await launch(app);
    // Acme's head is in, but its open machine would show no parts yet.
    expect(shown()).toBe(false);
    parts.resolve(undefined);
    await idle();
    expect(shown()).toBe(true);
    stop();
  });

  test('the tree counts as shown without the organizations drawn below the rows the frame showed (after a big one)', async () => {
    const { transport, app } = setup({ saved: { local: { 'tree.expanded': ['org:o1:o1', 'location:o1:l1'] } } });
    transport.handle('orgs.list', orgsSnapshot([org('o1', 'Acme'), org('o2', 'Bravo')]));
    const bravo = deferred<undefined>();
    const machines = Array.from({ length: 100 }, (_, i) => ({ id: `m${i}`, name: `bot-${String(i).padStart(3, '0')}`, locationId: 'l1', parts: [] }));
    const locations = [{ id: 'l1', name: 'Yard', parentLocationId: '', ownerOrgId: 'o1', sharedWithOrgIds: [] }];
    transport.handleTree(async (r) => {
      if (r.orgId === 'o2') await bravo.promise;
      return ok(r.orgId === 'o1' ? { orgId: 'o1', locations, machines, fromCache: false, syncedAt: null } : { orgId: r.orgId, locations: [], machines: [], fromCache: false, syncedAt: null });
    });
    const { shown, stop } = await launch(app);
    // Acme's 102 rows fill more than the frame held: Bravo's row is below them, its tree not needed yet.
    expect(app.fleet.rows.indexOfKey('org:o2:o2')).toBe(102);
    expect(shown()).toBe(true);
    bravo.resolve(undefined);
    await idle();
    stop();
  });

  test('when the backend link comes back after a loss, everything is loaded again', async () => {
    const { transport, app, link } = setup();
    app.follow();
    await idle();
    const before = transport.calls.length;
    link.set({ status: 'waiting', retryAt: 1, failures: 1, everOpened: true });
    expect(app.link.down).toBe(true);
    link.set({ status: 'connecting', retryAt: null, failures: 1, everOpened: true });
    expect(transport.calls.length).toBe(before);
    link.set({ status: 'open', retryAt: null, failures: 0, everOpened: true });
    await settle();
    expect(app.link.down).toBe(false);
    // Every snapshot, the fleet tree of each organization (none drawn yet: its head without parts, then its parts alone), and what the features show (the upload queue, the training badge, the fragment drafts to offer);
    // with the first trees drawn, main hears that the first view is (no component loaded them before).
    expect(transport.calls.slice(before).map((c) => c.channel).sort()).toEqual([
      'connection.get',
      'fragments.drafts',
      'localService.get',
      'locations.treeColumns',
      'locations.treeParts',
      'orgs.list',
      'profiles.list',
      'registry.uploads',
      'training.summary',
      'ui.restored',
    ]);
  });
});

describe('FleetApp pages', () => {
  test('a start with no address shows the page of the last run, and remembers every page shown', async () => {
    const { app, history, saved } = setup({ saved: { local: { 'app.route': '/orgs/o1/training' } } });
    const stop = app.follow();
    await idle();
    expect(app.router.path).toBe('/orgs/o1/training');
    expect(history.entries).toEqual(['/orgs/o1/training']);
    app.router.go('/registry?org=o1');
    await idle();
    expect(saved['local']?.['app.route']).toBe('/registry?org=o1');
    stop();
  });

  test('without a remembered page, the selected node\'s; an address (a reload) wins over both', async () => {
    const selected = setup({ saved: { local: { 'tree.selected': 'machine:o1:m1' } } });
    const stop = selected.app.follow();
    await idle();
    expect(selected.app.router.path).toBe('/orgs/o1/machines/m1');
    stop();
    const reloaded = setup({ address: '/orgs/o1/parts/p1/logs', saved: { local: { 'app.route': '/registry' } } });
    const stop2 = reloaded.app.follow();
    await idle();
    expect(reloaded.app.router.path).toBe('/orgs/o1/parts/p1/logs');
    stop2();
  });

  test('another profile: the pages of the last one close, and that profile\'s last page comes back', async () => {
    const { app, switchTo, saved } = setup({ saved: { local: { 'app.route': '/orgs/o1/training' }, remote: { 'app.route': '/registry/items/acme%3Aslam' } } });
    const stop = app.follow();
    await idle();
    expect(app.router.match?.route.owner).toBe('training');
    switchTo('remote');
    await idle();
    expect(app.router.path).toBe('/registry/items/acme%3Aslam');
    expect(app.router.match?.params).toEqual({ itemId: 'acme:slam' });
    // The first profile's remembered page is its own.
    expect(saved['local']?.['app.route']).toBe('/orgs/o1/training');
    stop();
  });

  test('a deep link opens its route, over the page of the last run', async () => {
    const { app, transport } = setup({ saved: { local: { 'app.route': '/orgs/o1/training' } } });
    const stop = app.follow();
    transport.emit('app.navigate', { route: '/registry?org=o1' });
    await idle();
    expect(app.router.path).toBe('/registry?org=o1');
    transport.emit('app.navigate', { route: '/orgs/o1/parts/p1/logs' });
    expect(app.router.match?.route.owner).toBe('logs');
    app.router.back();
    expect(app.router.path).toBe('/registry?org=o1');
    stop();
  });

  test('an action answering late leaves the page the user went to: a move over the registry, a delete of a node no longer shown', async () => {
    const { app } = setup();
    const stop = app.follow();
    await idle();
    app.router.go('/orgs/o1/machines/m1');
    app.router.go('/registry');
    app.fleet.reveal({ kind: 'machine', orgId: 'o1', id: 'm1' }, { fromFleetPage: true });
    expect(app.router.path).toBe('/registry');
    app.fleet.revealInstead({ kind: 'location', orgId: 'o1', id: 'l1' }, { kind: 'machine', orgId: 'o1', id: 'm1' });
    expect(app.router.path).toBe('/registry');
    app.router.back();
    app.fleet.revealInstead({ kind: 'location', orgId: 'o1', id: 'l1' }, { kind: 'machine', orgId: 'o1', id: 'm1' });
    expect(app.router.path).toBe('/orgs/o1/locations/l1');
    // Picking the page shown again brings its row into view, with no new entry.
    const entries = app.router.canGoForward;
    app.openNode({ kind: 'location', orgId: 'o1', id: 'l1' });
    expect(app.router.canGoForward).toBe(entries);
    stop();
  });

  test('an address no page has: the start page, and a notice that says so', async () => {
    const { app } = setup({ address: '/no/such/page' });
    const stop = app.follow();
    await idle();
    expect(app.router.path).toBe('/');
    expect(app.notices.items.map((n) => n.message)).toEqual(['The app has no page at /no/such/page; showing the start page instead.']);
    stop();
  });
});
