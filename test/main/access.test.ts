/**
 * Access through the backend, as the renderer calls it, against a real fleet service on a loopback
 * port (in this process, so the test counts the Authenticate calls it serves) and two apps with real
 * backends and SQLite caches: the owner's app `a`, and app `b` that a limited key is handed to.
 * Members and invites, roles and who holds them, API keys (secret once, a profile from a new key in
 * one step), location and part secrets, what a key limited to one location may do and the refusal
 * of a write outside it, the limited profile asking once for a new key after its key was rotated
 * elsewhere (one sign-in per backoff step, measured at the service), and no secret anywhere at rest
 * but in the keychain: not in the caches, the profiles files, the logs or any bridge event.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Server, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { whyNot, type ResourceRef } from '../../common/access';
import { MemoryKeychain } from '../../main/keychain/keychain';
import { FleetClient } from '../../main/grpc/client';
import { addUser, startService, type RunningService } from '../../service/server';
import { openTestBackend, tempDir, type TestBackend } from '../helpers/backend';

/** Authenticate calls the service answered, each with when. */
const signIns: number[] = [];
const addService = Server.prototype.addService;
// Counts at the service itself: every Authenticate it serves goes through this wrapper.
Server.prototype.addService = function (this: Server, service, implementation: UntypedServiceImplementation) {
  const auth = implementation.authenticate as ((...args: unknown[]) => unknown) | undefined;
  if (auth && Object.values(service).some((m) => (m as { path?: string }).path === '/fleet.auth.v1.AuthService/Authenticate')) {
    implementation = {
      ...implementation,
      authenticate: (...args: unknown[]) => {
        signIns.push(Date.now());
        return auth(...args);
      },
    };
  }
  return addService.call(this, service, implementation);
};

const timing = { retryMinMs: 200, retryMaxMs: 800, refreshMs: 60_000, deadlineMs: 5_000 };

let dir: { path: string; remove: () => void };
let service: RunningService;
let a: TestBackend;
let b: TestBackend;
let orgId: string;
let orgName: string;
/** Every key secret and secret value the suite made: none may be found at rest or in an event. */
const secrets = new Set<string>();
/** Every bridge event both apps emitted, as sent. */
const events: string[] = [];

beforeAll(async () => {
  dir = tempDir('fleet-desk-access-');
  service = await startService({ listen: '127.0.0.1:0', dataDir: join(dir.path, 'service'), log: () => undefined });
  const open = async (name: string) => {
    const app = await openTestBackend(join(dir.path, name), { timing, keychain: { store: new MemoryKeychain(), status: { available: true, reason: null } } });
    app.backend.events.subscribe((event, payload) => events.push(`${event} ${JSON.stringify(payload)}`));
    return app;
  };
  a = await open('a');
  b = await open('b');
  const { apiKeyId, apiKey } = service.bootstrap;
  const address = service.address;
  orgId = service.bootstrap.orgId;
  await a.value('profiles.add', { name: 'Owner', address, tls: false, apiKeyId, apiKey });
  orgName = (await a.value('orgs.get', { orgId })).name;
}, 60_000);

afterAll(async () => {
  Server.prototype.addService = addService;
  await a?.close();
  await b?.close();
  await service?.close();
  dir?.remove();
});

async function failure(result: Promise<{ ok: boolean; error?: { kind: string; message: string } }>) {
  const r = await result;
  expect(r.ok).toBe(false);
  return r.error!;
}

const location = async (app: TestBackend, name: string) => (await app.value('locations.create', { orgId, name })).id;

