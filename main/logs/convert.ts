import { LOG_LEVELS, type LogLevel } from '../../common/logs';
import type { JsonObject } from '../../common/schemas';
import type { LogEntry } from '../../proto/gen/fleet/app/v1/logs';
import type { IncomingEntry } from './cache';

function levelOf(level: string): LogLevel {
  const upper = level.toUpperCase();
  return (LOG_LEVELS as readonly string[]).includes(upper) ? (upper as LogLevel) : 'INFO';
}

/** A wire entry as the cache keeps it (an unknown level reads as INFO rather than losing the line). */
export function entryFromWire(e: LogEntry): IncomingEntry {
  return {
    entryId: e.id,
    timeMs: e.time ? e.time.getTime() : Date.now(),
    level: levelOf(e.level),
    source: e.source,
    host: e.host,
    message: e.message,
    caller: (e.caller as JsonObject | undefined) ?? null,
    stack: e.stack,
    fields: e.fields as JsonObject[],
  };
}
