import { describe, expect, it } from 'vitest';
import type { ApiKey, IssuedKey } from '../../../../common/access';
import { err, ok } from '../../../../common/result';
import { fakeBridge, settle } from '../../lib/testing/fake-transport';
import { profilesState } from '../../lib/testing/fixtures';
import { KeysView, keyConsequences } from './keys.svelte';

const key = (id: string, name: string, thisProfile = false): ApiKey => ({ id, name, createdOn: null, lastUsed: null, thisProfile, grants: [{ resourceType: 'location', resourceId: 'reno', role: 'operator', resourceName: 'Reno' }] });
const issued = (keyId: string, name: string): IssuedKey => ({ keyId, name, secret: 's3cr3t', rememberedUntil: '2026-11-26T10:10:00.000Z' });

function setup() {
  const { transport, bridge } = fakeBridge();
  let keys = [key('k1', 'ops')];
  transport
    .handle('access.keys', () => ok({ orgId: 'o1', keys, fromCache: false, syncedAt: null }))
    .handle('access.machineKeys', ({ machineId }) => ok({ machineId, keys: [key('k9', 'robot')] }))
    .handle('access.createKey', (r) => {
      keys = [...keys, key('k2', r.name ?? '2026-11-26 10:00')];
      return ok(issued('k2', r.name ?? '2026-11-26 10:00'));
    })
    .handle('access.rotateKey', ({ keyId }) => ok(issued(keyId, 'ops')))
    .handle('access.deleteKey', () => err('offline', 'The service cannot be reached.'))
    .handle('access.useKeyInProfile', () => ok(profilesState()));
  return { transport, bridge };
}

describe('the API keys page', () => {
  it('creates a key (the name left to the service when blank), answering its secret to the caller only', async () => {
    const { transport, bridge } = setup();
    const view = new KeysView(bridge, { kind: 'org', orgId: 'o1' });
    await view.load();
    const grants = [{ resourceType: 'location' as const, resourceId: 'reno', role: 'operator' as const }];
    const result = await view.create('  ', grants);
    expect(result.ok && result.value.secret).toBe('s3cr3t');
    expect(transport.callsTo('access.createKey')).toEqual([{ orgId: 'o1', grants }]);
    await settle();
    expect(view.list.value?.keys.map((k) => k.id)).toEqual(['k1', 'k2']);
    expect(JSON.stringify(view.list.value)).not.toContain('s3cr3t');
    await view.useInProfile('k2', 'Reno only');
    expect(transport.callsTo('access.useKeyInProfile')).toEqual([{ keyId: 'k2', name: 'Reno only' }]);
  });

  it('lists a machine’s keys, and explains a refused delete', async () => {
    const { bridge } = setup();
    const view = new KeysView(bridge, { kind: 'machine', orgId: 'o1', machineId: 'm1' });
    await view.load();
    expect(view.list.value?.keys.map((k) => k.name)).toEqual(['robot']);
    const result = await view.delete('k9');
    expect(!result.ok && result.error.message).toBe('The service cannot be reached. This needs the service: try again once it answers.');
  });

  it('says what stops working, and that this profile will ask for a key', () => {
    expect(keyConsequences(key('k1', 'ops'), 'delete')[0]).toMatch(/Everything that signs in with “ops” stops working/);
    expect(keyConsequences(key('k1', 'ops', true), 'rotate')).toContain('This is the key this app signs in with: this profile will ask for a new key.');
  });
});
