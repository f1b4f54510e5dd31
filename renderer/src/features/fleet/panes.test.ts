import { describe, expect, it } from 'vitest';
import type { Location } from '../../../../common/locations';
import type { Machine, Part, PartDetails } from '../../../../common/machines';
import { err, ok, type Result } from '../../../../common/result';
import { deferred, fakeBridge, settle } from '../../lib/testing/fake-transport';
import { LocationView, MachineView, PartView } from './panes.svelte';

const location = (id: string, name: string): Location => ({ id, name, parentLocationId: '', region: 'eu', ownerOrgId: 'o1', sharedWithOrgIds: [], createdOn: null, robotCount: 0 });
const machine = (id: string, name: string): Machine => ({ id, name, locationId: 'l1', createdOn: null, lastAccess: null });
const part = (id: string, name: string): Part => ({
  id,
  name,
  machineId: 'm1',
  locationId: 'l1',
  mainPart: true,
  fqdn: `${name}.example`,
  localFqdn: `${name}.local`,
  lastAccess: null,
  createdOn: null,
  lastUpdated: null,
  markedForRestart: false,
  secretCount: 1,
});
const partDetails = (id: string, name: string): PartDetails => ({ ...part(id, name), config: null, configJson: null, fromCache: false });

describe('LocationView', () => {
  it('keeps the newest read when answers cross, and says a failure without dropping what it shows', async () => {
    const { transport, bridge } = fakeBridge();
    const answers = [deferred<Result<Location>>(), deferred<Result<Location>>()];
    let call = 0;
    transport.handle('locations.get', () => answers[call++]!.promise);
    const view = new LocationView(bridge);
    const first = view.load('l1');
    const second = view.load('l1');
    expect(view.loading).toBe(true);
    answers[1]!.resolve(ok(location('l1', 'Yard (new)')));
    await second;
    answers[0]!.resolve(ok(location('l1', 'Yard (old)')));
    await first;
    expect(view.details?.name).toBe('Yard (new)');
    expect(view.loading).toBe(false);

    transport.handle('locations.get', () => err('offline', 'The service is not answering.'));
    await view.load('l1');
    expect(view.details?.name).toBe('Yard (new)');
    expect(view.error).toBe('The service is not answering.');
  });

  it('drops what it read of another location, and reads who has access on demand', async () => {
    const { transport, bridge } = fakeBridge();
    const slow = deferred<Result<Location>>();
    transport.handle('locations.get', ({ locationId }) => (locationId === 'l1' ? slow.promise : ok(location('l2', 'Dock'))));
    transport.handle('orgs.withAccessToLocation', [{ id: 'o1', name: 'Acme' }]);
    const view = new LocationView(bridge);
    const first = view.load('l1');
    await view.load('l2');
    slow.resolve(ok(location('l1', 'Yard')));
    await first;
    expect(view.details?.name).toBe('Dock');
    expect(view.access).toBeNull();
    await view.loadAccess('l2');
    expect(view.access).toEqual([{ id: 'o1', name: 'Acme' }]);
    expect(view.accessError).toBeNull();
  });
});

describe('MachineView', () => {
  it('applies each of its two reads that worked and says the first failure', async () => {
    const { transport, bridge } = fakeBridge();
    transport.handle('machines.get', machine('m1', 'rover'));
    transport.handle('machines.parts', () => err('offline', 'Parts are not answering.'));
    const view = new MachineView(bridge);
    await view.load('m1');
    expect(view.details?.name).toBe('rover');
    expect(view.parts).toBeNull();
    expect(view.error).toBe('Parts are not answering.');

    transport.handle('machines.parts', [part('p1', 'main')]);
    await view.load('m1');
    expect(view.parts?.map((p) => p.name)).toEqual(['main']);
    expect(view.error).toBeNull();
  });

  it('ignores an older read that answers last', async () => {
    const { transport, bridge } = fakeBridge();
    const slow = deferred<Result<Machine>>();
    let call = 0;
    transport.handle('machines.get', () => (call++ === 0 ? slow.promise : ok(machine('m1', 'rover (renamed)'))));
    transport.handle('machines.parts', []);
    const view = new MachineView(bridge);
    const first = view.load('m1');
    await view.load('m1');
    slow.resolve(ok(machine('m1', 'rover')));
    await first;
    await settle();
    expect(view.details?.name).toBe('rover (renamed)');
    expect(view.loading).toBe(false);
  });
});

describe('PartView', () => {
  it('loads a part, keeps the newest read, and says a failure', async () => {
    const { transport, bridge } = fakeBridge();
    const slow = deferred<Result<PartDetails>>();
    let call = 0;
    transport.handle('machines.part', () => (call++ === 0 ? slow.promise : ok(partDetails('p1', 'main'))));
    const view = new PartView(bridge);
    const first = view.load('p1');
    await view.load('p1');
    slow.resolve(ok(partDetails('p1', 'stale')));
    await first;
    expect(view.details?.name).toBe('main');

    transport.handle('machines.part', () => err('not-found', 'No such part.'));
    await view.load('p1');
    expect(view.details?.name).toBe('main');
    expect(view.error).toBe('No such part.');
  });
});
