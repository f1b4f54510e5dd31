/**
 * Part configs over the bridge: a part's config as the service keeps it (the text verbatim, key
 * order and spacing included), saving it with the conflict check, its history, the effective config
 * of a part (its fragments brought in, with where every block, field and mod came from), the
 * fragments a machine uses, and drafts of edits that could not be saved yet.
 *
 * Configs and histories are cached per profile, so they read offline (`fromCache` says so). Saving
 * needs the service: `lastUpdated` of the config the edit started from goes with it, and when
 * someone else saved since, the save fails with the `conflict` kind and changes nothing; the
 * renderer then reads the current config (`config.part`) and merges. An edit made offline is kept
 * as a draft (`config.saveDraft`), which outlives the app, and is offered for saving once the
 * service is back.
 *
 * Shapes shared with fragments (common/fragments.ts) live here: config texts, editors, fragment
 * visibility, revisions and tags.
 */
import { z } from 'zod';
import { id, type IsoTime, type JsonObject, type JsonValue } from './schemas';

/** Largest config, as UTF-8 JSON text: the service's bound (docs/PROTOCOL.md, UpdateRobotPart), checked here so the editor says so first. */
export const MAX_CONFIG_BYTES = 1.5 * 1024 * 1024;
/** Deepest nesting of objects and arrays in a config: the service's bound (what a Struct decoder reads back; fleetconfig/json.ts says why). */
export const MAX_CONFIG_DEPTH = 32;

