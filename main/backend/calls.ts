/**
 * The two shapes every domain handler's service call takes, in one place:
 * - a read answers from the service when it can (and caches what it got), from the cache when the
 *   service cannot be reached;
 * - a write needs the service; without it the answer says so and that nothing changed.
 */
import type { CacheDb } from '../cache/cache';
import type { CacheRunner, Connection } from '../connection/connection';
import type { FleetClient } from '../grpc/client';
import { AppError } from './errors';

/** Whether the service is out of reach for now: offline, or its key refused (`needs-key`: no call signs in until a new key is given). */
function away(connection: Connection): boolean {
  const { status } = connection.state;
  return status === 'offline' || status === 'needs-key';
}

/** A read through the cache: `online` asks the service, `cached` answers when it cannot be reached (null: not cached). */
export async function readThrough<T>(
  connection: Connection,
  what: string,
  online: (client: FleetClient, cache: CacheDb, run: CacheRunner) => Promise<T>,
  cached: (cache: CacheDb) => T | null,
): Promise<T> {
  const fromCache = () => {
    const value = cached(connection.cache);
    if (value === null) throw new AppError('offline', `${what} is not in the cache, and the service cannot be reached to read it. Reconnect to see it.`);
    return value;
  };
  if (away(connection) || !connection.hasService) return fromCache();
  try {
    return await connection.use(online);
  } catch (e) {
    if (e instanceof AppError && (e.kind === 'offline' || (e.kind === 'unauthenticated' && away(connection)))) return fromCache();
    throw e;
  }
}

/** A write: the service must answer. When it cannot be reached, the error says nothing was changed. */
export async function write<T>(connection: Connection, what: string, fn: (client: FleetClient, cache: CacheDb, run: CacheRunner) => Promise<T>): Promise<T> {
  try {
    return await connection.use(fn);
  } catch (e) {
    if (e instanceof AppError && e.kind === 'offline') {
      throw new AppError('offline', `Couldn't ${what}: ${e.message.replace(/\.$/, '')}. Nothing was changed; try again once the service is back.`);
    }
    throw e;
  }
}

/** A read that only the service can answer (nothing of it is cached): offline, the error says so. */
export async function online<T>(connection: Connection, what: string, fn: (client: FleetClient, cache: CacheDb, run: CacheRunner) => Promise<T>): Promise<T> {
  try {
    return await connection.use(fn);
  } catch (e) {
    if (e instanceof AppError && e.kind === 'offline') {
      throw new AppError('offline', `Couldn't ${what}: ${e.message.replace(/\.$/, '')}. This is read from the service only; try again once it is back.`);
    }
    throw e;
  }
}
