/**
 * The fragments bridge channels. Lists, fragments at a version and histories are read through the
 * cache (online: from the service, and cached; offline: the cached copy, saying so). Creating,
 * updating, deleting and tagging need the service, and what it answers is cached at once. An update
 * is conflict-checked like a part config's save: a stale one is `conflict` with nothing changed.
 * Drafts of edits are kept in the cache whatever the connection.
 */
import {
  CreateFragmentRequest,
  DeleteFragmentRequest,
  DeleteFragmentTagRequest,
  GetFragmentHistoryRequest,
  GetFragmentRequest,
  ListFragmentsRequest,
  SetFragmentTagRequest,
  UpdateFragmentRequest,
} from '../../proto/gen/fleet/app/v1/fragments';
import { FRAGMENT_VISIBILITIES } from '../../common/config';
import type { FragmentDraft, FragmentHistoryPage, FragmentList, FragmentUsage, FragmentView } from '../../common/fragments';
import type { JsonObject } from '../../common/schemas';
import { online, readThrough, write } from '../backend/calls';
import type { BackendContext } from '../backend/context';
import { AppError } from '../backend/errors';
import { decodeCursor, encodeCursor } from '../backend/history';
import type { DomainHandlers } from '../backend/router';
import type { CacheDb } from '../cache/cache';
import type { CacheRunner } from '../connection/connection';
import { listAllSummaries } from '../fleet/sync';
import type { FleetClient } from '../grpc/client';
import { cachedDraft, cachedDrafts, cachedFragment, cachedFragmentHistory, cachedOrgFragments, cachedRevisionConfig, cachedRevisionOf, matches, MAX_DRAFTS, roomForDraft } from './cache';
import { tagsFromWire, visibilityToWire } from '../backend/wire';
import { configTextOf, fragmentReadFromWire, historyEntryFromWire, type FragmentRead } from './convert';

type FragmentsChannel =
  | 'fragments.list'
  | 'fragments.get'
  | 'fragments.create'
  | 'fragments.update'
  | 'fragments.delete'
  | 'fragments.history'
  | 'fragments.setTag'
  | 'fragments.deleteTag'
  | 'fragments.usage'
  | 'fragments.saveDraft'
  | 'fragments.draft'
  | 'fragments.dropDraft'
  | 'fragments.drafts';

/** ListFragments pages as large as the protocol allows. */
const LIST_PAGE = 1000;
/** Fragments listed at most for one organization: a list past it is answered (and cached) as far as read, and nothing cached is dropped. */
const MAX_LISTED = 10_000;
/** Machines a usage answer lists (it counts them all). */
const MAX_USERS_LISTED = 1000;
/** GetFragmentHistory's own default page. */
const HISTORY_PAGE = 10;

const STALE_FRAGMENT =
  'Someone else changed this fragment after your edit started from it, so nothing was saved. Your text is kept: read the fragment again, merge your change into it (changes that do not overlap merge by themselves), and save again.';

/** The conflict kind for what the service refuses because the fragment (or tag) is in use; its message counts and names the users. */
function inUse(e: unknown): unknown {
  return e instanceof AppError && e.reason === 'FRAGMENT_IN_USE' ? new AppError('conflict', e.message, e.reason) : e;
}

/** GetFragment at a version, cached; a fragment the service no longer has (or no longer shows) is forgotten. */
export async function fetchFragment(client: FleetClient, run: CacheRunner, fragmentId: string, version = ''): Promise<FragmentRead> {
  let r;
  try {
    r = await client.call('read the fragment', client.app.getFragment, GetFragmentRequest.fromPartial({ fragmentId, version }));
  } catch (e) {
    if (e instanceof AppError && e.reason === 'FRAGMENT_NOT_FOUND') await run('fragmentsRemove', fragmentId);
    throw e;
  }
  if (!r.fragment) throw new AppError('internal', 'The service answered GetFragment without a fragment.');
  const read = fragmentReadFromWire(r.fragment);
  await run('fragmentsPut', [read], new Date().toISOString());
  return read;
}

