import { empty } from './schemas';

/** The embedded fleet service that the app starts itself for the local profile. */
export interface LocalServiceState {
  /** `failed`: it exited on its own or could not start; `error` says why. */
  readonly status: 'starting' | 'running' | 'stopping' | 'stopped' | 'failed';
  /** host:port while running. */
  readonly address: string | null;
  /** Where its SQLite database lives. */
  readonly dataDir: string;
  readonly error: string | null;
}

export const localServiceRequests = {
  /** The embedded service's state. */
  'localService.get': empty,
  /** Start the embedded service (again). */
  'localService.start': empty,
  /** Stop the embedded service; the local profile goes offline and answers from its cache. */
  'localService.stop': empty,
};

export interface LocalServiceResponses {
  'localService.get': LocalServiceState;
  'localService.start': LocalServiceState;
  'localService.stop': LocalServiceState;
}
