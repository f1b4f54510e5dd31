import type { AppServiceService } from '../../proto/gen/fleet/app/v1/app';
import type { GetRobotPartLogsRequest } from '../../proto/gen/fleet/app/v1/logs';
import type { PartTarget } from '../access/access';
import { invalidArgument, Reason } from '../errors';
import { PageTokens, pageSize } from '../paging';
import type { CallContext, UnaryHandlers } from '../rpc';
import { LOG_LEVELS, type LogLevel, type LogStore } from './store';

/** `num_log_entries` when absent (PROTOCOL.md section 6). */
export const DEFAULT_NUM_LOG_ENTRIES = 100;

/** What a GetRobotPartLogs request asks for, validated (the permission table runs this before the part is looked up). */
export function logRequest(request: GetRobotPartLogsRequest): { levels: LogLevel[]; cap: number; startUs: number | null; endUs: number | null; limit: number } {
  const levels = request.logLevels.map((raw, i) => {
    const level = raw.trim().toUpperCase();
    if (!(LOG_LEVELS as readonly string[]).includes(level)) throw invalidArgument(`log_levels[${i}]`, Reason.LOG_LEVEL_INVALID, `log_levels[${i}] must be one of ${LOG_LEVELS.join(', ')}, not ${JSON.stringify(raw.slice(0, 40))}`);
    return level as LogLevel;
  });
  const num = request.numLogEntries;
  if (num !== undefined && num < 0) throw invalidArgument('num_log_entries', Reason.PAGE_SIZE_INVALID, 'num_log_entries must not be negative (0 means all)');
  const startUs = request.start ? request.start.getTime() * 1000 : null;
  const endUs = request.end ? request.end.getTime() * 1000 : null;
  if (startUs !== null && endUs !== null && startUs > endUs) throw invalidArgument('start', Reason.TIME_RANGE_INVALID, 'start must not be after end');
  return { levels: [...new Set(levels)], cap: num === undefined ? DEFAULT_NUM_LOG_ENTRIES : num === 0 ? Infinity : num, startUs, endUs, limit: pageSize('limit', request.limit) };
}

function partOf(ctx: CallContext): PartTarget {
  if (ctx.target?.kind !== 'part') throw new Error(`${ctx.method}: the permission table resolved ${ctx.target?.kind ?? 'nothing'}, not part`);
  return ctx.target;
}

/** AppService's log calls. Permissions are checked by the rule table before these run. */
export function createLogHandlers(logs: LogStore, tokens: PageTokens): Pick<UnaryHandlers<AppServiceService, CallContext>, 'getRobotPartLogs'> {
  return {
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
