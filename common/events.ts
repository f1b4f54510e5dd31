/**
 * Events main pushes to the renderer. They carry whole snapshots, so a renderer that missed one
 * is brought up to date by the next.
 */
import type { ConnectionState } from './connection';
import type { LocalServiceState } from './local-service';
import type { OrgsSnapshot } from './orgs';
import type { ProfilesState } from './profiles';

export interface Events {
  /** The active profile's connection changed (connecting, online, offline, a new error). */
  'connection.changed': ConnectionState;
  /** The profile list or the active profile changed. */
  'profiles.changed': ProfilesState;
  /** The embedded service started, stopped or failed. */
  'localService.changed': LocalServiceState;
  /** The cached organizations of the active profile changed (a sync, a create, a switch). */
  'orgs.changed': OrgsSnapshot;
}

export type EventName = keyof Events;

const names = {
  'connection.changed': true,
  'profiles.changed': true,
  'localService.changed': true,
  'orgs.changed': true,
} satisfies Record<EventName, true>;

export const eventNames = Object.freeze(Object.keys(names)) as readonly EventName[];

export function isEventName(value: unknown): value is EventName {
  return typeof value === 'string' && Object.hasOwn(names, value);
}
