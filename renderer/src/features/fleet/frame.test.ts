import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FLEET_FRAME_LABEL, FLEET_FRAME_LEVELS, FLEET_FRAME_ROWS } from '../../../../common/fleet-frame';
import type { FleetRow } from '../../lib/fleet/fleet-index';
import { fakeBridge } from '../../lib/testing/fake-transport';
import { FleetFrameKeeper, FRAME_SAVE_MS, fleetFrameOf, type FrameContext, type FrameSource } from './frame';

const local: FrameContext = { profileId: 'local', loaded: true };

const row = (kind: FleetRow['ref']['kind'], id: string, label: string, level: number, more: Partial<FleetRow> = {}): FleetRow => ({
  key: `${kind}:o1:${id}`,
  ref: { kind, orgId: 'o1', id },
  label,
  level,
  parentKey: null,
  expandable: kind !== 'part',
  expanded: false,
  posinset: 1,
  setsize: 1,
  ...more,
});

/** A fleet store's rows and state, as plain data. */
function source(rows: FleetRow[], more: Partial<Omit<FrameSource, 'rows'>> = {}): FrameSource & { rows: { length: number; at(i: number): FleetRow | undefined } } {
  // Read live, as the store's rows are: a test changes `rows` after the source is made.
  return {
    query: '',
    selectedKey: null,
    orgs: [{ id: 'o1' }],
    tree: () => ({}),
    rows: {
      get length() {
        return rows.length;
      },
      at: (i) => rows[i],
    },
    ...more,
  };
}

const fleet = [
  row('org', 'o1', 'Acme', 1, { expanded: true, count: 2, parts: [] }),
  row('location', 'l1', 'Yard', 2, { expanded: true, count: 2, shared: true }),
  row('machine', 'm1', 'amr-1', 3, { expanded: true, parts: [] }),
  row('part', 'p1', 'amr-1-main', 4, { main: true, match: [0, 3] }),
];

describe('fleetFrameOf', () => {
  it('keeps what the frame draws of each row, and which one is selected', () => {
    expect(fleetFrameOf(source(fleet, { selectedKey: 'machine:o1:m1' }), local)).toEqual({
      profileId: 'local',
      rows: [
        { level: 1, kind: 'org', orgId: 'o1', label: 'Acme', expandable: true, expanded: true, count: 2 },
        { level: 2, kind: 'location', label: 'Yard', expandable: true, expanded: true, count: 2, shared: true },
        { level: 3, kind: 'machine', label: 'amr-1', expandable: true, expanded: true, selected: true },
        { level: 4, kind: 'part', label: 'amr-1-main', expandable: false, expanded: false, main: true },
      ],
    });
  });

  it('keeps the top rows only, within the bounds main checks', () => {
    const many = Array.from({ length: FLEET_FRAME_ROWS + 50 }, (_, i) => row('location', `l${i}`, 'x'.repeat(FLEET_FRAME_LABEL + 10), i + 1));
    const frame = fleetFrameOf(source(many), local);
    expect(frame?.rows).toHaveLength(FLEET_FRAME_ROWS);
    expect(Math.max(...frame!.rows.map((r) => r.level))).toBe(FLEET_FRAME_LEVELS);
    expect(frame!.rows[0]!.label).toHaveLength(FLEET_FRAME_LABEL);
  });

  it('keeps nothing while a search is typed, a tree is still on its way, or the organizations or the profile are not known yet', () => {
    expect(fleetFrameOf(source(fleet, { query: 'amr' }), local)).toBeNull();
    expect(fleetFrameOf(source(fleet, { orgs: [{ id: 'o1' }, { id: 'o2' }], tree: (id) => (id === 'o1' ? {} : undefined) }), local)).toBeNull();
    // Before the list is in, no organizations is not an empty fleet: a good frame must not be wiped.
    expect(fleetFrameOf(source([], { orgs: [] }), { profileId: 'local', loaded: false })).toBeNull();
    expect(fleetFrameOf(source(fleet), { profileId: null, loaded: true })).toBeNull();
    expect(fleetFrameOf(source(fleet, { query: '  ' }), local)).not.toBeNull();
  });

  it('keeps an empty tree as no rows (the next launch draws the plain frame)', () => {
    expect(fleetFrameOf(source([], { orgs: [] }), local)).toEqual({ profileId: 'local', rows: [] });
  });
});

describe('FleetFrameKeeper', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('saves the rows once, FRAME_SAVE_MS after the last change, as they are then', async () => {
    const { transport, bridge } = fakeBridge();
    transport.handle('ui.set', {});
    const saved = () => transport.callsTo('ui.set');
    const rows = [...fleet];
    const keeper = new FleetFrameKeeper(bridge, source(rows), () => local);
    keeper.changed();
    vi.advanceTimersByTime(FRAME_SAVE_MS - 1);
    keeper.changed();
    rows.pop();
    vi.advanceTimersByTime(FRAME_SAVE_MS - 1);
    expect(saved()).toEqual([]);
    vi.advanceTimersByTime(1);
    await vi.runAllTimersAsync();
    expect(saved()).toEqual([{ key: 'fleet.frame', value: fleetFrameOf(source(fleet.slice(0, 3)), local) }]);
  });

  it('saves nothing when the rows are not what a launch would draw, or once stopped', async () => {
    const { transport, bridge } = fakeBridge();
    transport.handle('ui.set', {});
    const saved = () => transport.callsTo('ui.set');
    new FleetFrameKeeper(bridge, source(fleet, { query: 'amr' }), () => local).changed();
    const stopped = new FleetFrameKeeper(bridge, source(fleet), () => local);
    stopped.changed();
    stopped.stop();
    await vi.runAllTimersAsync();
    expect(saved()).toEqual([]);
  });

  it('tags the rows with the profile active when they are saved, not when the change came', async () => {
    const { transport, bridge } = fakeBridge();
    transport.handle('ui.set', {});
    let context = local;
    const keeper = new FleetFrameKeeper(bridge, source(fleet), () => context);
    keeper.changed();
    context = { profileId: 'work', loaded: true };
    await vi.runAllTimersAsync();
    expect(transport.callsTo('ui.set')).toEqual([{ key: 'fleet.frame', value: { ...fleetFrameOf(source(fleet), local), profileId: 'work' } }]);
  });
});
