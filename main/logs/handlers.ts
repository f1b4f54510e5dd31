import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { DEFAULT_RETENTION, type LogRetention } from '../../common/logs';
import type { BackendContext } from '../backend/context';
import { AppError } from '../backend/errors';
import type { DomainHandlers } from '../backend/router';
import { getUiState } from '../cache/ui-state';
import { partNames, type LogTails } from './tails';

type LogsChannel =
  | 'logs.open'
  | 'logs.filter'
  | 'logs.rows'
  | 'logs.seek'
  | 'logs.detail'
  | 'logs.locate'
  | 'logs.histogram'
  | 'logs.older'
  | 'logs.close'
  | 'logs.status'
  | 'logs.search'
  | 'logs.export'
  | 'logs.retention'
  | 'logs.setRetention';

const RETENTION_KEY = 'logs.retention';

function retentionOf(value: unknown): LogRetention {
  const v = value as Partial<LogRetention> | null;
  return typeof v?.maxLines === 'number' && typeof v.maxBytes === 'number' ? { maxLines: v.maxLines, maxBytes: v.maxBytes } : DEFAULT_RETENTION;
}

export function logsHandlers(ctx: BackendContext, tails: LogTails): DomainHandlers<LogsChannel> {
  const { connection } = ctx;
  const names = (partIds: readonly string[]) => partNames(connection.cache, partIds);
  const withUsage = async (retention: LogRetention) => ({ ...retention, ...(await connection.runCache('logsTotals')) });
  return {
    'logs.open': async ({ partIds, filter }) => {
      tails.retention = retentionOf(getUiState(connection.cache, RETENTION_KEY));
      return tails.open(partIds, filter, names(partIds));
    },
    'logs.filter': ({ viewId, filter }) => tails.filter(viewId, filter),
    'logs.rows': ({ viewId, from, count }) => tails.onView(viewId, (run) => run('logsRows', viewId, from, count)),
    'logs.seek': async ({ viewId, from, dir }) => ({ position: await tails.onView(viewId, (run) => run('logsSeekError', viewId, from, dir)) }),
    'logs.locate': async ({ viewId, key }) => ({ position: await tails.onView(viewId, (run) => run('logsLocate', viewId, key)) }),
    'logs.detail': async ({ key }) => {
      const detail = await connection.runCache('logsDetail', key);
      if (!detail) throw new AppError('not-found', 'That line is no longer cached (the cache evicted it to stay within its size). Reopen the logs.');
      return detail;
    },
    'logs.histogram': ({ viewId, buckets }) => tails.onView(viewId, (run) => run('logsHistogram', viewId, buckets)),
    'logs.older': async ({ viewId }) => {
      const { added, exhausted } = await tails.older(viewId);
      const state = await tails.onView(viewId, (run) => run('logsState', viewId));
      return { ...state, added, exhausted };
    },
    'logs.close': async ({ viewId }) => {
      await tails.close(viewId);
      return {};
    },
    'logs.status': () => tails.statuses(),
    'logs.search': async ({ filter, limit, beforeKey }) => {
      const started = performance.now();
      const found = await connection.runCache('logsSearch', filter, limit, beforeKey);
      return { ...found, tookMs: Math.round((performance.now() - started) * 10) / 10 };
    },
    'logs.export': async ({ viewId, format }) => {
      const partIds = tails.partsOf(viewId);
      const labels = Object.fromEntries(names(partIds).map((p) => [p.partId, `${p.machineName}/${p.partName}`]));
      const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
      const first = labels[partIds[0] ?? ''] ?? 'logs';
      const suggested = `${(partIds.length > 1 ? `${first}+${partIds.length - 1}` : first).replace(/[^\w.+-]+/g, '_')}-${stamp}.${format === 'text' ? 'log' : 'jsonl'}`;
      if (ctx.chooseSavePath) {
        const path = await ctx.chooseSavePath(suggested);
        if (path === null) return { path: null, url: null, lines: 0, bytes: 0 };
        const written = await tails.onView(viewId, (run) => run('logsExport', viewId, path, format, labels));
        return { path, url: null, ...written };
      }
      mkdirSync(ctx.exportsDir, { recursive: true, mode: 0o700 });
      const path = join(ctx.exportsDir, `${randomBytes(8).toString('hex')}-${suggested}`);
      const written = await tails.onView(viewId, (run) => run('logsExport', viewId, path, format, labels));
      const url = ctx.downloads.offer({ path, name: suggested, type: format === 'text' ? 'text/plain; charset=utf-8' : 'application/x-ndjson' });
      return { path: null, url, ...written };
    },
    'logs.retention': () => withUsage(retentionOf(getUiState(connection.cache, RETENTION_KEY))),
    'logs.setRetention': async (retention) => {
      await connection.runCache('setUiState', RETENTION_KEY, retention);
      tails.retention = retention;
      const updates = await connection.runCache('logsEvict', retention);
      for (const update of updates) ctx.events.emit('logs.view', update);
      return withUsage(retention);
    },
  };
}