describe('API keys', () => {
  it('creates a key with its secret once, lists it without one, renames, duplicates its rights, rotates and deletes it', async () => {
    const dock = await location(a, 'Dock');
    const made = await a.value('access.createKey', { orgId, name: 'Dock robot', grants: [{ resourceType: 'location', resourceId: dock, role: 'operator' }] });
    secrets.add(made.secret);
    expect(made).toMatchObject({ name: 'Dock robot' });
    expect(made.secret.length).toBeGreaterThan(20);
    expect(Date.parse(made.rememberedUntil)).toBeGreaterThan(Date.now());

    const list = await a.value('access.keys', { orgId });
    expect(list.fromCache).toBe(false);
    const listed = list.keys.find((k) => k.id === made.keyId)!;
    expect(listed).toMatchObject({ name: 'Dock robot', thisProfile: false, lastUsed: null });
    expect(listed.grants).toEqual([{ resourceType: 'location', resourceId: dock, role: 'operator', resourceName: 'Dock' }]);
    expect(JSON.stringify(list)).not.toContain(made.secret);
    expect(list.keys.find((k) => k.id === service.bootstrap.apiKeyId)?.thisProfile).toBe(true);

    // Unnamed: the service names it by its creation time.
    const unnamed = await a.value('access.createKey', { orgId, grants: [{ resourceType: 'organization', resourceId: orgId, role: 'operator' }] });
    secrets.add(unnamed.secret);
    expect(unnamed.name).toMatch(/^\d{4}-\d\d-\d\dT/);

    expect(await a.value('access.renameKey', { keyId: made.keyId, name: 'Dock robot 2' })).toEqual({ keyId: made.keyId, name: 'Dock robot 2' });
    const copy = await a.value('access.duplicateKey', { keyId: made.keyId });
    secrets.add(copy.secret);
    expect(copy.keyId).not.toBe(made.keyId);
    const after = await a.value('access.keys', { orgId });
    expect(after.keys.find((k) => k.id === copy.keyId)?.grants.map((g) => [g.resourceId, g.role])).toEqual([[dock, 'operator']]);
    expect(after.keys.find((k) => k.id === made.keyId)?.name).toBe('Dock robot 2');

    const rotated = await a.value('access.rotateKey', { keyId: made.keyId });
    secrets.add(rotated.secret);
    expect(rotated.keyId).toBe(made.keyId);
    expect(rotated.secret).not.toBe(made.secret);

    expect(await a.value('access.deleteKey', { keyId: copy.keyId })).toEqual({});
    expect((await a.value('access.keys', { orgId })).keys.some((k) => k.id === copy.keyId)).toBe(false);
    const gone = await failure(a.call('access.renameKey', { keyId: copy.keyId, name: 'x' }));
    expect(gone.kind).toBe('not-found');
    expect(gone.message).toMatch(/no longer exists/);
    // The bridge refuses what the service never should see.
    expect((await failure(a.call('access.createKey', { orgId, grants: [] }))).message).toMatch(/grants must name at least one role/);
    expect((await failure(a.call('access.createKey', { orgId, grants: [{ resourceType: 'robot' as 'machine', resourceId: dock, role: 'owner' }] }))).kind).toBe('invalid');
  });

  it("lists a machine's own keys", async () => {
    const bay = await location(a, 'Bay');
    const m = await a.value('machines.create', { locationId: bay, name: 'keyed' });
    const made = await a.value('access.createKey', { orgId, name: 'keyed only', grants: [{ resourceType: 'machine', resourceId: m.id, role: 'operator' }] });
    secrets.add(made.secret);
    const keys = await a.value('access.machineKeys', { machineId: m.id });
    expect(keys.keys.map((k) => k.id)).toEqual([made.keyId]);
    expect(keys.keys[0]!.grants).toEqual([{ resourceType: 'machine', resourceId: m.id, role: 'operator', resourceName: 'keyed' }]);
  });
});

describe('location and part secrets', () => {
  it('lists them without values, shows a new one once, reveals one on request, and deletes the last one too', async () => {
    const yard = await location(a, 'Yard');
    const first = await a.value('access.locationSecrets', { locationId: yard });
    expect(first.secrets).toHaveLength(1);
    expect(Object.keys(first.secrets[0]!).sort()).toEqual(['createdOn', 'id']);
    const made = await a.value('access.createLocationSecret', { locationId: yard });
    secrets.add(made.value);
    expect(made.list.secrets.map((s) => s.id)).toEqual([first.secrets[0]!.id, made.id]);
    const revealed = await a.value('access.revealSecret', { owner: 'location', ownerId: yard, secretId: first.secrets[0]!.id });
    secrets.add(revealed.value);
    expect(revealed.value.length).toBeGreaterThan(10);
    expect((await a.value('access.deleteLocationSecret', { locationId: yard, secretId: made.id })).secrets.map((s) => s.id)).toEqual([first.secrets[0]!.id]);
    expect((await a.value('access.deleteLocationSecret', { locationId: yard, secretId: first.secrets[0]!.id })).secrets).toEqual([]);
    expect((await failure(a.call('access.deleteLocationSecret', { locationId: yard, secretId: first.secrets[0]!.id }))).message).toMatch(/no longer exists/);
  });

  it("makes, reveals and deletes a part's secrets", async () => {
    const shed = await location(a, 'Shed');
    const m = await a.value('machines.create', { locationId: shed, name: 'mower' });
    const [part] = await a.value('machines.parts', { machineId: m.id });
    const listed = await a.value('access.partSecrets', { partId: part!.id });
    expect(listed.secrets.length).toBeGreaterThanOrEqual(1);
    const made = await a.value('access.createPartSecret', { partId: part!.id });
    secrets.add(made.value);
    expect(made.list.secrets.at(-1)!.id).toBe(made.id);
    expect((await a.value('access.revealSecret', { owner: 'part', ownerId: part!.id, secretId: made.id })).value).toBe(made.value);
    expect((await a.value('access.deletePartSecret', { partId: part!.id, secretId: made.id })).secrets.map((s) => s.id)).not.toContain(made.id);
  });
});

