/**
 * Fragments over the bridge: reusable config blocks that part configs (and organizations' default
 * fragments) name by id, each with revisions (every update makes the next one) and tags (names of
 * revisions that configs can ask for). An organization's fragments, one fragment at a revision or
 * tag, creating, updating (conflict-checked like part configs), deleting (refused while in use),
 * history, tags, the machines a fragment reaches, and drafts of edits not saved yet.
 *
 * Fragments, their revisions as read, tags and histories are cached per profile, so they read
 * offline (`fromCache` says so). Writes need the service.
 */
import { z } from 'zod';
import {
  configText,
  configTextProblem,
  FRAGMENT_VISIBILITIES,
  fragmentRevision,
  fragmentTag,
  fragmentVersion,
  isoTime,
  pageToken,
  type Editor,
  type FragmentRevision,
  type FragmentTag,
  type FragmentVisibility,
} from './config';
import { displayName, id, type IsoTime } from './schemas';

/** A fragment as the service describes it (without a config: that is per revision). */
export interface Fragment {
  readonly id: string;
  readonly name: string;
  /** The organization that owns it, and its name (public fragments of other organizations show it). */
  readonly orgId: string;
  readonly orgName: string;
  readonly visibility: FragmentVisibility;
  readonly createdOn: IsoTime | null;
  /** When its name, config or visibility last changed: the conflict token an update sends back. */
  readonly lastUpdated: IsoTime;
  /** The latest revision (what configs without a version get). */
  readonly latestRevision: string;
  /** Every revision, oldest first. */
  readonly revisions: readonly FragmentRevision[];
  /** Its tags, by tag. */
  readonly tags: readonly FragmentTag[];
  /** Machine parts whose configs use it, directly or through other fragments, at any revision (the service's count; a fragment in use cannot be deleted). */
  readonly partCount: number;
}

/** An organization's fragments, by name. */
export interface FragmentList {
  readonly orgId: string;
  readonly fragments: readonly Fragment[];
  readonly fromCache: boolean;
  /** When the organization's fragments were last listed from the service; null when never. */
  readonly syncedAt: IsoTime | null;
}

/** One fragment at one revision: what the fragment page and its editor show. */
export interface FragmentView {
  readonly fragment: Fragment;
  /** The revision shown (the version asked for resolved). */
  readonly revision: string;
  /**
   * The config of that revision as JSON text, two-space indented in the service's key order: the
   * service keeps a fragment's config as a structure, so this text is main's writing of it.
   */
  readonly configJson: string;
  readonly fromCache: boolean;
  /** When this copy was read from the service. */
  readonly syncedAt: IsoTime;
  /** The unsaved draft of this fragment, when one is kept (`fragments.saveDraft`). */
  readonly draft: FragmentDraft | null;
}

/** One revision's change of a fragment, newest first, with the fragment as it was before it. */
export interface FragmentHistoryEntry {
  readonly fragmentId: string;
  /** The revision the change made. */
  readonly revision: string;
  readonly editedOn: IsoTime | null;
  readonly editedBy: Editor | null;
  /** The fragment as the revision before left it (two-space indented config text); null for revision 1, the creation. */
  readonly previous: {
    readonly name: string;
    readonly configJson: string;
    readonly visibility: FragmentVisibility;
    /** When that revision was made. */
    readonly lastUpdated: IsoTime | null;
  } | null;
}

/** A page of a fragment's history, newest first. */
export interface FragmentHistoryPage {
  readonly fragmentId: string;
  readonly entries: readonly FragmentHistoryEntry[];
  /** Pass as `pageToken` for the next (older) page; empty on the last page. */
  readonly nextPageToken: string;
  readonly fromCache: boolean;
  /** When the history was last read from the service; null when never. */
  readonly syncedAt: IsoTime | null;
}

/** A machine that uses a fragment. */
export interface FragmentUser {
  readonly machineId: string;
  readonly machineName: string;
  readonly locationId: string;
  readonly locationName: string;
}

/**
 * Who a fragment reaches: the blast radius of saving it or moving one of its tags. The service
 * counts machines using the fragment at any version, directly or nested: a save reaches those
 * tracking its latest revision and a tag move those asking for the tag, both among these, so the
 * count is what the change can reach at most. `config.effective` with a `preview` shows what it
 * does to one of them.
 */
export interface FragmentUsage {
  readonly fragmentId: string;
  /** The organization whose machines are listed. */
  readonly orgId: string;
  /** Machine parts using it anywhere (every organization), directly or nested. */
  readonly partCount: number;
  /** Machines of the organization using it. */
  readonly machineCount: number;
  /** The first of them (at most 1,000), by location, then name. */
  readonly machines: readonly FragmentUser[];
}

