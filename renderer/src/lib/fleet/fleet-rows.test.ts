import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import type { FleetTree } from '../../../../common/locations';
import { indexTree, nodeKey, searchFlat, type FleetRow } from './fleet-index';
import { browseOrg, FleetRows, searchOrg } from './fleet-rows';

/** Site › (Floor A with bot-1 [main, arm], Floor B with bot-2 [main]). */
const tree: FleetTree = {
  orgId: 'o',
  syncedAt: null,
  locations: [
    { id: 'site', name: 'Site', parentLocationId: '', ownerOrgId: 'o', sharedWithOrgIds: [] },
    { id: 'fb', name: 'Floor B', parentLocationId: 'site', ownerOrgId: 'o', sharedWithOrgIds: [] },
    { id: 'fa', name: 'Floor A', parentLocationId: 'site', ownerOrgId: 'o', sharedWithOrgIds: [] },
  ],
  machines: [
    { id: 'm2', name: 'bot-2', locationId: 'fb', parts: [{ id: 'p3', name: 'bot-2-main', mainPart: true, lastAccess: null, markedForRestart: false }] },
    {
      id: 'm1',
      name: 'bot-1',
      locationId: 'fa',
      parts: [
        { id: 'p1', name: 'bot-1-main', mainPart: true, lastAccess: null, markedForRestart: false },
        { id: 'p2', name: 'bot-1-arm', mainPart: false, lastAccess: null, markedForRestart: false },
      ],
    },
  ],
};
const index = indexTree(tree);
const orgRow: FleetRow = { key: 'org:o:o', ref: { kind: 'org', orgId: 'o', id: 'o' }, label: 'Org', level: 1, parentKey: null, expandable: true, expanded: true, posinset: 1, setsize: 1 };
const key = (kind: 'location' | 'machine' | 'part', id: string) => nodeKey({ kind, orgId: 'o', id });
const view = (rows: FleetRows) => [...rows].map((r) => `${r.level}:${r.label}${r.expanded ? '+' : ''} ${r.posinset}/${r.setsize}`);

describe('fleet rows', () => {
  test('browsing steps over collapsed subtrees, in name order, with positions among all siblings', () => {
    const rows = new FleetRows([browseOrg(orgRow, index, new Set([key('location', 'site'), key('location', 'fa')]))]);
    expect(view(rows)).toEqual(['1:Org+ 1/1', '2:Site+ 1/1', '3:Floor A+ 1/2', '4:bot-1 1/1', '3:Floor B 2/2']);
    expect(rows.at(-1)?.label).toBe('Floor B');
    expect(rows.at(99)).toBeUndefined();
    // The same row object on every read; found by key by scanning, then through a table.
    expect(rows.at(3)).toBe(rows.at(3));
    for (let i = 0; i < 6; i++) expect(rows.indexOfKey(key('machine', 'm1'))).toBe(3);
    expect(rows.indexOfKey('nope')).toBe(-1);
  });

  test('searching shows matches in context, opened, with positions among the shown siblings and the match marked', () => {
    const found = searchFlat(index, 'arm');
    const rows = new FleetRows([searchOrg(orgRow, index, found.shown, new Set(), 'arm')]);
    expect(view(rows)).toEqual(['1:Org+ 1/1', '2:Site+ 1/1', '3:Floor A+ 1/1', '4:bot-1+ 1/1', '5:bot-1-arm 1/1']);
    expect(rows.at(-1)?.match).toEqual([6, 9]);
    // A machine the user had open shows all its parts.
    const open = new FleetRows([searchOrg(orgRow, index, found.shown, new Set([key('machine', 'm1')]), 'arm')]);
    expect(view(open).slice(-2)).toEqual(['5:bot-1-main 1/2', '5:bot-1-arm 2/2']);
  });

  test('a query typed on from the last one, searched among its matches only, finds what a full search finds', () => {
    const names = ['a', 'b', 'o', 't', '-', '1', '2', 'm', 'r'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...names), { minLength: 1, maxLength: 4 }), fc.constantFrom(...names), (typed, next) => {
        const query = typed.join('');
        const narrowed = searchFlat(index, query + next, searchFlat(index, query).matches);
        const full = searchFlat(index, query + next);
        expect(narrowed.matches).toEqual(full.matches);
        expect([...narrowed.shown]).toEqual([...full.shown]);
      }),
    );
  });
});
