/**
 * The config bridge channels: a part's config read through the cache (verbatim text and its
 * lastUpdated), and saved with the conflict check; its history, page by page, through the cache;
 * the fragments a machine uses and a part's effective config, resolved here with fleetconfig (from
 * the cached fragments offline); drafts of edits, kept in the cache whatever the connection. A save
 * needs the service; a stale one comes back as `conflict` with nothing changed, so the renderer can
 * read the current config and merge.
 */
import { GetFragmentRequest, ListMachineFragmentsRequest } from '../../proto/gen/fleet/app/v1/fragments';
import { GetRobotPartHistoryRequest, GetRobotPartRequest, UpdateRobotPartRequest } from '../../proto/gen/fleet/app/v1/machines';
import type { ConfigDraft, EffectiveConfig, MachineFragment, MachineFragments, PartConfig, PartHistoryPage } from '../../common/config';
import type { IsoTime } from '../../common/schemas';
import { parseFragments, type JsonObject, type Resolution } from '../../fleetconfig';
import { readThrough, write } from '../backend/calls';
import type { BackendContext } from '../backend/context';
import { AppError } from '../backend/errors';
import { decodeCursor, encodeCursor } from '../backend/history';
import type { DomainHandlers } from '../backend/router';
import type { CacheDb } from '../cache/cache';
import type { CacheRunner } from '../connection/connection';
import type { FleetClient } from '../grpc/client';
import { cachedDraft, cachedDrafts, cachedMachineFragments, cachedPartConfig, cachedPartHistory, MAX_DRAFTS, roomForDraft, type CachedPartConfig } from './cache';
import { cachedConfigFromWire, historyEntryFromWire, machineFragmentFromWire, partConfigView } from './convert';
import { knownFrom, resolveKnown, resolveWith, type FetchFragment } from './effective';

type ConfigChannel =
  | 'config.part'
  | 'config.save'
  | 'config.history'
  | 'config.effective'
  | 'config.machineFragments'
  | 'config.saveDraft'
  | 'config.draft'
  | 'config.dropDraft'
  | 'config.drafts';

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

/** ListMachineFragments for a machine; its own use (no additional fragments) is cached. */
async function fetchMachineFragments(client: FleetClient, run: CacheRunner, machineId: string, additional: readonly string[]): Promise<{ fragments: MachineFragment[]; at: IsoTime }> {
  const r = await client.call("list the machine's fragments", client.app.listMachineFragments, ListMachineFragmentsRequest.fromPartial({ machineId, additionalFragmentIds: [...additional] }));
  const fragments = r.fragments.map(machineFragmentFromWire);
  const at = new Date().toISOString();
  if (additional.length === 0) await run('configMachineFragmentsPut', machineId, fragments, at);
  return { fragments, at };
}

/** One fragment version for a resolution; null when the service shows none (the resolution then says which is unknown). */
const fetchFragment =
  (client: FleetClient): FetchFragment =>
  async (id, version) => {
    try {
      const r = await client.call('read a fragment', client.app.getFragment, GetFragmentRequest.fromPartial({ fragmentId: id, version: version ?? '' }));
      return r.fragment ? knownFrom(machineFragmentFromWire(r.fragment)) : null;
    } catch (e) {
      if (e instanceof AppError && (e.kind === 'not-found' || e.kind === 'permission-denied')) return null;
      throw e;
    }
  };

function effectiveView(part: CachedPartConfig, configJson: string, resolution: Resolution, fromCache: boolean, syncedAt: IsoTime): EffectiveConfig {
  const { effective, fragments, blocks, fields, mods, issues } = resolution;
  return { partId: part.partId, machineId: part.machineId, configJson, lastUpdated: part.lastUpdated, effective, fragments, blocks, fields, mods, issues, fromCache, syncedAt };
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
        async (client, cache, run) => partConfigView(await fetchPartConfig(client, run, partId), false, cachedDraft(cache, partId)),
        (cache) => {
          const config = cachedPartConfig(cache, partId);
          return config ? partConfigView(config, true, cachedDraft(cache, partId)) : null;
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
        // Saved: an edit kept as a draft is no longer unsaved work.
        await run('configDraftDrop', partId);
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

    'config.machineFragments': ({ machineId, additionalFragmentIds = [] }) =>
      readThrough<MachineFragments>(
        connection,
        "This machine's fragments",
        async (client, _cache, run) => ({ machineId, ...(await fetchMachineFragments(client, run, machineId, additionalFragmentIds)), fromCache: false, syncedAt: new Date().toISOString() }),
        (cache) => {
          const cached = cachedMachineFragments(cache, machineId);
          // Additional fragments are never cached as a machine's: offline they are there only if the machine uses them.
          if (cached === null || !additionalFragmentIds.every((id) => cached.fragments.some((f) => f.id === id))) return null;
          return { machineId, fragments: cached.fragments, fromCache: true, syncedAt: cached.syncedAt };
        },
      ),

    'config.effective': ({ partId, configJson, preview }) =>
      readThrough<EffectiveConfig>(
        connection,
        "This part's effective config",
        async (client, _cache, run) => {
          const part = await fetchPartConfig(client, run, partId);
          const { fragments, at } = await fetchMachineFragments(client, run, part.machineId, []);
          const text = configJson ?? part.configJson;
          const { resolution } = await resolveWith(JSON.parse(text) as JsonObject, fragments.map(knownFrom), preview, fetchFragment(client));
          return effectiveView(part, text, resolution, false, at);
        },
        (cache) => {
          const part = cachedPartConfig(cache, partId);
          if (part === null) return null;
          const text = configJson ?? part.configJson;
          const config = JSON.parse(text) as JsonObject;
          const machine = cachedMachineFragments(cache, part.machineId);
          // Without the machine's fragments a config naming some would resolve to "unknown fragment": say it is not cached instead.
          if (machine === null && parseFragments(config).refs.length > 0) return null;
          return effectiveView(part, text, resolveKnown(config, (machine?.fragments ?? []).map(knownFrom), preview), true, machine?.syncedAt ?? part.syncedAt);
        },
      ),

    // Drafts live in the active profile's cache only: they work offline, and survive the app.
    'config.saveDraft': async ({ partId, configJson, baseConfigJson, baseLastUpdated }) => {
      const cache = connection.cache;
      if (!roomForDraft(cache, partId)) throw new AppError('invalid', `${MAX_DRAFTS} config drafts are kept already: save or drop some before keeping another.`);
      await connection.runCache('configDraftPut', { partId, configJson, baseConfigJson, baseLastUpdated, savedAt: new Date().toISOString() });
      const draft = connection.cache === cache ? cachedDraft(cache, partId) : null;
      if (draft === null) throw new AppError('conflict', 'The profile changed while the draft was being kept; it was kept in the profile it was made in.');
      return draft;
    },

    'config.draft': ({ partId }): ConfigDraft | null => cachedDraft(connection.cache, partId),

    'config.dropDraft': async ({ partId }) => {
      await connection.runCache('configDraftDrop', partId);
      return {};
    },

    'config.drafts': () => cachedDrafts(connection.cache),
  };
}