/** An edit of a fragment kept in the cache until it is saved or dropped: it outlives the app. */
export interface FragmentDraft {
  readonly fragmentId: string;
  /** The owning organization and name as last read. */
  readonly orgId: string;
  readonly name: string;
  /** The edited config text, as the user left it. */
  readonly configJson: string;
  /** The config text the edit started from: the base of a three-way merge. */
  readonly baseConfigJson: string;
  /** The fragment's lastUpdated then: the conflict token a save of the draft sends. */
  readonly baseLastUpdated: IsoTime;
  readonly savedAt: IsoTime;
}

/** A fragment's config: a part config's rules, without `fragment_mods` (a fragment changes what it nests by its own content). */
const fragmentConfigText = configText.refine((text) => configTextProblem(text) !== undefined || !Object.hasOwn(JSON.parse(text) as object, 'fragment_mods'), {
  message: 'must not have fragment_mods: only a machine part’s config changes what its fragments bring',
});

const visibility = z.enum(FRAGMENT_VISIBILITIES, { error: 'must be "private" or "public"' });

export const fragmentsRequests = {
  /**
   * An organization's own fragments, by name: from the service when online (and cached), else the
   * cache. `visibilities` filters (default both); `search` keeps those whose name or id contains it
   * (any case).
   */
  'fragments.list': z
    .object({
      orgId: id,
      visibilities: z
        .array(visibility)
        .min(1, 'names no visibility')
        .max(2, 'names more than the two visibilities')
        .refine((v) => new Set(v).size === v.length, 'names a visibility twice')
        .optional(),
      search: z.string().trim().max(200, 'is too long').optional(),
    })
    .strict(),
  /** One fragment at a revision or tag (`version`; absent: the latest): from the service when online (and cached), else the cache. */
  'fragments.get': z.object({ fragmentId: id, version: fragmentVersion.optional() }).strict(),
  /** Create a fragment (revision 1); private unless `visibility` says otherwise, `{}` without a config. Needs the service. */
  'fragments.create': z.object({ orgId: id, name: displayName, configJson: fragmentConfigText.optional(), visibility: visibility.optional() }).strict(),
  /**
   * Make the fragment's next revision (UpdateFragment with `last_known_update` = `lastUpdated`):
   * what is absent stays. When someone else changed it since `lastUpdated`, fails with `conflict`
   * and changes nothing: read it again, merge, save. An updated fragment's draft is dropped. Needs the service.
   */
  'fragments.update': z
    .object({ fragmentId: id, lastUpdated: isoTime, name: displayName.optional(), configJson: fragmentConfigText.optional(), visibility: visibility.optional() })
    .strict(),
  /** Delete a fragment with its revisions and tags. Refused with `conflict` while anything uses it (the message counts the parts). Needs the service. */
  'fragments.delete': z.object({ fragmentId: id }).strict(),
  /** A page of a fragment's history, one entry per revision, newest first (10 a page unless `pageSize` says): online (and cached), else the cache. */
  'fragments.history': z
    .object({
      fragmentId: id,
      pageToken: pageToken.optional(),
      pageSize: z.number().int('must be a whole number').min(1, 'must be at least 1').max(100, 'is at most 100').optional(),
    })
    .strict(),
  /** Set a tag on a revision (absent: the latest), or move it there. Answers the fragment's tags. Needs the service. */
  'fragments.setTag': z.object({ fragmentId: id, tag: fragmentTag, revision: fragmentRevision.optional() }).strict(),
  /** Delete a tag; refused with `conflict` while a config, a fragment or a default fragment list asks for it. Answers the fragment's tags. Needs the service. */
  'fragments.deleteTag': z.object({ fragmentId: id, tag: fragmentTag }).strict(),
  /** The machines that use a fragment and how many (in `orgId`, default the fragment's own organization). Needs the service. */
  'fragments.usage': z.object({ fragmentId: id, orgId: id.optional() }).strict(),
  /** Keep an edit of a fragment as a draft (replacing its previous one). Works offline; the draft outlives the app. */
  'fragments.saveDraft': z.object({ fragmentId: id, configJson: fragmentConfigText, baseConfigJson: configText, baseLastUpdated: isoTime }).strict(),
  /** A fragment's draft, or null. */
  'fragments.draft': z.object({ fragmentId: id }).strict(),
  /** Forget a fragment's draft. */
  'fragments.dropDraft': z.object({ fragmentId: id }).strict(),
  /** Every fragment draft of the active profile, most recently kept first. */
  'fragments.drafts': z.object({}).strict(),
};

export interface FragmentsResponses {
  'fragments.list': FragmentList;
  'fragments.get': FragmentView;
  'fragments.create': FragmentView;
  'fragments.update': FragmentView;
  'fragments.delete': Record<string, never>;
  'fragments.history': FragmentHistoryPage;
  'fragments.setTag': { readonly fragmentId: string; readonly tags: readonly FragmentTag[] };
  'fragments.deleteTag': { readonly fragmentId: string; readonly tags: readonly FragmentTag[] };
  'fragments.usage': FragmentUsage;
  'fragments.saveDraft': FragmentDraft;
  'fragments.draft': FragmentDraft | null;
  'fragments.dropDraft': Record<string, never>;
  'fragments.drafts': readonly FragmentDraft[];
}
