/**
 * The config bridge channels: a part's config read through the cache (verbatim text and its
 * lastUpdated), and saved with the conflict check; its history, page by page, through the cache.
 * A save needs the service; a stale one comes back as `conflict` with nothing changed, so the
 * renderer can read the current config and merge.
 */
import { GetRobotPartHistoryRequest, GetRobotPartRequest, UpdateRobotPartRequest } from '../../proto/gen/fleet/app/v1/machines';
import type { PartConfig, PartHistoryPage } from '../../common/config';
import { readThrough, write } from '../backend/calls';
import type { BackendContext } from '../backend/context';
import { AppError } from '../backend/errors';
import { decodeCursor, encodeCursor } from '../backend/history';
import type { DomainHandlers } from '../backend/router';
import type { CacheDb } from '../cache/cache';
import type { CacheRunner } from '../connection/connection';
import type { FleetClient } from '../grpc/client';
import { cachedPartConfig, cachedPartHistory, type CachedPartConfig } from './cache';
import { cachedConfigFromWire, historyEntryFromWire, partConfigView } from './convert';

type ConfigChannel = 'config.part' | 'config.save' | 'config.history';

/** GetRobotPartHistory's own default page. */
const HISTORY_PAGE = 100;

/** Read a part's config from the service and cache it; a part the service no longer has is forgotten. */
export async function fetchPartConfig(client: FleetClient, run: CacheRunner, partId: string): Promise<CachedPartConfig> {
  let r;
  try {
    r = await client.call("read the part's config", client.app.getRobotPart, GetRobotPartRequest.fromPartial({ robotPartId: partId }));
  } catch (e) {
    if (e instanceof AppError && e.kind === 'not-found') await run('configForget', partId);
    throw e;
  }
  if (!r.part) throw new AppError('internal', 'The service answered GetRobotPart without a part.');
  const config = cachedConfigFromWire(r.part, r.configJson, new Date().toISOString());
  await run('configPut', config);
  return config;
}

/** The conflict a stale save comes back as: what happened, that nothing was lost, and the way on. */
const STALE_PART =
  'Someone else changed this part (its config or name) after your edit started from it, so nothing was saved. Your text is kept: read the current config, merge your change into it (changes that do not overlap merge by themselves), and save again.';

export function configHandlers(ctx: BackendContext): DomainHandlers<ConfigChannel> {
  const { connection } = ctx;

  return {
    'config.part': ({ partId }) =>
      readThrough<PartConfig>(
        connection,
        "This part's config",
        async (client, _cache, run) => partConfigView(await fetchPartConfig(client, run, partId), false, null),
        (cache) => {
          const config = cachedPartConfig(cache, partId);
          return config ? partConfigView(config, true, null) : null;
        },
      ),

    'config.save': ({ partId, configJson, lastUpdated }) =>
      write(connection, "save the part's config", async (client, cache, run) => {
        // UpdateRobotPart needs the name. The one read with `lastUpdated` is the one to keep; when the
        // cache holds another state, the current name is right too: a save that passes the check found
        // nothing changed since `lastUpdated`, and a name change moves last_updated.
        const cached = cachedPartConfig(cache, partId);
        const name = cached?.lastUpdated === lastUpdated ? cached.name : (await fetchPartConfig(client, run, partId)).name;
        let r;
        try {
          r = await client.call(
            "save the part's config",
            client.app.updateRobotPart,
            UpdateRobotPartRequest.fromPartial({ robotPartId: partId, name, robotConfigJson: configJson, lastKnownUpdate: new Date(lastUpdated) }),
          );
        } catch (e) {
          if (e instanceof AppError && e.reason === 'STALE_UPDATE') throw new AppError('conflict', STALE_PART, e.reason);
          if (e instanceof AppError && e.kind === 'not-found') await run('configForget', partId);
          throw e;
        }
        if (!r.part) throw new AppError('internal', 'The service answered UpdateRobotPart without a part.');
        // The service keeps the text verbatim: what was sent is what it stores.
        const saved = cachedConfigFromWire(r.part, configJson, new Date().toISOString());
        await run('configPut', saved);
        return partConfigView(saved, false, null);
      }),

    'config.history': ({ partId, pageToken, pageSize = HISTORY_PAGE }) => {
      const cursor = decodeCursor(pageToken, 0);
      /** The page from the cache, at the same position a service page would start. */
      const cachedPage = (cache: CacheDb): PartHistoryPage | null => {
        const page = cachedPartHistory(cache, partId, cursor.at, pageSize);
        if (page === null) return null;
        const nextPageToken = page.more ? encodeCursor({ at: cursor.at + page.entries.length }) : '';
        return { partId, entries: page.entries, nextPageToken, fromCache: true, syncedAt: page.syncedAt };
      };
      return readThrough<PartHistoryPage>(
        connection,
        "This part's history",
        async (client, cache, run) => {
          // A page the cache answered has no service token to go on from: the cache answers the rest.
          if (cursor.at > 0 && cursor.service === undefined) return cachedPage(cache) ?? { partId, entries: [], nextPageToken: '', fromCache: true, syncedAt: null };
          let r;
          try {
            r = await client.call("read the part's history", client.app.getRobotPartHistory, GetRobotPartHistoryRequest.fromPartial({ robotPartId: partId, pageSize, pageToken: cursor.service ?? '' }));
          } catch (e) {
            if (e instanceof AppError && e.kind === 'not-found') await run('configForget', partId);
            throw e;
          }
          const entries = r.history.map(historyEntryFromWire);
          await run('configHistoryPut', partId, cursor.at, entries, new Date().toISOString());
          const nextPageToken = r.nextPageToken === '' ? '' : encodeCursor({ service: r.nextPageToken, at: cursor.at + entries.length });
          return { partId, entries, nextPageToken, fromCache: false, syncedAt: cachedPartHistory(cache, partId, 0, 0)?.syncedAt ?? null };
        },
        cachedPage,
      );
    },
  };
}
