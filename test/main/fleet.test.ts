/**
 * The fleet through the real backend and bridge router, against the real embedded service (forked,
 * demo fleet), the real cache file and the real cache worker: sync into the cache, every write
 * channel, offline browsing of everything, a sync cut off halfway, liveness of watched machines.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fleetTreeFromColumns, type FleetTree } from '../../common/locations';
import { isLive } from '../../common/machines';
import { FleetClient } from '../../main/grpc/client';
import { UpdateRobotRequest } from '../../proto/gen/fleet/app/v1/machines';
import { openTestBackend, tempDir, type TestBackend } from '../helpers/backend';

let dir: ReturnType<typeof tempDir>;
let app: TestBackend;
let acme: string;

beforeAll(async () => {
  dir = tempDir('fleet-desk-fleet-');
  app = await openTestBackend(dir.path, { timing: { retryMinMs: 100, retryMaxMs: 500, refreshMs: 60_000, deadlineMs: 5_000, livenessMs: 300 } });
  await app.backend.start();
  acme = (await app.value('orgs.list', {})).orgs.find((o) => o.name === 'Acme Warehouse Robotics')!.id;
}, 60_000);
afterAll(async () => {
  await app.close();
  dir.remove();
});

const tree = (orgId = acme) => app.value('locations.tree', { orgId });
const byName = (t: FleetTree, name: string) => t.locations.find((l) => l.name === name)!;

describe('sync', () => {
  it('brings every organization\'s locations, machines and parts into the cache, as the service lists them', async () => {
    const orgs = (await app.value('orgs.list', {})).orgs;
    let machines = 0;
    for (const org of orgs) {
      const t = await tree(org.id);
      const summaries = await app.value('machines.summaries', { orgId: org.id });
      const locations = await app.value('locations.list', { orgId: org.id });
      expect(t.syncedAt).not.toBeNull();
      expect(t.machines.map((m) => m.id).sort()).toEqual(summaries.map((s) => s.machineId).sort());
      expect(t.locations.map((l) => l.id).sort()).toEqual(locations.map((l) => l.id).sort());
      for (const s of summaries) {
        const cached = t.machines.find((m) => m.id === s.machineId)!;
        expect(cached.parts.map((p) => p.name)).toEqual(s.parts.map((p) => p.name));
        expect(cached.parts[0]?.mainPart).toBe(true);
      }
      machines += t.machines.length;
    }
    expect(machines).toBeGreaterThan(90);
    // The renderer's form of the same trees, over the bridge: the same rows in the same order.
    for (const org of orgs) expect(fleetTreeFromColumns(await app.value('locations.treeColumns', { orgId: org.id }))).toEqual(await tree(org.id));
    // Nested: a floor under a building under a site.
    const t = await tree();
    const floor = byName(t, 'Floor 1');
    const building = t.locations.find((l) => l.id === floor.parentLocationId)!;
    expect(building.name).toBe('Building A');
    expect(t.locations.find((l) => l.id === building.parentLocationId)?.name).toBe('Reno Fulfillment Center');
    // The shared location is in its partner's tree too, marked as another organization's.
    const harborline = orgs.find((o) => o.name === 'Harborline Logistics AMR')!.id;
    const shared = byName(await tree(harborline), 'Columbus DC');
    expect(shared.ownerOrgId).toBe(acme);
    expect(shared.sharedWithOrgIds).toEqual([harborline]);
  });

  it('reports progress while it runs and clears it at the end', async () => {
    const seen: (number | null)[] = [];
    const stop = app.backend.events.subscribe((event, payload) => {
      if (event === 'connection.changed') seen.push((payload as { sync: { orgsTotal: number } | null }).sync?.orgsTotal ?? null);
    });
    await app.value('orgs.refresh', {});
    stop();
    expect(seen.some((n) => n !== null && n >= 4)).toBe(true);
    expect(seen.at(-1)).toBeNull();
    expect((await app.value('connection.get', {})).sync).toBeNull();
  });

  it('has the renderer reload a tree only when it draws differently: a round that saw nothing new (the simulated parts checked in meanwhile) is silent; a rename made elsewhere is announced for its organization', async () => {
    const announced: string[] = [];
    const stop = app.backend.events.subscribe((event, payload) => {
      if (event === 'fleet.changed') announced.push(...(payload as { readonly orgIds: readonly string[] }).orgIds);
    });
    try {
      await app.value('orgs.refresh', {});
      expect(announced).toEqual([]);

      // Another client of the same service renames a machine.
      const credentials = JSON.parse(readFileSync(join(dir.path, 'local-service', 'bootstrap-credentials.json'), 'utf8')) as { api_key_id: string; api_key: string };
      const { address } = await app.value('connection.get', {});
      const other = new FleetClient({ address, tls: false, apiKeyId: credentials.api_key_id, apiKey: credentials.api_key });
      const machine = (await tree()).machines[0]!;
      try {
        await other.call('rename', other.app.updateRobot, UpdateRobotRequest.fromPartial({ robotId: machine.id, name: `${machine.name}-elsewhere`, locationId: machine.locationId }));
        await app.value('orgs.refresh', {});
        expect(announced).toEqual([acme]);
        expect((await tree()).machines.find((m) => m.id === machine.id)?.name).toBe(`${machine.name}-elsewhere`);
      } finally {
        await other.call('rename back', other.app.updateRobot, UpdateRobotRequest.fromPartial({ robotId: machine.id, name: machine.name, locationId: machine.locationId }));
        other.close();
        await app.value('orgs.refresh', {});
      }
    } finally {
      stop();
    }
  });
});

describe('writes', () => {
  it('creates, renames, moves and deletes locations, machines and parts, keeping the cached tree equal to the service', async () => {
    const events: string[][] = [];
    const stop = app.backend.events.subscribe((event, payload) => {
      if (event === 'fleet.changed') events.push([...(payload as { readonly orgIds: readonly string[] }).orgIds]);
    });
    const site = await app.value('locations.create', { orgId: acme, name: 'Test Site' });
    const floor = await app.value('locations.create', { orgId: acme, name: 'Test Floor', parentLocationId: site.id });
    expect(byName(await tree(), 'Test Floor').parentLocationId).toBe(site.id);

    const machine = await app.value('machines.create', { locationId: floor.id, name: 'test-bot' });
    let cached = (await tree()).machines.find((m) => m.id === machine.id)!;
    expect(cached.parts.map((p) => [p.name, p.mainPart])).toEqual([['test-bot-main', true]]);
    expect((await app.value('locations.get', { locationId: floor.id })).robotCount).toBe(1);

    const part = await app.value('machines.createPart', { machineId: machine.id, name: 'test-bot-arm' });
    const parts = await app.value('machines.markMain', { partId: part.id });
    expect(parts.map((p) => [p.name, p.mainPart])).toEqual([
      ['test-bot-arm', true],
      ['test-bot-main', false],
    ]);
    cached = (await tree()).machines.find((m) => m.id === machine.id)!;
    expect(cached.parts.map((p) => [p.name, p.mainPart])).toEqual([
      ['test-bot-arm', true],
      ['test-bot-main', false],
    ]);

    await app.value('machines.update', { machineId: machine.id, name: 'renamed-bot', locationId: site.id });
    cached = (await tree()).machines.find((m) => m.id === machine.id)!;
    expect(cached).toMatchObject({ name: 'renamed-bot', locationId: site.id });
    expect((await app.value('locations.get', { locationId: floor.id })).robotCount).toBe(0);

    const restart = await app.value('machines.markRestart', { partId: part.id });
    expect(restart.markedForRestart).toBe(true);

    await app.value('locations.update', { locationId: floor.id, name: 'Moved Floor', parentLocationId: '' });
    expect(byName(await tree(), 'Moved Floor').parentLocationId).toBe('');

    const deleteSite = await app.call('locations.delete', { locationId: site.id });
    expect(deleteSite).toMatchObject({ ok: false, error: { kind: 'invalid', message: expect.stringMatching(/still holds 1 machine \("renamed-bot"\)/) } });
    const mainDelete = await app.call('machines.deletePart', { partId: part.id });
    expect(mainDelete).toMatchObject({ ok: false, error: { kind: 'invalid' } });
    await app.value('machines.delete', { machineId: machine.id });
    await app.value('locations.delete', { locationId: site.id });
    await app.value('locations.delete', { locationId: floor.id });
    const after = await tree();
    expect(after.machines.some((m) => m.id === machine.id)).toBe(false);
    expect(after.locations.some((l) => l.id === site.id || l.id === floor.id)).toBe(false);
    stop();
    expect(events.length).toBeGreaterThan(5);
    expect(events.every((orgIds) => orgIds.includes(acme))).toBe(true);
  });

  it('refuses what the service refuses, with the cache untouched', async () => {
    const before = await tree();
    const floor = byName(before, 'Floor 1');
    const taken = before.machines.find((m) => m.locationId === floor.id)!;
    const dup = await app.call('machines.create', { locationId: floor.id, name: taken.name });
    expect(dup).toMatchObject({ ok: false, error: { kind: 'conflict', message: expect.stringContaining('names are unique within a location') } });
    const cycle = await app.call('locations.update', { locationId: byName(before, 'Reno Fulfillment Center').id, parentLocationId: floor.id });
    expect(cycle).toMatchObject({ ok: false, error: { kind: 'invalid' } });
    const after = await tree();
    expect(after.machines).toEqual(before.machines);
    expect(after.locations).toEqual(before.locations);
  });

  it('shares a location with another organization: its tree gains the location and its machines', async () => {
    const orgs = (await app.value('orgs.list', {})).orgs;
    const northfield = orgs.find((o) => o.name === 'Northfield Agri-Bots')!.id;
    const bay = byName(await tree(), 'Floor 2');
    await app.value('locations.share', { locationId: bay.id, orgId: northfield });
    const theirs = await tree(northfield);
    expect(theirs.locations.some((l) => l.id === bay.id)).toBe(true);
    expect(theirs.machines.filter((m) => m.locationId === bay.id).length).toBeGreaterThan(0);
    expect((await app.value('orgs.withAccessToLocation', { locationId: bay.id })).map((o) => o.id)).toEqual([acme, northfield]);
    await app.value('locations.unshare', { locationId: bay.id, orgId: northfield });
    expect((await tree(northfield)).locations.some((l) => l.id === bay.id)).toBe(false);
  });

  it('updates organizations: fields, a namespace taken or set once, metadata (invalid refused before any call)', async () => {
    const org = await app.value('orgs.create', { name: 'Write Test Co' });
    expect((await app.value('orgs.update', { orgId: org.id, region: 'eu-north' })).region).toBe('eu-north');
    expect(await app.value('orgs.namespaceAvailable', { publicNamespace: 'acme-warehouse' })).toEqual({ available: false });
    const taken = await app.call('orgs.update', { orgId: org.id, publicNamespace: 'acme-warehouse' });
    expect(taken).toMatchObject({ ok: false, error: { kind: 'conflict' } });
    expect((await app.value('orgs.update', { orgId: org.id, publicNamespace: 'write-test-co' })).publicNamespace).toBe('write-test-co');
    expect(await app.call('orgs.update', { orgId: org.id, publicNamespace: 'another-one' })).toMatchObject({ ok: false, error: { kind: 'invalid' } });

    const meta = await app.value('orgs.setMetadata', { orgId: org.id, metadata: { tier: 'gold', sites: [1, 2] } });
    expect(meta).toMatchObject({ metadata: { tier: 'gold', sites: [1, 2] }, fromCache: false });
    expect((await app.value('orgs.metadata', { orgId: org.id })).metadata).toEqual({ tier: 'gold', sites: [1, 2] });
    const huge = await app.call('orgs.setMetadata', { orgId: org.id, metadata: { x: 'y'.repeat(70_000) } });
    expect(huge).toMatchObject({ ok: false, error: { kind: 'invalid', message: expect.stringContaining('64 KiB') } });

    const snapshot = await app.value('orgs.delete', { orgId: org.id });
    expect(snapshot.orgs.some((o) => o.id === org.id)).toBe(false);
  });

  it('keeps UI state per profile', async () => {
    expect(await app.value('ui.get', { key: 'tree.expanded' })).toEqual({ value: null });
    await app.value('ui.set', { key: 'tree.expanded', value: ['a', 'b'] });
    expect(await app.value('ui.get', { key: 'tree.expanded' })).toEqual({ value: ['a', 'b'] });
  });
});

describe('liveness', () => {
  it('reports changes of watched parts within seconds, and only of those', async () => {
    const t = await tree();
    const machines = t.machines.slice(0, 8).map((m) => m.id);
    const reports: Record<string, { lastAccess: string | null }>[] = [];
    const stop = app.backend.events.subscribe((event, payload) => {
      if (event === 'machines.liveness') reports.push((payload as { parts: Record<string, { lastAccess: string | null }> }).parts);
    });
    const first = await app.value('machines.watch', { machineIds: machines });
    expect(Object.keys(first.parts).length).toBeGreaterThanOrEqual(machines.length);
    // Demo parts that check in every few seconds report a newer last access soon.
    await expect.poll(() => reports.length, { timeout: 10_000 }).toBeGreaterThan(0);
    const watchedParts = new Set(t.machines.filter((m) => machines.includes(m.id)).flatMap((m) => m.parts.map((p) => p.id)));
    expect(reports.flatMap((r) => Object.keys(r)).every((id) => watchedParts.has(id))).toBe(true);
    expect(reports.flatMap((r) => Object.values(r)).some((p) => isLive(p.lastAccess, Date.now()))).toBe(true);
    stop();
    await app.value('machines.watch', { machineIds: [] });
  });
});

describe('offline', () => {
  it('answers every read from the cache with the service stopped, and refuses writes saying nothing changed', async () => {
    const t = await tree();
    const machine = t.machines[0]!;
    const location = t.locations[0]!;
    await app.value('machines.part', { partId: machine.parts[0]!.id });
    await app.value('locations.metadata', { locationId: location.id });
    await app.value('localService.stop', {});
    await expect.poll(async () => (await app.value('connection.get', {})).status).toBe('offline');

    expect(await tree()).toEqual({ ...t, syncedAt: t.syncedAt });
    expect((await app.value('machines.get', { machineId: machine.id })).name).toBe(machine.name);
    expect((await app.value('machines.parts', { machineId: machine.id })).map((p) => p.name)).toEqual(machine.parts.map((p) => p.name));
    const part = await app.value('machines.part', { partId: machine.parts[0]!.id });
    expect(part).toMatchObject({ fromCache: true, config: null, name: machine.parts[0]!.name });
    expect(part.secretCount).toBeGreaterThan(0);
    expect((await app.value('locations.get', { locationId: location.id })).name).toBe(location.name);
    expect(await app.value('locations.metadata', { locationId: location.id })).toMatchObject({ fromCache: true });
    expect((await app.value('locations.list', { orgId: acme })).length).toBe(t.locations.length);
    expect((await app.value('machines.list', { locationId: machine.locationId })).some((m) => m.id === machine.id)).toBe(true);

    const refused = await app.call('machines.create', { locationId: location.id, name: 'offline-bot' });
    expect(refused).toMatchObject({ ok: false, error: { kind: 'offline', message: expect.stringContaining('Nothing was changed') } });
    const neverRead = await app.call('machines.metadata', { machineId: machine.id });
    expect(neverRead).toMatchObject({ ok: false, error: { kind: 'offline', message: expect.stringContaining('not in the cache') } });

    await app.value('localService.start', {});
    await expect.poll(async () => (await app.value('connection.get', {})).status, { timeout: 15_000 }).toBe('online');
  });
});