/** Why `text` cannot be stored as a config, or undefined when it can (the service's rules, so a bad text never leaves the app). */
export function configTextProblem(text: string): string | undefined {
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > MAX_CONFIG_BYTES) return `is ${(bytes / 1048576).toFixed(2)} MiB of JSON; a config is at most ${MAX_CONFIG_BYTES / 1048576} MiB`;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    // A RangeError is nesting past the engine's stack, far past the bound.
    return e instanceof SyntaxError ? `is not valid JSON: ${e.message}` : `nests more than ${MAX_CONFIG_DEPTH} levels deep`;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return `must be a JSON object ({…}), not ${value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`}`;
  }
  // Walked without recursion: a hostile text must not overflow the stack here either.
  const stack: [unknown, number][] = [[value, 1]];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [node, depth] = top;
    if (depth > MAX_CONFIG_DEPTH) return `nests more than ${MAX_CONFIG_DEPTH} levels deep`;
    for (const child of Object.values(node as object)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return undefined;
}

/** A config as JSON text: a JSON object of at most 1.5 MiB and 32 levels. Sent as written (the service keeps a part's text verbatim). */
export const configText = z
  .string()
  // Characters never outnumber UTF-8 bytes: a text this long is too large without encoding it.
  .max(MAX_CONFIG_BYTES, `is longer than ${MAX_CONFIG_BYTES / 1048576} MiB; a config is at most that`)
  .superRefine((text, ctx) => {
    const problem = configTextProblem(text);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  });

/** An instant as main answered it (`lastUpdated`, the conflict token): ISO-8601. */
export const isoTime = z.iso.datetime({ offset: true, error: 'must be an ISO-8601 time, as lastUpdated was read' });

/** A fragment tag: lowercase letters, digits, `-` and `_`, at most 60 characters, not starting with a digit or `v` (so it never reads as a revision). */
export const fragmentTag = z
  .string()
  .min(1, 'must not be empty')
  .max(60, 'is at most 60 characters')
  .regex(/^[a-z0-9_-]+$/, 'may hold only lowercase letters, digits, - and _')
  .regex(/^[a-uw-z_-]/, 'must not start with a digit or with v (so it never reads as a revision)');

/** A fragment revision: a whole number from 1, as text (`"3"`). */
export const fragmentRevision = z.string().regex(/^[1-9][0-9]{0,14}$/, 'must be a revision number such as "3"');

/** A version of a fragment: a revision (`"3"`) or a tag (`"stable"`). */
export const fragmentVersion = z.string().superRefine((version, ctx) => {
  const parsed = /^[0-9]/.test(version) ? fragmentRevision.safeParse(version) : fragmentTag.safeParse(version);
  if (!parsed.success) ctx.addIssue({ code: 'custom', message: `is neither a revision number nor a tag: it ${parsed.error.issues[0]?.message ?? 'is malformed'}` });
});

/** An opaque page token, as a previous page answered it. */
export const pageToken = z.string().max(4096, 'is not a page token this app gave out');

/** Who made a change, as the service recorded it (its EditorInfo). */
export interface Editor {
  /** An API key or a user. */
  readonly kind: 'key' | 'user';
  /** The key's or user's id. */
  readonly id: string;
  /** The key's name, or the user's email, at the time of the change (so it reads after the key is gone). */
  readonly displayName: string;
}

/** Who may read a fragment: its organization only, or every signed-in caller. */
export const FRAGMENT_VISIBILITIES = ['private', 'public'] as const;
export type FragmentVisibility = (typeof FRAGMENT_VISIBILITIES)[number];

/** One revision of a fragment. */
export interface FragmentRevision {
  /** `"1"` at creation, counting up by one on every update; a revision never changes. */
  readonly revision: string;
  readonly createdOn: IsoTime | null;
}

/** A tag: a name for a revision that configs can ask for (`{"id": …, "version": "stable"}`); moving it changes what they resolve to at once. */
export interface FragmentTag {
  readonly tag: string;
  /** The revision it names. */
  readonly revision: string;
  /** When it was set or last moved. */
  readonly updatedOn: IsoTime | null;
}

/** A part's config as the service keeps it. */
export interface PartConfig {
  readonly partId: string;
  readonly machineId: string;
  /** The part's name when the config was read (a save keeps it: UpdateRobotPart needs one). */
  readonly name: string;
  /** The config text exactly as stored (spacing, key order): what the editor opens. */
  readonly configJson: string;
  /** When the part's name or config last changed: the conflict token a save sends back. */
  readonly lastUpdated: IsoTime;
  /** True when the service could not be reached and this is the cached copy. */
  readonly fromCache: boolean;
  /** When this copy was read from the service. */
  readonly syncedAt: IsoTime;
  /** The unsaved draft of this part's config, when one is kept (`config.saveDraft`). */
  readonly draft: ConfigDraft | null;
}

/** One change of a part (its name, config, main flag or restart flag), with the part as it was before it. */
export interface PartHistoryEntry {
  readonly partId: string;
  /** When the change was made (for a config change, the part's new lastUpdated). */
  readonly when: IsoTime | null;
  readonly editedBy: Editor | null;
  /**
   * The part as the change found it. Its `configJson` is the config then, written out by main with
   * two-space indentation in the service's key order: the service answers history configs as
   * structures, not as the text that was saved, so compare structures, not spacing.
   */
  readonly previous: {
    readonly name: string;
    readonly configJson: string;
    readonly mainPart: boolean;
    readonly markedForRestart: boolean;
    /** Its lastUpdated then. */
    readonly lastUpdated: IsoTime | null;
  };
}

/** A page of a part's history, newest first. */
export interface PartHistoryPage {
  readonly partId: string;
  readonly entries: readonly PartHistoryEntry[];
  /** Pass as `pageToken` for the next (older) page; empty on the last page. */
  readonly nextPageToken: string;
  readonly fromCache: boolean;
  /** When the first page was last read from the service; null when never. */
  readonly syncedAt: IsoTime | null;
}

/** A fragment a machine's parts use (or an additional one asked for), at the revision their configs resolve to. */
export interface MachineFragment {
  readonly id: string;
  readonly name: string;
  readonly orgId: string;
  readonly orgName: string;
  readonly visibility: FragmentVisibility;
  /** The revision this entry holds (a fragment asked for at two versions is listed twice). */
  readonly revision: string;
  /** The fragment's config at that revision. */
  readonly config: JsonObject;
  /** Every revision, oldest first (the last is the latest): what a version choice offers. */
  readonly revisions: readonly FragmentRevision[];
  readonly tags: readonly FragmentTag[];
  /** Machine parts using it, directly or nested, at any revision (the service's count). */
  readonly partCount: number;
}

/** The fragments a machine uses, each (id, revision) once, in resolution order (main part first, depth first). */
export interface MachineFragments {
  readonly machineId: string;
  readonly fragments: readonly MachineFragment[];
  readonly fromCache: boolean;
  readonly syncedAt: IsoTime;
}

/** Where a block, field or overridden value of an effective config came from (fleetconfig's Source). */
export type ConfigSource =
  | { readonly kind: 'own' }
  | {
      readonly kind: 'fragment';
      readonly fragmentId: string;
      readonly revision: string;
      /** Fragment ids from the one the config names down to this one (inclusive): the nesting path. */
      readonly chain: readonly string[];
    };

/** A fragment the config uses, as it resolved: the nodes of the machine's fragment tree. */
export interface ResolvedFragment {
  readonly id: string;
  readonly name?: string;
  readonly revision: string;
  /** The version as the config asked for it (absent: it tracks the latest). */
  readonly version?: string;
  /** The prefix its blocks got (its own added to its parents'). */
  readonly prefix: string;
  /** 1 for a fragment the config names, 2 for one that fragment nests, … */
  readonly depth: number;
  readonly chain: readonly string[];
  /** Where it is named: `fragments[0] › fragments[2]`. */
  readonly path: string;
}

/** Where one block (an element of a section such as `components`) came from. */
export interface BlockProvenance {
  readonly section: string;
  /** Its index in the effective config's section. */
  readonly index: number;
  /** Its name there (prefix applied), when it has one. */
  readonly name?: string;
  /** Its name in the config it came from, when a prefix changed it. */
  readonly originalName?: string;
  readonly source: ConfigSource;
}

/** Where one top-level field (a key that is not a section) came from. */
export interface FieldProvenance {
  readonly key: string;
  readonly source: ConfigSource;
}

/** What one `$set`/`$unset` of `fragment_mods` did: the overridden values to mark. */
export interface ModOutcome {
  /** Index of its entry in `fragment_mods`. */
  readonly entry: number;
  readonly fragmentId: string;
  readonly op: '$set' | '$unset';
  /** The dotted path it changes (`components.lidar.attributes.rate_hz`). */
  readonly path: string;
  /** Where it is in the config: `fragment_mods[0].mods[1]`. */
  readonly at: string;
  readonly applied: boolean;
  /** Why it was not applied. */
  readonly reason?: string;
  /** Whose value it replaced or removed, when applied. */
  readonly overrode?: ConfigSource;
  /** The value it replaced or removed; absent when there was none. */
  readonly previous?: JsonValue;
}

/** What resolving found wrong: blocking kinds make a config unfit to save; `conflict` and the mod kinds are shown, not refused. */
export interface ConfigIssue {
  readonly kind:
    | 'malformed'
    | 'unknown-fragment'
    | 'unreadable-fragment'
    | 'unknown-version'
    | 'self-reference'
    | 'cycle'
    | 'too-deep'
    | 'conflict'
    | 'mod-unused-fragment'
    | 'mod-not-applied';
  readonly path: string;
  readonly message: string;
  readonly fragmentId?: string;
}

/** A part's effective config: what it runs once its fragments are brought in (docs/PROTOCOL.md, "How a config resolves"). */
export interface EffectiveConfig {
  readonly partId: string;
  readonly machineId: string;
  /** The config text resolved (the stored one, or the `configJson` asked about). */
  readonly configJson: string;
  /** The stored config's lastUpdated. */
  readonly lastUpdated: IsoTime;
  readonly effective: JsonObject;
  /** Every fragment used, depth first, each (id, revision, prefix) once: the fragment tree, by depth and chain. */
  readonly fragments: readonly ResolvedFragment[];
  readonly blocks: readonly BlockProvenance[];
  readonly fields: readonly FieldProvenance[];
  readonly mods: readonly ModOutcome[];
  readonly issues: readonly ConfigIssue[];
  /** True when any of it (the config, the fragments) came from the cache because the service could not be reached. */
  readonly fromCache: boolean;
  /** When the fragments it resolved with were read from the service. */
  readonly syncedAt: IsoTime;
}

/** An edit of a part's config kept in the cache until it is saved or dropped: it outlives the app. */
export interface ConfigDraft {
  readonly partId: string;
  /** The part's machine and name as last read (empty when the part's config was never read here). */
  readonly machineId: string;
  readonly partName: string;
  /** The edited text, as the user left it. */
  readonly configJson: string;
  /** The text the edit started from: the base of a three-way merge. */
  readonly baseConfigJson: string;
  /** That text's lastUpdated: the conflict token a save of the draft sends. */
  readonly baseLastUpdated: IsoTime;
  /** When the draft was last kept. */
  readonly savedAt: IsoTime;
}

/**
 * Shows what a change of a fragment would do to a part's effective config before it is made: the
 * fragment's next revision with this config (for the configs tracking its latest), or a tag moved
 * to another revision (for the configs asking for the tag).
 */
const preview = z
  .object({ fragmentId: id, configJson: configText.optional(), tag: fragmentTag.optional(), revision: fragmentRevision.optional() })
  .strict()
  .refine((p) => (p.configJson === undefined) !== (p.tag === undefined), 'must give either configJson (the next revision of the fragment) or tag with revision (a tag moved), one of the two')
  .refine((p) => (p.tag === undefined) === (p.revision === undefined), 'must give tag and revision together');

export type ConfigPreview = z.output<typeof preview>;

export const configRequests = {
  /** A part's config, verbatim, with its lastUpdated: from the service when online (and cached), else the cached copy. */
  'config.part': z.object({ partId: id }).strict(),
  /**
   * Save a part's config (UpdateRobotPart with `robot_config_json`, `last_known_update` =
   * `lastUpdated`). When someone else saved since `lastUpdated`, fails with `conflict` and changes
   * nothing: read `config.part` again, merge, save with its lastUpdated. A saved part's draft is
   * dropped. Needs the service.
   */
  'config.save': z.object({ partId: id, configJson: configText, lastUpdated: isoTime }).strict(),
  /** A page of a part's history, newest first (100 a page unless `pageSize` says): from the service when online (and cached), else the cache. */
  'config.history': z
    .object({
      partId: id,
      pageToken: pageToken.optional(),
      pageSize: z.number().int('must be a whole number').min(1, 'must be at least 1').max(1000, 'is at most 1000').optional(),
    })
    .strict(),
  /**
   * A part's effective config with provenance, resolved in main with the fragments the machine uses
   * (offline, with the cached ones). `configJson` resolves that text instead of the stored config
   * (an unsaved edit); `preview` shows a fragment change before it is made.
   */
  'config.effective': z.object({ partId: id, configJson: configText.optional(), preview: preview.optional() }).strict(),
  /** The fragments a machine's parts use, with revisions and tags (ListMachineFragments), plus `additionalFragmentIds` at their latest: online, and cached. */
  'config.machineFragments': z
    .object({
      machineId: id,
      additionalFragmentIds: z
        .array(id)
        .max(100, 'names more than 100 fragments')
        .refine((ids) => new Set(ids).size === ids.length, 'names a fragment twice')
        .optional(),
    })
    .strict(),
  /** Keep an edit of a part's config as a draft (replacing the part's previous one). Works offline; the draft outlives the app. */
  'config.saveDraft': z.object({ partId: id, configJson: configText, baseConfigJson: configText, baseLastUpdated: isoTime }).strict(),
  /** A part's draft, or null. */
  'config.draft': z.object({ partId: id }).strict(),
  /** Forget a part's draft (saved some other way, or given up). */
  'config.dropDraft': z.object({ partId: id }).strict(),
  /** Every draft of the active profile, most recently kept first: what to offer for saving once the service is back. */
  'config.drafts': z.object({}).strict(),
};

export interface ConfigResponses {
  'config.part': PartConfig;
  'config.save': PartConfig;
  'config.history': PartHistoryPage;
  'config.effective': EffectiveConfig;
  'config.machineFragments': MachineFragments;
  'config.saveDraft': ConfigDraft;
  'config.draft': ConfigDraft | null;
  'config.dropDraft': Record<string, never>;
  'config.drafts': readonly ConfigDraft[];
}
