import { LOG_LEVELS, type LogLevel } from '../../common/logs';
import type { JsonObject } from '../../common/schemas';
import { BinaryReader } from '@bufbuild/protobuf/wire';
import { GetRobotPartLogsResponse, TailRobotPartLogsResponse, type LogEntry } from '../../proto/gen/fleet/app/v1/logs';
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

/** Messages of a tail packed for the cache worker: each as a 4-byte length, then its protobuf bytes. */
export function packMessages(messages: readonly Uint8Array[]): Uint8Array {
  let size = 0;
  for (const m of messages) size += 4 + m.length;
  // A buffer of its own (not a slice of Node's pool): it is copied to the worker as it is.
  const packed = new Uint8Array(size);
  const view = new DataView(packed.buffer);
  let at = 0;
  for (const m of messages) {
    view.setUint32(at, m.length);
    packed.set(m, at + 4);
    at += 4 + m.length;
  }
  return packed;
}

/**
 * What main needs of a GetRobotPartLogs page without decoding its entries (the worker does): how
 * many entries it holds and its next_page_token.
 */
export function scanLogsPage(bytes: Uint8Array): { count: number; nextPageToken: string } {
  const reader = new BinaryReader(bytes);
  let count = 0;
  let nextPageToken = '';
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === 1) {
      count += 1;
      reader.skip(wireType);
    } else if (field === 2) nextPageToken = reader.string();
    else reader.skip(wireType);
  }
  return { count, nextPageToken };
}

/**
 * The entries of packed messages, in order, and how many the service dropped: TailRobotPartLogsResponse
 * messages (`tail`) or GetRobotPartLogsResponse pages (`page`).
 */
export function unpackMessages(packed: Uint8Array, kind: 'tail' | 'page' = 'tail'): { entries: IncomingEntry[]; dropped: number } {
  const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
  const entries: IncomingEntry[] = [];
  let dropped = 0;
  for (let at = 0; at < packed.length; ) {
    const length = view.getUint32(at);
    const bytes = packed.subarray(at + 4, at + 4 + length);
    if (kind === 'tail') {
      const message = TailRobotPartLogsResponse.decode(bytes);
      for (const e of message.logs) entries.push(entryFromWire(e));
      dropped += Number(message.dropped);
    } else for (const e of GetRobotPartLogsResponse.decode(bytes).logs) entries.push(entryFromWire(e));
    at += 4 + length;
  }
  return { entries, dropped };
}
