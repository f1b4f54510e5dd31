/** The log operations' request-shape rules (docs/PROTOCOL.md section 6); none looks anything up. */
import type { GetRobotPartLogsRequest } from '../../proto/gen/fleet/app/v1/logs';
import { invalidArgument, Reason } from '../errors';
import { pageSize } from '../paging';
import { LOG_LEVELS, type LogLevel } from './store';

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
