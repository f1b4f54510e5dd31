import { status } from '@grpc/grpc-js';
import type { EditorInfo } from '../../proto/gen/fleet/app/v1/access';
import type { AppServiceService } from '../../proto/gen/fleet/app/v1/app';
import { FragmentVisibility, type Fragment } from '../../proto/gen/fleet/app/v1/fragments';
import { FleetError, present, Reason } from '../errors';
import { PageTokens, pageSize } from '../paging';
import type { FragmentTarget, Permissions } from '../permissions/engine';
import { fragment } from '../permissions/rules';
import { fragmentOf, robotOf, targetOf } from '../permissions/resources';
import type { CallContext, Caller, UnaryHandlers } from '../rpc';
import { resolveConfig, type JsonObject } from '../../fleetconfig';
import { configInvalid, displayName } from '../validate';
import { configIssues, fragmentLookup } from './resolve';
import type { FragmentRow, FragmentStore, FragmentUses } from './store';
import { fragmentConfig, historyPageLimit, newVisibility, revisionNumber, tagName, updatedVisibility, versionName } from './validate';

/**
 * What the fragment operations need of the machine parts, which the machines domain keeps (handed in
 * by server.ts, since a domain imports no other domain).
 */
export interface PartUsage {
  /** How many parts' configs name one of `uses.ids` (any version) or one of `uses.pairs` (that fragment at that version). */
  countParts(uses: FragmentUses): number;
}

/** What ListMachineFragments needs of the machines domain: the configs of a machine's parts. */
export interface MachineConfigs {
  /** The config text of each part of machine `robotId`, main part first. */
  configs(robotId: string): string[];
}

/** What the in-use checks need of the organizations domain, which keeps default fragments. */
export interface DefaultFragmentUsers {
  /** The organizations whose default fragments name fragment `fragmentId` (at `version` when given). */
  usingDefaultFragment(fragmentId: string, version?: string): { id: string; name: string }[];
}

/** What the fragment handlers need of other domains. */
export interface FragmentDeps {
  readonly parts: PartUsage;
  readonly machines: MachineConfigs;
  readonly orgs: DefaultFragmentUsers;
  /** The caller as a history entry names it (the access domain knows key names). */
  readonly editorOf: (caller: Caller) => EditorInfo;
}

/** At most five names, and how many more. */
const listed = (names: readonly string[]) => `${names.slice(0, 5).join(', ')}${names.length > 5 ? ` and ${names.length - 5} more` : ''}`;

const describe = (f: { readonly id: string; readonly name?: string }) => (f.name === undefined ? `fragment ${f.id}` : `fragment ${JSON.stringify(f.name)} (${f.id})`);

