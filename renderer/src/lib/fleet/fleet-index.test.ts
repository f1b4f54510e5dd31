import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { fleetColumns, fleetTreeFromColumns, partsFromColumns, treePartColumns, type FleetTree } from '../../../../common/locations';
import { indexTree, withParts, type TreeIndex } from './fleet-index';

/** Random trees: nested locations (some parents missing, some shared in), machines with 0–3 parts, names that tie. */
const trees: fc.Arbitrary<FleetTree> = fc
  .record({
    locations: fc.array(fc.record({ name: fc.constantFrom('Site', 'site', 'Bay 2', 'Bay 10', 'Dock'), parent: fc.nat(12), owner: fc.constantFrom('a', 'a', 'b') }), { maxLength: 10 }),
    machines: fc.array(fc.record({ name: fc.constantFrom('amr-9', 'amr-10', 'AMR-9', 'tug'), at: fc.nat(12), parts: fc.array(fc.constantFrom('main', 'arm', 'cam'), { maxLength: 3 }) }), { maxLength: 20 }),
  })
  .map(({ locations, machines }) => ({
    orgId: 'a',
    syncedAt: null,
    // A parent among the locations before this one, the top level, or one this tree does not have.
    locations: locations.map((l, i) => ({ id: `l${i}`, name: l.name, parentLocationId: l.parent < i ? `l${l.parent}` : l.parent % 2 === 0 ? '' : 'gone', ownerOrgId: l.owner, sharedWithOrgIds: l.owner === 'a' ? [] : ['a'] })),
    machines: machines.map((m, i) => ({
      id: `m${i}`,
      name: m.name,
      locationId: `l${m.at}`,
      parts: m.parts.map((name, j) => ({ id: `p${i}-${j}`, name, mainPart: j === 0, lastAccess: null, markedForRestart: false })),
    })),
  }));

/** What a row of a location or machine shows and where it is, its parent named by key (indexes shift without the parts). */
const drawn = (index: TreeIndex) =>
  index.flat
    .filter((n) => n.ref.kind !== 'part')
    .map((n) => ({ key: n.key, label: n.label, depth: n.depth, parent: index.flat[n.parent]?.key ?? null, posinset: n.posinset, setsize: n.setsize, count: n.count, shared: n.shared, locationExpandable: n.ref.kind === 'location' ? n.expandable : null }));

describe('a cold start head (the tree without its parts)', () => {
  test('draws every location and machine exactly where the whole tree draws them', () => {
    fc.assert(
      fc.property(trees, (tree) => {
        const head = fleetTreeFromColumns(fleetColumns({ ...tree, machines: tree.machines.map((m) => ({ ...m, parts: [] })) }));
        if (typeof head === 'string') throw new Error(head);
        const whole = indexTree(tree);
        const first = indexTree(head);
        expect(drawn(first)).toEqual(drawn(whole));
        expect([...first.counts]).toEqual([...whole.counts]);
        expect(first.tree.machines.length).toBe(tree.machines.length);
      }),
      { numRuns: 300 },
    );
  });

  test('completed with its parts, indexes to exactly what the whole tree indexes to', () => {
    fc.assert(
      fc.property(trees, fc.option(fc.constant('2026-11-26T10:00:00.000Z'), { nil: null }), (tree, syncedAt) => {
        const head = fleetTreeFromColumns(fleetColumns({ ...tree, syncedAt: null, machines: tree.machines.map((m) => ({ ...m, parts: [] })) }));
        if (typeof head === 'string') throw new Error(head);
        // The parts as the store gets them: columns over the head's machines, read (later) with their own syncedAt.
        const parts = partsFromColumns(treePartColumns({ ...tree, syncedAt }, 'stamp'), head.machines.length);
        if (typeof parts === 'string') throw new Error(parts);
        const headIndex = indexTree(head);
        const drawnBefore = drawn(headIndex);
        const completed = withParts(headIndex, parts, syncedAt);
        // Everything TreeIndex exposes: the tree, every map and list, the drawing order and its arrays.
        expect(completed).toStrictEqual(indexTree({ ...tree, syncedAt }));
        // The head it was built from is left as it was (it may still be drawn this frame).
        expect(drawn(headIndex)).toEqual(drawnBefore);
        expect(headIndex.tree.machines.every((m) => m.parts.length === 0)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
