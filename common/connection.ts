import type { BridgeError } from './result';
import type { IsoTime } from './schemas';
import { empty } from './schemas';

/**
 * The link between the active profile and its service.
 * `connecting` — first contact after start or switch; `online` — the last call went through;
 * `offline` — the service could not be reached: reads answer from the cache, which is as old as `lastSyncedAt`;
 * `needs-key` — the service answered but refused the profile's key (deleted, or rotated elsewhere): main
 * stops signing in on its own (no retry storm) until a new key is given (`profiles.setKey`) or the
 * user asks (`connection.retry`); `error` says why. Reads answer from the cache meanwhile, as offline.
 */
export interface ConnectionState {
  readonly profileId: string | null;
  readonly status: 'connecting' | 'online' | 'offline' | 'needs-key';
  readonly address: string;
  /** When the cache was last brought up to date from the service; null if never. */
  readonly lastSyncedAt: IsoTime | null;
  /** When the service stopped answering (or refused the key); null unless offline or needs-key. */
  readonly offlineSince: IsoTime | null;
  /** When main will try the service again on its own; null unless offline. */
  readonly nextRetryAt: IsoTime | null;
  /** The last failure, for people (offline reason, rejected key, …); null when all is well. */
  readonly error: BridgeError | null;
  /** A sync round under way, and how far it got; null when none runs. */
  readonly sync: SyncProgress | null;
}

/** How far a sync round got: organizations done of all, and machines fetched so far. */
export interface SyncProgress {
  readonly startedAt: IsoTime;
  readonly orgsDone: number;
  readonly orgsTotal: number;
  readonly machines: number;
}

export const connectionRequests = {
  /** The current connection state. */
  'connection.get': empty,
  /** Try the service now instead of waiting for the next automatic retry. */
  'connection.retry': empty,
};

export interface ConnectionResponses {
  'connection.get': ConnectionState;
  'connection.retry': ConnectionState;
}