describe('members, invites and roles', () => {
  it('invites with roles over the tree, changes the invite, resends and deletes it', async () => {
    const pier = await location(a, 'Pier');
    const invite = await a.value('access.invite', { orgId, email: 'Dana@Example.com', grants: [{ resourceType: 'location', resourceId: pier, role: 'operator' }], sendEmail: false });
    expect(invite).toMatchObject({ orgId, email: 'dana@example.com' });
    expect(invite.grants).toEqual([{ resourceType: 'location', resourceId: pier, role: 'operator', resourceName: 'Pier' }]);
    const again = await failure(a.call('access.invite', { orgId, email: 'dana@example.com', grants: [{ resourceType: 'location', resourceId: pier, role: 'owner' }], sendEmail: false }));
    expect(again.message).toMatch(/pending already/);

    const changed = await a.value('access.updateInvite', { orgId, email: 'dana@example.com', grants: [{ resourceType: 'organization', resourceId: orgId, role: 'operator' }] });
    expect(changed.grants).toEqual([{ resourceType: 'organization', resourceId: orgId, role: 'operator', resourceName: orgName }]);
    const people = await a.value('access.people', { orgId });
    expect(people.fromCache).toBe(false);
    expect(people.invites.map((i) => i.email)).toContain('dana@example.com');

    expect((await a.value('access.resendInvite', { orgId, email: 'dana@example.com' })).email).toBe('dana@example.com');
    expect(await a.value('access.deleteInvite', { orgId, email: 'dana@example.com' })).toEqual({});
    expect((await a.value('access.people', { orgId })).invites.map((i) => i.email)).not.toContain('dana@example.com');
    expect((await failure(a.call('access.resendInvite', { orgId, email: 'dana@example.com' }))).message).toMatch(/no pending invite/);
  });

  it('lists a member with their roles once they sign in, removes them, and says so when they are gone', async () => {
    const lab = await location(a, 'Lab');
    // A user of the service (made as an operator would, with --add-user), invited without mail: the roles come with their next sign-in.
    const eve = addUser(join(dir.path, 'service'), 'eve@example.com', 'Eve');
    secrets.add(eve.apiKey);
    await a.value('access.invite', { orgId, email: 'eve@example.com', grants: [{ resourceType: 'location', resourceId: lab, role: 'owner' }], sendEmail: false });
    const client = new FleetClient({ address: service.address, tls: false, apiKeyId: eve.apiKeyId, apiKey: eve.apiKey });
    await client.authenticate();
    client.close();
    const people = await a.value('access.people', { orgId });
    const member = people.members.find((m) => m.userId === eve.userId)!;
    expect(member).toMatchObject({ name: 'Eve', emails: ['eve@example.com'], lastOwner: false });
    expect(member.grants).toEqual([{ resourceType: 'location', resourceId: lab, role: 'owner', resourceName: 'Lab' }]);
    expect(people.invites.map((i) => i.email)).not.toContain('eve@example.com');
    const holders = await a.value('access.holders', { orgId, resourceType: 'location', resourceId: lab });
    expect(holders.holders.find((h) => h.identityId === eve.userId)).toMatchObject({ identityType: 'user', name: 'Eve', email: 'eve@example.com', role: 'owner', direct: true });

    expect(await a.value('access.removeMember', { orgId, userId: eve.userId })).toEqual({});
    expect((await a.value('access.people', { orgId })).members.some((m) => m.userId === eve.userId)).toBe(false);
    const gone = await failure(a.call('access.removeMember', { orgId, userId: eve.userId }));
    expect(gone).toMatchObject({ kind: 'not-found' });
    expect(gone.message).toMatch(/no longer a member/);
  });

  it('shows who holds what on a location with names, gives, changes and takes roles, and refuses to take the last owner away', async () => {
    const gate = await location(a, 'Gate');
    const key = await a.value('access.createKey', { orgId, name: 'Gatekeeper', grants: [{ resourceType: 'location', resourceId: gate, role: 'operator' }] });
    secrets.add(key.secret);
    const holders = await a.value('access.holders', { orgId, resourceType: 'location', resourceId: gate });
    expect(holders.resource).toEqual({ type: 'location', id: gate, name: 'Gate' });
    const direct = holders.holders.find((h) => h.identityId === key.keyId)!;
    expect(direct).toMatchObject({ identityType: 'key', name: 'Gatekeeper', role: 'operator', direct: true });
    // The owner key holds the organization, which covers the location.
    expect(holders.holders.find((h) => h.thisProfile)).toMatchObject({ role: 'owner', direct: false, on: { type: 'organization', id: orgId } });

    const operator = { resourceType: 'location' as const, resourceId: gate, role: 'operator' as const };
    const owner = { ...operator, role: 'owner' as const };
    expect(await a.value('access.changeRole', { orgId, identityId: key.keyId, from: operator, to: owner })).toEqual({});
    expect((await a.value('access.holders', { orgId, resourceType: 'location', resourceId: gate })).holders.find((h) => h.identityId === key.keyId)?.role).toBe('owner');
    expect((await failure(a.call('access.addRole', { orgId, identityId: key.keyId, grant: owner }))).message).toMatch(/held already/);
    expect(await a.value('access.removeRole', { orgId, identityId: key.keyId, grant: owner })).toEqual({});
    expect((await a.value('access.holders', { orgId, resourceType: 'location', resourceId: gate })).holders.some((h) => h.identityId === key.keyId)).toBe(false);
    expect(await a.value('access.addRole', { orgId, identityId: key.keyId, grant: operator })).toEqual({});

    const last = await failure(a.call('access.removeRole', { orgId, identityId: service.bootstrap.apiKeyId, grant: { resourceType: 'organization', resourceId: orgId, role: 'owner' } }));
    expect(last.kind).toBe('conflict');
    expect(last.message).toMatch(/without an owner.*Make someone else .*owner of the organization first/);
  });

  it('answers members, keys and holders from the cache while the service cannot be reached, and refuses changes saying nothing changed', async () => {
    const dock = (await a.value('locations.tree', { orgId })).locations.find((l) => l.name === 'Gate')!.id;
    const online = { keys: await a.value('access.keys', { orgId }), people: await a.value('access.people', { orgId }), holders: await a.value('access.holders', { orgId, resourceType: 'location', resourceId: dock }) };
    const { address } = service;
    await service.close();
    await a.call('connection.retry', {});
    expect(a.backend.handlers['connection.get']({})).toMatchObject({ status: 'offline' });
    const keys = await a.value('access.keys', { orgId });
    expect(keys).toMatchObject({ fromCache: true, keys: online.keys.keys });
    expect(await a.value('access.people', { orgId })).toMatchObject({ fromCache: true, invites: online.people.invites, members: online.people.members });
    expect(await a.value('access.holders', { orgId, resourceType: 'location', resourceId: dock })).toMatchObject({ fromCache: true, holders: online.holders.holders });
    expect((await a.value('access.permissions', { orgId })).fromCache).toBe(true);
    const refused = await failure(a.call('access.createKey', { orgId, grants: [{ resourceType: 'organization', resourceId: orgId, role: 'operator' }] }));
    expect(refused).toMatchObject({ kind: 'offline' });
    expect(refused.message).toMatch(/Nothing was changed/);
    expect((await failure(a.call('access.locationSecrets', { locationId: dock }))).kind).toBe('offline');

    service = await startService({ listen: address, dataDir: join(dir.path, 'service'), log: () => undefined });
    const end = Date.now() + 20_000;
    while ((await a.value('connection.retry', {})).status !== 'online') {
      if (Date.now() > end) throw new Error('the app did not come back online');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
});

describe('a key limited to one location', () => {
  let reno: string;
  let limited: { keyId: string; secret: string };

  it('becomes a profile in one step, sees only its location, and is refused a write outside it with a clear message', async () => {
    reno = await location(a, 'Reno Fulfillment Center');
    await location(a, 'Elsewhere');
    await a.value('machines.create', { locationId: reno, name: 'picker' });
    const made = await a.value('access.createKey', { orgId, name: 'Reno crew', grants: [{ resourceType: 'location', resourceId: reno, role: 'operator' }] });
    secrets.add(made.secret);
    limited = { keyId: made.keyId, secret: made.secret };

    // b is the colleague's app: the owner hands over the key by making a profile with it there (the same one step, here in a's backend).
    const state = await a.value('access.useKeyInProfile', { keyId: made.keyId, name: 'Reno crew' });
    const profile = state.profiles.find((p) => p.name === 'Reno crew')!;
    expect(state.activeId).toBe(profile.id);
    expect(profile).toMatchObject({ apiKeyId: made.keyId, kind: 'remote' });
    // Once used, the secret is no longer held.
    expect((await failure(a.call('access.useKeyInProfile', { keyId: made.keyId, name: 'Reno crew 2' }))).kind).toBe('not-found');

    const tree = await a.value('locations.tree', { orgId });
    expect(tree.locations.map((l) => l.name)).toEqual(['Reno Fulfillment Center']);

    const permissions = await a.value('access.permissions', { orgId });
    expect(permissions.checkedAt).not.toBeNull();
    const org: ResourceRef = { type: 'organization', id: orgId, name: orgName };
    const renoRef: ResourceRef = { type: 'location', id: reno, name: 'Reno Fulfillment Center' };
    expect(whyNot(permissions, 'read_location', [renoRef, org])).toBeNull();
    expect(whyNot(permissions, 'write_location', [renoRef, org])?.text).toBe('needs owner on Reno Fulfillment Center');
    expect(whyNot(permissions, 'write_organization', [org])?.text).toBe(`needs owner on ${orgName}`);
    expect(whyNot(permissions, 'read_robot', [{ type: 'machine', id: tree.machines[0]!.id, name: 'picker' }, renoRef, org])).toBeNull();

    const refused = await failure(a.call('locations.create', { orgId, name: 'Not mine' }));
    expect(refused.kind).toBe('permission-denied');
    expect(refused.message).toMatch(/needs owner/);
    const keys = await failure(a.call('access.keys', { orgId }));
    expect(keys.kind).toBe('permission-denied');
    expect(keys.message).toMatch(/not allowed to .*Use a profile whose key holds that role/);
    expect(keys.message).toContain(`organization “${orgName}”`);
  });

  it('asks once for a new key when the key is rotated elsewhere: one sign-in per backoff step, the cache browsable, and goes on with the new key', async () => {
    // b is the owner now (a holds the limited profile).
    const { apiKeyId, apiKey } = service.bootstrap;
    const address = service.address;
    await b.value('profiles.add', { name: 'Owner', address, tls: false, apiKeyId, apiKey });
    // Its use by the limited profile shows in the owner's list (recorded to the minute).
    expect((await b.value('access.keys', { orgId })).keys.find((k) => k.id === limited.keyId)?.lastUsed).toMatch(/^\d{4}-/);
    const rotated = await b.value('access.rotateKey', { keyId: limited.keyId });
    secrets.add(rotated.secret);

    const asked = a.next('connection.changed', (s) => s.status === 'needs-key');
    void a.call('connection.retry', {});
    const state = await asked;
    expect(state.error?.kind).toBe('unauthenticated');
    expect(state.error?.message).toMatch(/enter this profile’s new key/);

    // Over a window: the reads the renderer makes meanwhile answer from the cache and sign in nowhere; the connection signs in once per step.
    const from = Date.now();
    const before = signIns.length;
    for (let i = 0; i < 20; i++) {
      expect((await a.value('locations.tree', { orgId })).locations.map((l) => l.name)).toEqual(['Reno Fulfillment Center']);
      expect((await a.value('access.permissions', { orgId })).fromCache).toBe(true);
      expect((await a.value('orgs.get', { orgId })).name).toBe(orgName);
      // A write is refused at once, saying why, without signing in again.
      const write = await failure(a.call('locations.create', { orgId, name: `try ${i}` }));
      expect(write.kind).toBe('unauthenticated');
      expect(write.message).toMatch(/new key/);
    }
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const window = Date.now() - from;
    const attempts = signIns.length - before;
    // Backoff steps 200, 400, 800, 800, … ms: at most this many fit in the window.
    let steps = 0;
    for (let t = 0, i = 0; t <= window; i++) {
      t += Math.min(timing.retryMaxMs, timing.retryMinMs * 2 ** i);
      steps += 1;
    }
    expect(attempts).toBeGreaterThan(0);
    expect(attempts).toBeLessThanOrEqual(steps);
    expect(a.backend.handlers['connection.get']({})).toMatchObject({ status: 'needs-key' });

    const profileId = (await a.value('profiles.list', {})).activeId!;
    await a.value('profiles.setKey', { profileId, apiKey: rotated.secret });
    expect(a.backend.handlers['connection.get']({})).toMatchObject({ status: 'online', error: null });
    expect((await a.value('locations.tree', { orgId })).locations.map((l) => l.name)).toEqual(['Reno Fulfillment Center']);
  });

  it('learns of a role given elsewhere with the next sync, and says which organizations changed', async () => {
    const org: ResourceRef = { type: 'organization', id: orgId, name: orgName };
    const renoRef: ResourceRef = { type: 'location', id: reno, name: 'Reno Fulfillment Center' };
    expect(whyNot(await a.value('access.permissions', { orgId }), 'write_location', [renoRef, org])).not.toBeNull();
    await b.value('access.changeRole', { orgId, identityId: limited.keyId, from: { resourceType: 'location', resourceId: reno, role: 'operator' }, to: { resourceType: 'location', resourceId: reno, role: 'owner' } });
    const changed = a.next('access.permissions', (e) => e.orgIds.includes(orgId));
    await a.value('connection.retry', {});
    expect(await changed).toEqual({ orgIds: [orgId], all: false });
    const now = await a.value('access.permissions', { orgId });
    expect(whyNot(now, 'write_location', [renoRef, org])).toBeNull();
    expect(whyNot(now, 'write_organization', [org])?.text).toBe(`needs owner on ${orgName}`);
  });
});

describe("rotating the profile's own key", () => {
  it('keeps the new secret for the profile and stays signed in', async () => {
    const ownKey = service.bootstrap.apiKeyId;
    const rotated = await b.value('access.rotateKey', { keyId: ownKey });
    secrets.add(rotated.secret);
    expect(rotated.keyId).toBe(ownKey);
    const end = Date.now() + 10_000;
    while ((await b.value('connection.retry', {})).status !== 'online') {
      if (Date.now() > end) throw new Error('the app did not sign in again with its rotated key');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect((await b.value('access.keys', { orgId })).keys.find((k) => k.id === ownKey)?.thisProfile).toBe(true);
  });
});

describe('the local profile', () => {
  it("refuses to rotate or delete the local service's own key, which the local profile signs in with at every start", async () => {
    const local = await openTestBackend(join(dir.path, 'local'), { timing, keychain: { store: new MemoryKeychain(), status: { available: true, reason: null } } });
    try {
      await local.backend.start();
      const profile = (await local.value('profiles.list', {})).profiles.find((p) => p.kind === 'local')!;
      for (const channel of ['access.rotateKey', 'access.deleteKey'] as const) {
        const refused = await failure(local.call(channel, { keyId: profile.apiKeyId }));
        expect(refused.kind).toBe('invalid');
        expect(refused.message).toMatch(/local service's own key.*Make another key to share instead/);
      }
      expect((await local.value('connection.retry', {})).status).toBe('online');
    } finally {
      await local.close();
    }
  });
});

describe('no secret at rest but in the keychain', () => {
  it('finds no key secret or secret value in the caches, the profiles files, the logs or any bridge event', async () => {
    expect(secrets.size).toBeGreaterThanOrEqual(8);
    const files: string[] = [];
    const walk = (path: string) => {
      for (const name of readdirSync(path)) {
        const full = join(path, name);
        if (statSync(full).isDirectory()) walk(full);
        else files.push(full);
      }
    };
    for (const app of [a, b]) walk(app.dir);
    const cacheFiles = files.filter((f) => /cache\.sqlite(-wal|-shm)?$/.test(f));
    expect(cacheFiles.some((f) => f.endsWith('-wal'))).toBe(true);
    expect(files.some((f) => f.endsWith('profiles.json'))).toBe(true);
    const haystacks = [...files.map((f) => ({ where: f, text: readFileSync(f).toString('latin1') })), { where: 'logs', text: [...a.logs, ...b.logs].join('\n') }, { where: 'events', text: events.join('\n') }];
    for (const secret of secrets) {
      for (const { where, text } of haystacks) expect(text.includes(secret), `a secret in ${where}`).toBe(false);
    }
  });
});
