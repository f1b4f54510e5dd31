import type { Migration } from '../../../db/migrate';

/**
 * An entry's identity (part, entry id) is no longer a unique index: keeping it cost a third of the
 * time of caching a line, and nearly every line needs no check at all — a tailed line is newer than
 * anything its part holds. The cache (main/logs/cache.ts) looks an older line up among its part's
 * lines of the same millisecond (`logs_by_part`) before inserting it.
 */
export default {
  version: 8,
  name: 'logs_identity_lookup',
  sql: `
    DROP INDEX logs_identity;
  `,
} satisfies Migration;
