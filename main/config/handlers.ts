/**
 * The config bridge channels: a part's config read through the cache (verbatim text and its
 * lastUpdated), and saved with the conflict check. A save needs the service; a stale one comes back
 * as `conflict` with nothing changed, so the renderer can read the current config and merge.
 */
import { GetRobotPartRequest, UpdateRobotPartRequest } from '../../proto/gen/fleet/app/v1/machines';
import type { PartConfig } from '../../common/config';
import { readThrough, write } from '../backend/calls';
import type { BackendContext } from '../backend/context';
import { AppError } from '../backend/errors';
import type { DomainHandlers } from '../backend/router';
import type { CacheRunner } from '../connection/connection';
import type { FleetClient } from '../grpc/client';
import { cachedPartConfig, type CachedPartConfig } from './cache';
import { cachedConfigFromWire, partConfigView } from './convert';

type ConfigChannel = 'config.part' | 'config.save';

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
  };
}
