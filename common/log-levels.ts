/**
 * The log levels and how many parts one merged view takes, in a module that imports nothing: the
 * page's log state is on the window's boot path, which does not load the logs domain's request
 * schemas (zod). common/logs.ts re-exports them.
 */
/** The levels an entry has, in order of severity (the wire's strings). */
export const LOG_LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** At most this many parts in one merged view (a big machine or a location). */
export const MAX_VIEW_PARTS = 200;
