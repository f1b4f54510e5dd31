import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { fleetColumns, type FleetTree } from '../../../../common/locations';
import { fakeBridge, settle } from '../testing/fake-transport';
import { org } from '../testing/fixtures';
import { FleetStore, nodeKey } from './fleet.svelte';

const now = '2026-11-23T12:00:00.000Z';

/** Acme: Site › Floor (with bot-1 of two parts), Site › Bay (empty), and a location shared in from another org. */
const acmeTree: FleetTree = {
  orgId: 'a',
  syncedAt: now,
  locations: [
    { id: 'site', name: 'Site', parentLocationId: '', ownerOrgId: 'a', sharedWithOrgIds: [] },
    { id: 'floor', name: 'Floor', parentLocationId: 'site', ownerOrgId: 'a', sharedWithOrgIds: [] },
    { id: 'bay', name: 'Bay', parentLocationId: 'site', ownerOrgId: 'a', sharedWithOrgIds: [] },
    { id: 'dock', name: 'Dock', parentLocationId: 'elsewhere', ownerOrgId: 'b', sharedWithOrgIds: ['a'] },
  ],
  machines: [
    {
      id: 'bot-1',
      name: 'bot-1',
      locationId: 'floor',
      parts: [
        { id: 'p1', name: 'bot-1-main', mainPart: true, lastAccess: now, markedForRestart: false },
        { id: 'p2', name: 'bot-1-arm', mainPart: false, lastAccess: null, markedForRestart: false },
      ],
    },
    { id: 'bot-2', name: 'bot-2', locationId: 'dock', parts: [{ id: 'p3', name: 'bot-2-main', mainPart: true, lastAccess: null, markedForRestart: false }] },
  ],
};

function setup(saved: { expanded?: unknown; selected?: unknown } = {}) {
  const { transport, bridge } = fakeBridge();
  transport
    .handleTree(({ orgId }) => ({ ok: true, value: orgId === 'a' ? acmeTree : { orgId, syncedAt: null, locations: [], machines: [] } }))
    .handle('ui.get', ({ key }) => ({ ok: true, value: { value: key === 'tree.expanded' ? (saved.expanded ?? null) : (saved.selected ?? null) } }))
    .handle('ui.set', {});
  const orgs = [org('a', 'Acme'), org('z', 'Zeta')];
  const store = new FleetStore(bridge, () => orgs);
  return { transport, store };
}

const labels = (store: FleetStore) => [...store.rows].map((r) => `${'  '.repeat(r.level - 1)}${r.label}`);

