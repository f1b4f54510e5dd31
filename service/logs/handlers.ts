import { status } from '@grpc/grpc-js';
import type { AppServiceService } from '../../proto/gen/fleet/app/v1/app';
import type { LogEntry } from '../../proto/gen/fleet/app/v1/logs';
import { FleetError, Reason } from '../errors';
import { PageTokens } from '../paging';
import { partOf } from '../permissions/resources';
import type { CallContext, StreamHandlers, UnaryHandlers } from '../rpc';
import type { LogFeed } from './feed';
import type { LogStore } from './store';
import { logRequest } from './validate';

/** A tail buffers at most this many matching entries for a slow reader; older ones are dropped and counted. */
export const TAIL_BUFFER = 1000;
/** Most entries per message of a tail. */
const TAIL_BATCH = 500;
/** How often a tail checks that its key and its part still exist (PROTOCOL.md: within 60 s). */
export const TAIL_CHECK_MS = 10_000;

export interface TailOptions {
  readonly feed: LogFeed;
  /** Whether the caller's API key still exists. */
  readonly keyActive: (keyId: string) => boolean;
  /** Aborted when the service shuts down: tails end with UNAVAILABLE. */
  readonly closing: AbortSignal;
  readonly checkMs?: number;
}

/** AppService's log calls. Permissions are checked by the rule table before these run. */
export function createLogHandlers(
  logs: LogStore,
  tokens: PageTokens,
  tail: TailOptions,
): Pick<UnaryHandlers<AppServiceService, CallContext>, 'getRobotPartLogs'> & Pick<StreamHandlers<AppServiceService, CallContext>, 'tailRobotPartLogs'> {
  return {
    async tailRobotPartLogs(request, ctx, stream) {
      const part = partOf(ctx);
      // Absent errors_only means true (the spec's default): only ERROR entries.
      const errorsOnly = request.errorsOnly ?? true;
      const filter = request.filter;
      const buffer: LogEntry[] = [];
      let dropped = 0;
      let ending: FleetError | null = null;
      /** A write is waiting for the reader (its flow-control window is full). */
      let blocked = false;
      let wake: (() => void) | null = null;
      const nudge = () => {
        const w = wake;
        wake = null;
        w?.();
      };
      const unsubscribe = tail.feed.subscribe(part.id, (entries) => {
        for (const { entry } of entries) {
          if (errorsOnly && entry.level !== 'ERROR') continue;
          if (filter !== '' && !entry.message.includes(filter)) continue;
          buffer.push(entry);
        }
        // A reader that falls behind (a write waiting for it) loses the oldest entries beyond the
        // bound, and is told how many; one that keeps up gets every entry, however bursty.
        if (blocked && buffer.length > TAIL_BUFFER) dropped += buffer.splice(0, buffer.length - TAIL_BUFFER).length;
        nudge();
      });
      const check = setInterval(() => {
        if (!tail.keyActive(ctx.caller.keyId)) ending = new FleetError(status.UNAUTHENTICATED, Reason.API_KEY_DELETED, 'the API key this stream was opened with has been deleted');
        else if (!logs.partExists(part.id)) ending = new FleetError(status.NOT_FOUND, Reason.ROBOT_PART_NOT_FOUND, `robot part ${part.id} was deleted`);
        if (ending) nudge();
      }, tail.checkMs ?? TAIL_CHECK_MS);
      const onClosing = () => {
        ending = new FleetError(status.UNAVAILABLE, Reason.SHUTTING_DOWN, 'the service is shutting down; reconnect and fill the gap with GetRobotPartLogs');
        nudge();
      };
      tail.closing.addEventListener('abort', onClosing);
      if (tail.closing.aborted) onClosing();
      stream.signal.addEventListener('abort', nudge);
      try {
        for (;;) {
          if (stream.signal.aborted) return;
          if (ending) throw ending;
          if (buffer.length === 0) {
            await new Promise<void>((resolve) => (wake = resolve));
            continue;
          }
          const logs = buffer.splice(0, TAIL_BATCH);
          const lost = dropped;
          dropped = 0;
          blocked = true;
          await stream.write({ logs, dropped: lost });
          blocked = false;
        }
      } finally {
        unsubscribe();
        clearInterval(check);
        tail.closing.removeEventListener('abort', onClosing);
        stream.signal.removeEventListener('abort', nudge);
      }
    },

    async getRobotPartLogs(request, ctx) {
      const part = partOf(ctx);
      const { levels, cap, startUs, endUs, limit } = logRequest(request);
      // Every field but the paging ones: a token works only for the listing it came from.
      const fingerprint = PageTokens.fingerprint('GetRobotPartLogs', { part: part.id, filter: request.filter, levels, num: request.numLogEntries ?? null, startUs, endUs, source: request.source });
      const cursor = tokens.read(fingerprint, request.pageToken);
      const returned = cursor?.returned ?? 0;
      // The total cap ("the first num_log_entries or all") bounds this page too.
      const size = Math.min(limit, cap - returned);
      if (size <= 0) return { logs: [], nextPageToken: '' };
      const after = cursor ? ([Number(cursor.after[0]), Number(cursor.after[1])] as const) : null;
      const rows = logs.query({ partId: part.id, filter: request.filter, levels, source: request.source, startUs, endUs, after, limit: size + 1 });
      const page = rows.slice(0, size);
      const last = page.at(-1);
      const more = rows.length > size && returned + page.length < cap;
      return { logs: page.map((r) => r.entry), nextPageToken: more && last ? tokens.issue(fingerprint, { after: [last.timeUs, last.id], returned: returned + page.length }) : '' };
    },
  };
}
