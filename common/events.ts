/**
 * Events main pushes to the renderer. They carry whole snapshots, so a renderer that missed one
 * is brought up to date by the next.
 */
import type { PermissionsChanged } from './access';
import type { ConnectionState } from './connection';
import type { LocalServiceState } from './local-service';
import type { LogViewUpdate, TailStatuses } from './logs';
import type { LivenessUpdate } from './machines';
import type { OrgsSnapshot } from './orgs';
import type { ProfilesState } from './profiles';
import type { Upload } from './registry';
import type { TrainingChanged, TrainingEnded, TrainingOpen } from './training';

export interface Events {
  /** The active profile's connection changed (connecting, online, offline, a new error). */
  'connection.changed': ConnectionState;
  /** The profile list or the active profile changed. */
  'profiles.changed': ProfilesState;
  /** The embedded service started, stopped or failed. */
  'localService.changed': LocalServiceState;
  /** The cached organizations of the active profile changed (a sync, a create, a switch). */
  'orgs.changed': OrgsSnapshot;
  /**
   * The cached fleet (locations, machines, parts) of these organizations changed: a sync, a write, a
   * switch. The payload names them rather than carrying the trees, which can be large: a view showing
   * one of them asks for its tree again (`locations.treeColumns`). `all` means every organization (a switch, a full sync).
   */
  'fleet.changed': { readonly orgIds: readonly string[]; readonly all: boolean };
  /** Fresh last access of watched parts (see `machines.watch`). */
  'machines.liveness': LivenessUpdate;
  /** An open log view grew or changed: at most one per view per batch of tailed lines. */
  'logs.view': LogViewUpdate;
  /** How the tailed parts' streams are doing (live, reconnecting, their outages). */
  'logs.tails': TailStatuses;
  /** The module upload queue: at once on a state change, at most 4 times a second with progress. */
  'registry.uploads': readonly Upload[];
  /** The cached training jobs of these organizations changed; with the pending/running counts (the badge). */
  'training.changed': TrainingChanged;
  /** A watched training job succeeded or failed. */
  'training.ended': TrainingEnded;
  /** The user clicked a training job's desktop notification: show the job. */
  'training.open': TrainingOpen;
  /**
   * Main asks the renderer to open a route: a deep link `fleet-desk://…` was opened (Electron only;
   * main/shell/deep-link.ts). `route` passed `isRoutePath` (common/routes.ts) in main, but any web
   * page can open such a link: it names a page to show, never an action to take.
   */
  'app.navigate': { readonly route: string };
  /**
   * What the active profile's key may do changed in these organizations (a sync found other roles, a
   * switch): ask `access.permissions` again. Carries no secret, like every event.
   */
  'access.permissions': PermissionsChanged;
}

export type EventName = keyof Events;

const names = {
  'connection.changed': true,
  'profiles.changed': true,
  'localService.changed': true,
  'orgs.changed': true,
  'fleet.changed': true,
  'machines.liveness': true,
  'logs.view': true,
  'logs.tails': true,
  'registry.uploads': true,
  'training.changed': true,
  'training.ended': true,
  'training.open': true,
  'app.navigate': true,
  'access.permissions': true,
} satisfies Record<EventName, true>;

export const eventNames = Object.freeze(Object.keys(names)) as readonly EventName[];

export function isEventName(value: unknown): value is EventName {
  return typeof value === 'string' && Object.hasOwn(names, value);
}