describe('FleetStore', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] }));
  afterEach(() => vi.useRealTimers());

  test('a cold start asks every organization’s head before any parts (main reads one tree at a time), then completes each with its parts', async () => {
    const { transport, store } = setup();
    store.ensureTrees();
    await settle();
    const asked = transport.calls.filter((c) => c.channel.startsWith('locations.')).map((c) => `${c.channel === 'locations.treeParts' ? 'parts' : 'head'} ${(c.request as { orgId: string }).orgId}`);
    expect(asked).toEqual(['head a', 'head z', 'parts a', 'parts z']);
    expect(store.tree('a')?.partMachine.get('p3')?.id).toBe('bot-2');
  });

  test('draws organizations, then what is expanded: nested locations before machines, parts under machines, counts at any depth', async () => {
    const { store } = setup();
    store.follow();
    store.ensureTrees();
    await settle();
    expect(labels(store)).toEqual(['Acme', 'Zeta']);
    store.setExpanded(nodeKey({ kind: 'org', orgId: 'a', id: 'a' }), true);
    store.setExpanded(nodeKey({ kind: 'location', orgId: 'a', id: 'site' }), true);
    store.setExpanded(nodeKey({ kind: 'location', orgId: 'a', id: 'floor' }), true);
    store.setExpanded(nodeKey({ kind: 'machine', orgId: 'a', id: 'bot-1' }), true);
    // A shared location whose parent is not in this tree shows at the top level.
    expect(labels(store)).toEqual(['Acme', '  Dock', '  Site', '    Bay', '    Floor', '      bot-1', '        bot-1-main', '        bot-1-arm', 'Zeta']);
    const site = [...store.rows].find((r) => r.label === 'Site')!;
    expect(site).toMatchObject({ count: 1, posinset: 2, setsize: 2, expandable: true, expanded: true });
    expect([...store.rows].find((r) => r.label === 'Dock')).toMatchObject({ shared: true, count: 1 });
    expect([...store.rows].find((r) => r.label === 'Bay')).toMatchObject({ expandable: false, count: 0 });
    expect([...store.rows].find((r) => r.label === 'bot-1-main')).toMatchObject({ main: true, level: 5, parentKey: nodeKey({ kind: 'machine', orgId: 'a', id: 'bot-1' }) });
  });

  test('a cold start draws the locations and machines before the whole tree arrives; only drawing and search read that head', async () => {
    const keys = [nodeKey({ kind: 'org', orgId: 'a', id: 'a' }), nodeKey({ kind: 'location', orgId: 'a', id: 'site' }), nodeKey({ kind: 'location', orgId: 'a', id: 'floor' }), nodeKey({ kind: 'machine', orgId: 'a', id: 'bot-1' })];
    const { store, transport } = setup({ expanded: keys });
    let release = (): void => undefined;
    const whole = new Promise<void>((resolve) => (release = resolve));
    transport.handleTree(async ({ orgId, parts }) => {
      if (parts !== false) await whole;
      return { ok: true, value: orgId === 'a' ? acmeTree : { orgId, syncedAt: null, locations: [], machines: [] } };
    });
    store.follow();
    store.ensureTrees();
    await settle();
    // The head, then the parts alone: the locations and machines cross the bridge once.
    expect(transport.callsTo('locations.treeColumns')).toEqual([{ orgId: 'a', parts: false }, { orgId: 'z', parts: false }]);
    expect(transport.callsTo('locations.treeParts')).toEqual([{ orgId: 'a' }, { orgId: 'z' }]);
    // The head: every location and machine where the whole tree puts them, machines without parts yet.
    expect(labels(store)).toEqual(['Acme', '  Dock', '  Site', '    Bay', '    Floor', '      bot-1', 'Zeta']);
    expect([...store.rows].find((r) => r.label === 'Acme')).toMatchObject({ count: 2 });
    expect(store.tree('a')).toBeUndefined();
    // Search finds the machines of the head at once, and says part names are still to come.
    store.query = 'bot-1';
    expect(store.matchCount).toBe(1);
    expect(store.searchPartial).toBe(true);
    expect(labels(store)).toEqual(['Acme', '  Site', '    Floor', '      bot-1']);
    release();
    await settle();
    // The parts in: the same query finds the machine's parts too, and the search is whole.
    expect(store.matchCount).toBe(3);
    expect(store.searchPartial).toBe(false);
    expect(labels(store)).toEqual(['Acme', '  Site', '    Floor', '      bot-1', '        bot-1-main', '        bot-1-arm']);
    store.query = '';
    expect(labels(store)).toEqual(['Acme', '  Dock', '  Site', '    Bay', '    Floor', '      bot-1', '        bot-1-main', '        bot-1-arm', 'Zeta']);
    expect(store.tree('a')?.tree).toEqual(acmeTree);
    // Drawn: a later load (a change) asks for the whole tree only.
    await store.loadTree('a');
    expect(transport.callsTo('locations.treeColumns').at(-1)).toEqual({ orgId: 'a' });
    expect(transport.callsTo('locations.treeColumns')).toHaveLength(3);
    expect(transport.callsTo('locations.treeParts')).toHaveLength(2);
  });

  test('a head made stale by a change before its parts were read is not completed: the whole tree is read instead', async () => {
    const { store, transport } = setup({ expanded: [nodeKey({ kind: 'org', orgId: 'a', id: 'a' })] });
    const renamed = { ...acmeTree, machines: acmeTree.machines.map((m) => ({ ...m, name: `${m.name}-new` })) };
    // The head read before a sync renamed the machines; the parts (and any later read) after it.
    transport.handleTree(({ orgId, parts }) => ({ ok: true, value: orgId !== 'a' ? { orgId, syncedAt: null, locations: [], machines: [] } : parts === false ? acmeTree : renamed }));
    store.follow();
    store.ensureTrees();
    await settle();
    expect(transport.callsTo('locations.treeColumns')).toEqual([{ orgId: 'a', parts: false }, { orgId: 'z', parts: false }, { orgId: 'a' }]);
    expect(store.tree('a')?.tree).toEqual(renamed);
  });

  test('a main without locations.treeParts still gives the whole tree', async () => {
    const { store, transport } = setup({ expanded: [nodeKey({ kind: 'org', orgId: 'a', id: 'a' })] });
    transport.handleTree(({ orgId }) => ({ ok: true, value: orgId === 'a' ? acmeTree : { orgId, syncedAt: null, locations: [], machines: [] } }));
    transport.handle('locations.treeParts', () => ({ ok: false, error: { kind: 'internal', message: 'unknown channel' } }));
    await store.loadTree('a');
    expect(store.tree('a')?.tree).toEqual(acmeTree);
    expect(transport.callsTo('locations.treeColumns')).toEqual([{ orgId: 'a', parts: false }, { orgId: 'a' }]);
  });

  test('a head is not left drawn when the whole tree fails', async () => {
    const { store, transport } = setup({ expanded: [nodeKey({ kind: 'org', orgId: 'a', id: 'a' })] });
    transport.handleTree(({ orgId, parts }) => (parts === false ? { ok: true, value: orgId === 'a' ? acmeTree : { orgId, syncedAt: null, locations: [], machines: [] } } : { ok: false, error: { kind: 'internal', message: 'disk gone' } }));
    store.follow();
    store.ensureTrees();
    await settle();
    expect(labels(store)).toEqual(['Acme', 'Zeta']);
    expect(store.treeError('a')?.message).toBe('disk gone');
  });

  test('remembers what is expanded per profile: restored on start, saved (debounced) on change', async () => {
    const expandedKey = nodeKey({ kind: 'org', orgId: 'a', id: 'a' });
    const { store, transport } = setup({ expanded: [expandedKey], selected: nodeKey({ kind: 'location', orgId: 'a', id: 'bay' }) });
    store.follow();
    store.ensureTrees();
    await settle();
    expect(labels(store)).toEqual(['Acme', '  Dock', '  Site', 'Zeta']);
    expect(store.selected).toEqual({ kind: 'location', orgId: 'a', id: 'bay' });
    store.setExpanded(nodeKey({ kind: 'location', orgId: 'a', id: 'site' }), true);
    store.setExpanded(nodeKey({ kind: 'location', orgId: 'a', id: 'dock' }), true);
    expect(transport.callsTo('ui.set')).toEqual([]);
    vi.advanceTimersByTime(600);
    expect(transport.callsTo('ui.set')).toEqual([{ key: 'tree.expanded', value: [expandedKey, nodeKey({ kind: 'location', orgId: 'a', id: 'site' }), nodeKey({ kind: 'location', orgId: 'a', id: 'dock' })] }]);
  });

  test('search reveals matches in context, with the match marked, whatever is expanded', async () => {
    const { store } = setup();
    store.follow();
    store.ensureTrees();
    await settle();
    store.query = 'ARM';
    expect(labels(store)).toEqual(['Acme', '  Site', '    Floor', '      bot-1', '        bot-1-arm']);
    expect(store.rows.at(-1)?.match).toEqual([6, 9]);
    expect(store.matchCount).toBe(1);
    store.query = 'nothing like it';
    expect([...store.rows]).toEqual([]);
    store.query = '';
    expect(labels(store)).toEqual(['Acme', 'Zeta']);
  });

  test('reveal opens every ancestor and selects; liveness reports override the cached values', async () => {
    const { store } = setup();
    store.follow();
    store.ensureTrees();
    await settle();
    store.reveal({ kind: 'part', orgId: 'a', id: 'p2' });
    expect(store.selectedKey).toBe(nodeKey({ kind: 'part', orgId: 'a', id: 'p2' }));
    expect(labels(store)).toContain('        bot-1-arm');
    const part = acmeTree.machines[0]!.parts[1]!;
    expect(store.partState(part).lastAccess).toBeNull();
    store.applyLiveness({ at: now, parts: { p2: { lastAccess: now, markedForRestart: true } } });
    expect(store.partState(part)).toEqual({ lastAccess: now, markedForRestart: true });
    expect(store.label({ kind: 'part', orgId: 'a', id: 'p2' })).toBe('bot-1-arm');
  });

  test('with the app\'s router: reveal opens the ancestors and asks for the node\'s page; after a delete, the parent\'s in its place', async () => {
    const { store } = setup();
    const asked: [string | null, boolean][] = [];
    store.navigate = (ref, options) => asked.push([ref ? nodeKey(ref) : null, options?.replace ?? false]);
    store.follow();
    store.ensureTrees();
    await settle();
    store.reveal({ kind: 'part', orgId: 'a', id: 'p2' });
    // Opened at once: when the page already is the node's (it moved), nothing else would open them.
    expect(labels(store)).toContain('        bot-1-arm');
    store.revealInstead({ kind: 'machine', orgId: 'a', id: 'bot-1' }, { kind: 'part', orgId: 'a', id: 'p2' });
    store.revealInstead(null, { kind: 'org', orgId: 'a', id: 'a' });
    store.reveal({ kind: 'machine', orgId: 'a', id: 'bot-1' }, { fromFleetPage: true });
    expect(asked).toEqual([
      ['part:a:p2', false],
      ['machine:a:bot-1', true],
      [null, true],
      ['machine:a:bot-1', false],
    ]);
  });

  test('whenTree answers a tree once its load ends, undefined when it failed or took too long', async () => {
    const { store, transport } = setup();
    const waiting = store.whenTree('a');
    store.ensureTrees();
    expect((await waiting)?.tree.orgId).toBe('a');
    expect(await store.whenTree('a')).toBe(store.tree('a'));
    transport.handleTree(() => ({ ok: false, error: { kind: 'offline', message: 'The service cannot be reached.' } }));
    const failing = store.whenTree('q');
    void store.loadTree('q');
    expect(await failing).toBeUndefined();
    const never = store.whenTree('never', { timeoutMs: 20 });
    vi.advanceTimersByTime(20);
    expect(await never).toBeUndefined();
    // Answered at once: an organization the loaded list does not have, a tree whose load failed.
    expect(await store.whenTree('gone', { orgsKnown: true })).toBeUndefined();
    expect(await store.whenTree('q')).toBeUndefined();
    const aborted = new AbortController();
    const waiting2 = store.whenTree('w', { signal: aborted.signal });
    aborted.abort();
    expect(await waiting2).toBeUndefined();
  });

  test('whenDrawn answers once an organization has rows to draw: its head, before the parts; a failed load, an unknown organization, a timeout', async () => {
    const { store, transport } = setup();
    let release = (): void => undefined;
    const whole = new Promise<void>((resolve) => (release = resolve));
    transport.handleTree(async ({ orgId, parts }) => {
      if (parts !== false) await whole;
      return { ok: true, value: orgId === 'a' ? acmeTree : { orgId, syncedAt: null, locations: [], machines: [] } };
    });
    let drawn = false;
    void store.whenDrawn('a').then(() => (drawn = true));
    let treeIn = false;
    void store.whenTree('a').then(() => (treeIn = true));
    store.ensureTrees();
    await settle();
    expect(drawn).toBe(true);
    expect(treeIn).toBe(false);
    expect(store.tree('a')).toBeUndefined();
    release();
    await settle();
    expect(treeIn).toBe(true);
    await store.whenDrawn('a');
    transport.handleTree(() => ({ ok: false, error: { kind: 'offline', message: 'The service cannot be reached.' } }));
    const failing = store.whenDrawn('q');
    void store.loadTree('q');
    await failing;
    await store.whenDrawn('q');
    await store.whenDrawn('gone', { orgsKnown: true });
    let late = false;
    void store.whenDrawn('never', { timeoutMs: 20 }).then(() => (late = true));
    await settle();
    expect(late).toBe(false);
    vi.advanceTimersByTime(20);
    await settle();
    expect(late).toBe(true);
  });

  test('a malformed tree is an error that says so, not a tree drawn wrong', async () => {
    const { store, transport } = setup();
    transport.handle('locations.treeColumns', ({ orgId }) => ({ ok: true, value: { ...fleetColumns(acmeTree), orgId, machineNames: [] } }));
    await store.loadTree('a');
    expect(store.tree('a')).toBeUndefined();
    expect(store.treeError('a')).toEqual({ kind: 'internal', message: 'The fleet tree could not be read (the machine columns are malformed). Reload the app.' });
  });

  test('reloads the trees main names in fleet.changed', async () => {
    const { store, transport } = setup();
    store.follow();
    store.ensureTrees();
    await settle();
    const before = transport.callsTo('locations.treeColumns').length;
    transport.emit('fleet.changed', { orgIds: ['a'], all: false });
    await settle();
    expect(transport.callsTo('locations.treeColumns').slice(before)).toEqual([{ orgId: 'a' }]);
  });

  test('a node revealed right after its write is brought into view when the tree that holds it arrives', async () => {
    const { transport, store } = setup();
    store.follow();
    store.ensureTrees();
    await settle();
    // The write answered; the tree main will send next does not hold the new location yet here.
    const fresh = { id: 'shelf', name: 'Shelf', parentLocationId: 'bay', ownerOrgId: 'a', sharedWithOrgIds: [] };
    store.reveal({ kind: 'location', orgId: 'a', id: 'shelf' });
    expect(store.selectedKey).toBe(nodeKey({ kind: 'location', orgId: 'a', id: 'shelf' }));
    expect(store.expanded.has(nodeKey({ kind: 'location', orgId: 'a', id: 'bay' }))).toBe(false);
    transport.handleTree(() => ({ ok: true, value: { ...acmeTree, locations: [...acmeTree.locations, fresh] } }));
    transport.emit('fleet.changed', { orgIds: ['a'], all: false });
    await settle();
    expect(labels(store)).toEqual(['Acme', '  Dock', '  Site', '    Bay', '      Shelf', '    Floor', 'Zeta']);
  });
});