/** AppService's fragment calls. Permissions are checked by the rule table (rules.ts) before these run. */
export function createFragmentHandlers(fragments: FragmentStore, permissions: Permissions, tokens: PageTokens, deps: FragmentDeps): UnaryHandlers<AppServiceService, CallContext> {
  /** How many parts the fragment reaches, directly or through other fragments, at any revision. */
  const reach = (id: string) => deps.parts.countParts(fragments.usesOf([id]));

  /** The fragment as answered: its current name and visibility, with the config and revision of `revision` (default: the latest). */
  const answer = (row: FragmentRow, revision = row.revision): Fragment => {
    const at = present(fragments.revision(row.id, revision), `revision ${revision} of fragment ${row.id}`);
    return {
      ...fragments.snapshot(row, at),
      name: row.name,
      visibility: row.visibility,
      lastUpdated: new Date(row.last_updated),
      robotPartCount: reach(row.id),
      revisions: fragments.revisions(row.id),
      tags: fragments.tags(row.id),
    };
  };

  const current = (target: FragmentTarget) => present(fragments.get(target.id), `fragment ${target.id}`);

  return {
    async listFragments(request, ctx) {
      const org = targetOf(ctx, 'organization');
      const size = pageSize('page_size', request.pageSize);
      // visibilities decides when given; else the deprecated show_public: absent or true lists public ones, false private ones.
      const visibilities =
        request.visibilities.length > 0
          ? [...new Set(request.visibilities)].sort()
          : [request.showPublic === false ? FragmentVisibility.FRAGMENT_VISIBILITY_PRIVATE : FragmentVisibility.FRAGMENT_VISIBILITY_PUBLIC];
      const fingerprint = PageTokens.fingerprint('ListFragments', { orgId: org.id, visibilities });
      const cursor = tokens.read(fingerprint, request.pageToken);
      const rows = fragments.list(org.id, visibilities, cursor?.after, size + 1);
      const page = rows.slice(0, size);
      const last = page.at(-1);
      return {
        fragments: page.map((row) => answer(row)),
        nextPageToken: rows.length > size && last !== undefined ? tokens.issue(fingerprint, { after: [last.name, last.id], returned: (cursor?.returned ?? 0) + page.length }) : '',
      };
    },

    async listMachineFragments(request, ctx) {
      const robot = robotOf(ctx);
      // The additional fragments must be readable by the caller (public, or a role on their organization).
      const additional = request.additionalFragmentIds.map((id, i) => permissions.require(ctx.caller.identity, fragment(id, `additional_fragment_ids[${i}]`), 'sees', { grants: ctx.grants }).id);
      // Each part's config resolves as it would be stored (the machine's organization reads public
      // fragments and its own); the additional ones as if the machine named them too.
      const lookup = fragmentLookup(fragments, robot.location.orgId, ctx.grants, { alsoReadable: new Set(additional) });
      const found = new Map<string, { row: FragmentRow; revision: number }>();
      const collect = (config: JsonObject) => {
        for (const f of resolveConfig(config, lookup).fragments) {
          const key = `${f.id}\u0000${f.revision}`;
          const row = found.has(key) ? undefined : fragments.get(f.id);
          if (row !== undefined) found.set(key, { row, revision: Number(f.revision) });
        }
      };
      for (const text of deps.machines.configs(robot.id)) collect(JSON.parse(text) as JsonObject);
      collect({ fragments: [...new Set(additional)] });
      return { fragments: [...found.values()].map(({ row, revision }) => answer(row, revision)) };
    },

    async getFragment(request, ctx) {
      const row = current(fragmentOf(ctx));
      const version = versionName(request.version);
      const revision = fragments.revisionOf(row.id, version === '' ? undefined : version);
      if (revision === undefined) {
        throw new FleetError(status.NOT_FOUND, Reason.FRAGMENT_VERSION_NOT_FOUND, `${describe(row)} has no revision or tag ${JSON.stringify(version.slice(0, 60))}`, 'version');
      }
      return { fragment: answer(row, revision) };
    },

    async createFragment(request, ctx) {
      const org = targetOf(ctx, 'organization');
      const name = displayName('name', request.name);
      const { config, text } = fragmentConfig('config', request.config);
      const row = fragments.create(org.id, name, text, newVisibility(request.visibility), deps.editorOf(ctx.caller), {
        verify: () => {
          const issues = configIssues(fragments, config, org.id, ctx.grants, { name });
          if (issues.length > 0) throw configInvalid('config', issues);
        },
      });
      return { fragment: answer(row) };
    },

    async updateFragment(request, ctx) {
      const target = fragmentOf(ctx);
      const name = displayName('name', request.name);
      const given = request.config === undefined ? undefined : fragmentConfig('config', request.config);
      const visibility = updatedVisibility(request);
      const outcome = fragments.update(
        target.id,
        { name, ...(given === undefined ? {} : { configJson: given.text }), ...(visibility === undefined ? {} : { visibility }) },
        {
          expected: request.lastKnownUpdate,
          editor: deps.editorOf(ctx.caller),
          verify: () => {
            if (given === undefined) return;
            const issues = configIssues(fragments, given.config, target.orgId, ctx.grants, { id: target.id, name });
            if (issues.length > 0) throw configInvalid('config', issues);
          },
        },
      );
      if (!outcome.ok) {
        throw new FleetError(
          status.ABORTED,
          Reason.STALE_UPDATE,
          `${describe({ id: target.id, name })} was changed at ${outcome.storedLastUpdated.toISOString()}, after the last_known_update given (${request.lastKnownUpdate?.toISOString() ?? ''}); read it again, merge your change into it, and save with its last_updated`,
        );
      }
      return { fragment: answer(outcome.row) };
    },

    async deleteFragment(_request, ctx) {
      const row = current(fragmentOf(ctx));
      fragments.delete(row.id, () => {
        const parts = reach(row.id);
        const nesting = fragments.fragmentsNaming(row.id);
        // The fragment's own organization's default-fragment entries go with it; another's would break.
        const others = deps.orgs.usingDefaultFragment(row.id).filter((o) => o.id !== row.organization_id);
        if (parts === 0 && nesting.length === 0 && others.length === 0) return;
        const uses = [
          ...(parts === 0 ? [] : [`${parts} machine part${parts === 1 ? '' : 's'} (directly or through other fragments)`]),
          ...(nesting.length === 0 ? [] : [`${nesting.length === 1 ? 'fragment' : 'fragments'} ${listed(nesting)}`]),
          ...(others.length === 0 ? [] : [`the default fragments of ${others.length === 1 ? 'organization' : 'organizations'} ${listed(others.map((o) => JSON.stringify(o.name)))}`]),
        ];
        throw new FleetError(status.FAILED_PRECONDITION, Reason.FRAGMENT_IN_USE, `${describe(row)} is still used by ${uses.join(' and by ')}; remove it from them first`);
      });
      return {};
    },

    async getFragmentHistory(request, ctx) {
      const row = current(fragmentOf(ctx));
      const size = historyPageLimit(request.pageLimit);
      const fingerprint = PageTokens.fingerprint('GetFragmentHistory', { id: row.id });
      const cursor = tokens.read(fingerprint, request.pageToken);
      const before = cursor === null ? undefined : Number(cursor.after[0]);
      const entries = fragments.history(row.id, before, size + 1);
      const page = entries.slice(0, size);
      const last = page.at(-1);
      return {
        history: page,
        nextPageToken: entries.length > size && last !== undefined ? tokens.issue(fingerprint, { after: [Number(last.revision)], returned: (cursor?.returned ?? 0) + page.length }) : '',
      };
    },

    async setFragmentTag(request, ctx) {
      const row = current(fragmentOf(ctx));
      const tag = tagName(request.tag);
      const wanted = revisionNumber(request.revision);
      if (fragments.setTag(row.id, tag, wanted) === undefined) {
        throw new FleetError(status.NOT_FOUND, Reason.FRAGMENT_VERSION_NOT_FOUND, `${describe(row)} has no revision ${JSON.stringify(request.revision)}`, 'revision');
      }
      return { tags: fragments.tags(row.id) };
    },

    async deleteFragmentTag(request, ctx) {
      const row = current(fragmentOf(ctx));
      const tag = tagName(request.tag);
      const existed = fragments.deleteTag(row.id, tag, () => {
        const parts = deps.parts.countParts({ ids: [], pairs: [{ fragmentId: row.id, version: tag }] });
        const nesting = fragments.fragmentsNaming(row.id, tag);
        const defaults = deps.orgs.usingDefaultFragment(row.id, tag);
        if (parts === 0 && nesting.length === 0 && defaults.length === 0) return;
        const uses = [
          ...(parts === 0 ? [] : [`${parts} machine part${parts === 1 ? '' : 's'}`]),
          ...(nesting.length === 0 ? [] : [`fragments ${listed(nesting)}`]),
          ...(defaults.length === 0 ? [] : [`the default fragments of ${listed(defaults.map((o) => JSON.stringify(o.name)))}`]),
        ];
        throw new FleetError(status.FAILED_PRECONDITION, Reason.FRAGMENT_IN_USE, `tag ${JSON.stringify(tag)} of ${describe(row)} is asked for by ${uses.join(' and by ')}; move the tag instead, or make them ask for another version first`);
      });
      if (!existed) throw new FleetError(status.NOT_FOUND, Reason.FRAGMENT_VERSION_NOT_FOUND, `${describe(row)} has no tag ${JSON.stringify(tag)}`, 'tag');
      return { tags: fragments.tags(row.id) };
    },
  };
}
