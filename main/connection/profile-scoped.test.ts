import { describe, expect, it } from 'vitest';
import { AppError } from '../backend/errors';
import { EventBus } from '../backend/events';
import { Connection } from './connection';
import { ProfileScopes, type ProfileScoped } from './profile-scoped';

function recorder(): ProfileScoped & { seen: (string | null)[] } {
  const seen: (string | null)[] = [];
  return { seen, switchTo: (id) => void seen.push(id) };
}

describe('ProfileScopes', () => {
  it('tells every service once per change of profile, never for the profile they know', () => {
    const scopes = new ProfileScopes();
    const a = recorder();
    const b = recorder();
    scopes.add(a);
    scopes.add(b);
    scopes.announce('p1');
    scopes.announce('p1');
    scopes.announce('p2');
    scopes.announce('p1');
    expect(a.seen).toEqual(['p1', 'p2', 'p1']);
    expect(b.seen).toEqual(['p1', 'p2', 'p1']);
  });

  it('tells a service added while a profile is active of that profile at once', () => {
    const scopes = new ProfileScopes();
    const early = recorder();
    scopes.add(early);
    expect(early.seen).toEqual([]);
    scopes.announce('p1');
    const late = recorder();
    scopes.add(late);
    expect(late.seen).toEqual(['p1']);
  });

  it('stops telling a service that was removed, even one removing itself mid-switch', () => {
    const scopes = new ProfileScopes();
    const kept = recorder();
    const removed = recorder();
    const stop = scopes.add(removed);
    const selfRemoving: ProfileScoped = { switchTo: () => stopSelf() };
    const stopSelf = scopes.add(selfRemoving);
    scopes.add(kept);
    stop();
    scopes.announce('p1');
    scopes.announce('p2');
    expect(removed.seen).toEqual([]);
    expect(kept.seen).toEqual(['p1', 'p2']);
  });
});

describe('Connection.scope', () => {
  it('switches a scoped service when another profile opens, before the change is announced', async () => {
    const events = new EventBus();
    const connection = new Connection({ events, resources: [], log: () => undefined });
    const order: string[] = [];
    events.subscribe((event, payload) => {
      if (event === 'connection.changed') order.push(`event ${(payload as { profileId: string }).profileId}`);
    });
    connection.scope({ switchTo: (id) => void order.push(`switch ${id} (active ${connection.profileId})`) });
    connection.open('p1', ':memory:');
    connection.markUnavailable('p1', new AppError('offline', 'down'));
    connection.open('p2', ':memory:');
    await connection.close();
    expect(order).toEqual(['switch p1 (active p1)', 'event p1', 'event p1', 'switch p2 (active p2)', 'event p2']);
  });
});