export function fragmentsHandlers(ctx: BackendContext): DomainHandlers<FragmentsChannel> {
  const { connection } = ctx;
  const view = (cache: CacheDb, read: FragmentRead, syncedAt: string): FragmentView => ({
    fragment: read.fragment,
    revision: read.revision,
    configJson: configTextOf(read.config),
    fromCache: false,
    syncedAt,
    draft: cachedDraft(cache, read.fragment.id),
  });

  return {
    'fragments.list': ({ orgId, visibilities = [...FRAGMENT_VISIBILITIES], search }) =>
      readThrough<FragmentList>(
        connection,
        "This organization's fragments",
        async (client, _cache, run) => {
          const reads: FragmentRead[] = [];
          let pageToken = '';
          do {
            const r = await client.call(
              'list the fragments',
              client.app.listFragments,
              ListFragmentsRequest.fromPartial({ orgId, visibilities: visibilities.map(visibilityToWire), pageSize: LIST_PAGE, pageToken }),
            );
            reads.push(...r.fragments.map(fragmentReadFromWire));
            pageToken = r.nextPageToken;
          } while (pageToken !== '' && reads.length < MAX_LISTED);
          const at = new Date().toISOString();
          if (pageToken === '') await run('fragmentsReplace', orgId, visibilities, reads, at);
          else await run('fragmentsPut', reads, at);
          return { orgId, fragments: reads.map((r) => r.fragment).filter((f) => matches(f, search)), fromCache: false, syncedAt: at };
        },
        (cache) => {
          const cached = cachedOrgFragments(cache, orgId, visibilities, search);
          return cached ? { orgId, ...cached, fromCache: true } : null;
        },
      ),

    'fragments.get': ({ fragmentId, version }) =>
      readThrough<FragmentView>(
        connection,
        version === undefined ? 'This fragment' : `Version ${version} of this fragment`,
        async (client, cache, run) => view(cache, await fetchFragment(client, run, fragmentId, version), new Date().toISOString()),
        (cache) => {
          const cached = cachedFragment(cache, fragmentId);
          const revision = cached ? cachedRevisionOf(cached.fragment, version) : null;
          const config = cached && revision !== null ? cachedRevisionConfig(cache, fragmentId, revision) : null;
          if (!cached || revision === null || config === null) return null;
          return { fragment: cached.fragment, revision, configJson: configTextOf(config), fromCache: true, syncedAt: cached.syncedAt, draft: cachedDraft(cache, fragmentId) };
        },
      ),

    'fragments.create': ({ orgId, name, configJson, visibility }) =>
      write(connection, 'create the fragment', async (client, cache, run) => {
        const r = await client.call(
          'create the fragment',
          client.app.createFragment,
          CreateFragmentRequest.fromPartial({ orgId, name, config: JSON.parse(configJson ?? '{}') as JsonObject, visibility: visibilityToWire(visibility ?? 'private') }),
        );
        if (!r.fragment) throw new AppError('internal', 'The service answered CreateFragment without a fragment.');
        const read = fragmentReadFromWire(r.fragment);
        const at = new Date().toISOString();
        await run('fragmentsPut', [read], at);
        return view(cache, read, at);
      }),

    'fragments.update': ({ fragmentId, lastUpdated, name, configJson, visibility }) =>
      write(connection, 'save the fragment', async (client, cache, run) => {
        // UpdateFragment needs the name: the one read with `lastUpdated` keeps it (see config.save for why the current one is right otherwise).
        const cached = cachedFragment(cache, fragmentId)?.fragment;
        const keptName = name ?? (cached?.lastUpdated === lastUpdated ? cached.name : (await fetchFragment(client, run, fragmentId)).fragment.name);
        let r;
        try {
          r = await client.call(
            'save the fragment',
            client.app.updateFragment,
            UpdateFragmentRequest.fromPartial({
              fragmentId,
              name: keptName,
              lastKnownUpdate: new Date(lastUpdated),
              ...(configJson === undefined ? {} : { config: JSON.parse(configJson) as JsonObject }),
              ...(visibility === undefined ? {} : { visibility: visibilityToWire(visibility) }),
            }),
          );
        } catch (e) {
          if (e instanceof AppError && e.reason === 'STALE_UPDATE') throw new AppError('conflict', STALE_FRAGMENT, e.reason);
          if (e instanceof AppError && e.reason === 'FRAGMENT_NOT_FOUND') await run('fragmentsRemove', fragmentId);
          throw e;
        }
        if (!r.fragment) throw new AppError('internal', 'The service answered UpdateFragment without a fragment.');
        const read = fragmentReadFromWire(r.fragment);
        const at = new Date().toISOString();
        await run('fragmentsPut', [read], at);
        // Saved: an edit kept as a draft is no longer unsaved work.
        await run('fragmentsDraftDrop', fragmentId);
        return view(cache, read, at);
      }),

    'fragments.delete': ({ fragmentId }) =>
      write(connection, 'delete the fragment', async (client, _cache, run) => {
        try {
          await client.call('delete the fragment', client.app.deleteFragment, DeleteFragmentRequest.fromPartial({ fragmentId }));
        } catch (e) {
          // Deleted elsewhere: what was asked for is done, and the cached copy goes too.
          if (!(e instanceof AppError && e.reason === 'FRAGMENT_NOT_FOUND')) throw inUse(e);
        }
        await run('fragmentsRemove', fragmentId);
        return {};
      }),

    'fragments.history': ({ fragmentId, pageToken, pageSize = HISTORY_PAGE }) => {
      // Entries are keyed by the revision they made: a page goes on below the last revision shown.
      const cursor = decodeCursor(pageToken, Number.MAX_SAFE_INTEGER);
      const cachedPage = (cache: CacheDb): FragmentHistoryPage | null => {
        const page = cachedFragmentHistory(cache, fragmentId, cursor.at, pageSize);
        if (page === null) return null;
        const last = page.entries.at(-1);
        const nextPageToken = page.more && last !== undefined ? encodeCursor({ at: Number(last.revision) }) : '';
        return { fragmentId, entries: page.entries, nextPageToken, fromCache: true, syncedAt: page.syncedAt };
      };
      return readThrough<FragmentHistoryPage>(
        connection,
        "This fragment's history",
        async (client, cache, run) => {
          if (pageToken !== undefined && pageToken !== '' && cursor.service === undefined) return cachedPage(cache) ?? { fragmentId, entries: [], nextPageToken: '', fromCache: true, syncedAt: null };
          let r;
          try {
            r = await client.call("read the fragment's history", client.app.getFragmentHistory, GetFragmentHistoryRequest.fromPartial({ id: fragmentId, pageLimit: pageSize, pageToken: cursor.service ?? '' }));
          } catch (e) {
            if (e instanceof AppError && e.reason === 'FRAGMENT_NOT_FOUND') await run('fragmentsRemove', fragmentId);
            throw e;
          }
          const entries = r.history.map(historyEntryFromWire);
          const first = cursor.service === undefined;
          await run('fragmentsHistoryPut', fragmentId, entries, first, new Date().toISOString());
          const last = entries.at(-1);
          const nextPageToken = r.nextPageToken === '' || last === undefined ? '' : encodeCursor({ service: r.nextPageToken, at: Number(last.revision) });
          return { fragmentId, entries, nextPageToken, fromCache: false, syncedAt: cachedFragmentHistory(cache, fragmentId, 0, 0)?.syncedAt ?? null };
        },
        cachedPage,
      );
    },

    'fragments.setTag': ({ fragmentId, tag, revision }) =>
      write(connection, 'set the tag', async (client, _cache, run) => {
        const r = await client.call('set the tag', client.app.setFragmentTag, SetFragmentTagRequest.fromPartial({ fragmentId, tag, revision: revision ?? '' }));
        const tags = tagsFromWire(r.tags);
        await run('fragmentsTags', fragmentId, tags);
        return { fragmentId, tags };
      }),

    'fragments.deleteTag': ({ fragmentId, tag }) =>
      write(connection, 'delete the tag', async (client, _cache, run) => {
        let r;
        try {
          r = await client.call('delete the tag', client.app.deleteFragmentTag, DeleteFragmentTagRequest.fromPartial({ fragmentId, tag }));
        } catch (e) {
          throw inUse(e);
        }
        const tags = tagsFromWire(r.tags);
        await run('fragmentsTags', fragmentId, tags);
        return { fragmentId, tags };
      }),

    'fragments.usage': ({ fragmentId, orgId }) =>
      online(connection, 'count the machines using the fragment', async (client, _cache, run): Promise<FragmentUsage> => {
        // Read afresh: the part count is the service's, and it moves with every config saved anywhere.
        const { fragment } = await fetchFragment(client, run, fragmentId);
        const org = orgId ?? fragment.orgId;
        // The service follows nesting and versions from its index of configs' fragments: no config is read.
        const machines = await listAllSummaries(client, { orgId: org, fragmentIds: [fragmentId] });
        return {
          fragmentId,
          orgId: org,
          partCount: fragment.partCount,
          machineCount: machines.length,
          machines: machines.slice(0, MAX_USERS_LISTED).map((m) => ({ machineId: m.machineId, machineName: m.machineName, locationId: m.locationId, locationName: m.locationName })),
        };
      }),

    // Drafts live in the active profile's cache only: they work offline, and survive the app.
    'fragments.saveDraft': async ({ fragmentId, configJson, baseConfigJson, baseLastUpdated }) => {
      const cache = connection.cache;
      if (!roomForDraft(cache, fragmentId)) throw new AppError('invalid', `${MAX_DRAFTS} fragment drafts are kept already: save or drop some before keeping another.`);
      await connection.runCache('fragmentsDraftPut', { fragmentId, configJson, baseConfigJson, baseLastUpdated, savedAt: new Date().toISOString() });
      const draft = connection.cache === cache ? cachedDraft(cache, fragmentId) : null;
      if (draft === null) throw new AppError('conflict', 'The profile changed while the draft was being kept; it was kept in the profile it was made in.');
      return draft;
    },

    'fragments.draft': ({ fragmentId }): FragmentDraft | null => cachedDraft(connection.cache, fragmentId),

    'fragments.dropDraft': async ({ fragmentId }) => {
      await connection.runCache('fragmentsDraftDrop', fragmentId);
      return {};
    },

    'fragments.drafts': () => cachedDrafts(connection.cache),
  };
}
