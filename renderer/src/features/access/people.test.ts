import { describe, expect, it } from 'vitest';
import type { GrantView, Invite, People } from '../../../../common/access';
import { err, ok } from '../../../../common/result';
import { fakeBridge, settle } from '../../lib/testing/fake-transport';
import { PeopleView } from './people.svelte';

const reno: GrantView = { resourceType: 'location', resourceId: 'reno', role: 'operator', resourceName: 'Reno Fulfillment Center' };
const invite = (email: string, grants: readonly GrantView[] = [reno]): Invite => ({ orgId: 'o1', email, createdOn: '2026-11-26T10:00:00.000Z', grants });
const people = (invites: readonly Invite[]): People => ({
  orgId: 'o1',
  members: [{ userId: 'u1', name: 'Ana Ortiz', emails: ['ana@example.com'], dateAdded: null, lastLogin: null, grants: [{ ...reno, resourceType: 'organization', resourceId: 'o1', role: 'owner', resourceName: 'Acme' }], lastOwner: true }],
  invites,
  fromCache: false,
  syncedAt: null,
});

function setup() {
  const { transport, bridge } = fakeBridge();
  let invites: Invite[] = [];
  transport
    .handle('access.people', () => ok(people(invites)))
    .handle('access.invite', (r) => {
      const made = invite(r.email, r.grants.map((g) => ({ ...g, resourceName: null })));
      invites = [...invites, made];
      return ok(made);
    })
    .handle('access.deleteInvite', (r) => {
      invites = invites.filter((i) => i.email !== r.email);
      return ok({});
    })
    .handle('access.removeMember', () => err('permission-denied', 'Ana Ortiz is the last owner of Acme.'));
  return { transport, view: new PeopleView(bridge, 'o1') };
}

describe('the People page', () => {
  it('lists members and invites, and an invite joins the list', async () => {
    const { view, transport } = setup();
    await view.load();
    expect(view.people.value?.members[0]?.lastOwner).toBe(true);
    const result = await view.invite('bo@example.com', [reno], false);
    expect(result.ok).toBe(true);
    expect(transport.callsTo('access.invite')).toEqual([{ orgId: 'o1', email: 'bo@example.com', grants: [reno], sendEmail: false }]);
    await settle();
    expect(view.people.value?.invites.map((i) => i.email)).toEqual(['bo@example.com']);
    await view.deleteInvite('bo@example.com');
    await settle();
    expect(view.people.value?.invites).toEqual([]);
  });

  it('says a refusal with what to do, and reads the list again', async () => {
    const { view, transport } = setup();
    await view.load();
    const result = await view.removeMember('u1');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toBe('Ana Ortiz is the last owner of Acme. Ask an owner of the organization to do it, or to give this profile’s key the role it needs.');
    await settle();
    expect(transport.callsTo('access.people')).toHaveLength(2);
  });

  it('keeps what it showed when a read fails', async () => {
    const { view, transport } = setup();
    await view.load();
    transport.handle('access.people', () => err('offline', 'The service cannot be reached.'));
    await view.load();
    expect(view.people.value?.members).toHaveLength(1);
    expect(view.people.error?.kind).toBe('offline');
  });
});
