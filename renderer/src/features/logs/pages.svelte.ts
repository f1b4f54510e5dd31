import type { LogFilter, LogSearchHit } from '../../../../common/logs';
import type { NodeKind, NodeRef } from '../../lib/fleet/fleet-index';
import { nodeRoute } from '../../lib/fleet/routes';
import { param, type RouteMatch } from '../../lib/router/router.svelte';
import type { Shell } from '../../lib/shell/feature';
import { LogsStore, type LogTarget } from './logs.svelte';
import { nodeLogsPath, partsLogsPath } from './routes';
import { logTarget } from './targets';

/** Why a log page shows nothing: its node is not in the cached fleet. */
export interface LogsMissing {
  readonly what: string;
  /** Where to go instead (the organization's page). */
  readonly route: string;
}

/** Log pages as the router shows them: the view or search open, what could not be opened, and how to leave. */
export class LogsPages {
  readonly store: LogsStore;
  readonly #shell: Shell;
  /** Set while a page waits for its organization's tree (a restore at start), or when it could not open. */
  waiting = $state(false);
  /** Which kind of log page the route shows (the search stays open behind a view, for Back). */
  mode = $state<'view' | 'search'>('view');
  missing = $state.raw<LogsMissing | null>(null);
  /** A filter to keep on the next view opened (a part added to a view). */
  #carry: LogFilter | null = null;

  readonly #orgsKnown: () => boolean;

  /** `orgsKnown`: whether the organizations list is loaded (a page for one it lacks stops waiting). */
  constructor(shell: Shell, orgsKnown: () => boolean = () => false) {
    this.#shell = shell;
    this.#orgsKnown = orgsKnown;
    this.store = new LogsStore(shell.bridge);
  }

  /** Open a node's logs (`kind` from the route matched). */
  async enterNode(kind: Exclude<NodeKind, 'org'>, match: RouteMatch, signal: AbortSignal): Promise<void> {
    const orgId = param(match, 'orgId');
    const id = param(match, 'id');
    const ref: NodeRef = { kind, orgId, id };
    const line = Number(match.query.get('line') ?? '');
    await this.#open(orgId, signal, (index) => {
      const target = index ? logTarget(index, ref) : null;
      // A part the tree no longer has still has its cached lines: offline review goes on by id.
      if (!target && kind === 'part') return { target: { kind: 'part', orgId, title: id, partIds: [id] }, truncated: 0 };
      return target ? { target, truncated: target.truncated } : null;
    }, Number.isSafeInteger(line) && match.query.has('line') ? line : null);
  }

  /** Open a hand-picked set of parts (`?parts=a,b`). */
  async enterParts(match: RouteMatch, signal: AbortSignal): Promise<void> {
    const orgId = param(match, 'orgId');
    const partIds = (match.query.get('parts') ?? '').split(',').filter((p, i, all) => p !== '' && all.indexOf(p) === i);
    await this.#open(orgId, signal, () => (partIds.length === 0 ? null : { target: { kind: 'parts', orgId, title: `${partIds.length} parts`, partIds }, truncated: 0 }), null);
  }

  enterSearch(): void {
    this.mode = 'search';
    this.missing = null;
    this.waiting = false;
    this.store.openSearch();
  }

  async #open(
    orgId: string,
    signal: AbortSignal,
    targetFrom: (index: Awaited<ReturnType<Shell['fleet']['whenTree']>>) => { target: LogTarget; truncated: number } | null,
    line: number | null,
  ): Promise<void> {
    this.mode = 'view';
    const filter = this.#carry;
    this.#carry = null;
    this.missing = null;
    const ready = this.#shell.fleet.tree(orgId);
    this.waiting = !ready;
    if (!ready) this.store.closeView();
    const index = ready ?? (await this.#shell.fleet.whenTree(orgId, { signal, orgsKnown: this.#orgsKnown() }));
    if (signal.aborted) return;
    this.waiting = false;
    const found = targetFrom(index);
    if (!found) {
      this.store.closeView();
      this.missing = { what: index ? 'It is not in the cached fleet any more (deleted, or moved to another organization).' : 'Its organization is not in the cached fleet.', route: index ? nodeRoute({ kind: 'org', orgId, id: orgId }) : '/' };
      return;
    }
    if (found.truncated > 0) this.#shell.notices.push('info', `Showing the first ${found.target.partIds.length} parts; ${found.truncated} more are not in this view. Open a smaller location to see them.`);
    this.store.open(found.target, filter ?? undefined, line);
  }

  /** Add a part to the open view, keeping its filter (a new address: Back returns to the smaller view). */
  addPart(partId: string): void {
    const view = this.store.view;
    if (!view) return;
    this.#carry = view.filter;
    this.#shell.router.go(partsLogsPath(view.target.orgId, [...view.target.partIds, partId]));
  }

  /** A search hit opens in its part's log, at its line. */
  openHit(hit: LogSearchHit): void {
    const orgId = hit.orgId || this.#shell.fleet.selected?.orgId || this.#shell.fleet.orgs[0]?.id;
    if (!orgId) {
      this.#shell.notices.push('error', 'This line belongs to no organization in the cached fleet; its part cannot be opened.');
      return;
    }
    this.#shell.router.go(nodeLogsPath({ kind: 'part', orgId, id: hit.partId }, hit.key));
  }

  /** Close a view: its node's page (an organization's for a set of parts); the search: back where the user was. */
  close(): void {
    const target = this.store.view?.target;
    const { router } = this.#shell;
    if (target && target.kind !== 'parts' && target.partIds.length > 0) {
      const match = router.match;
      const id = match?.params['id'];
      if (id) {
        router.go(nodeRoute({ kind: target.kind, orgId: target.orgId, id }));
        return;
      }
    }
    if (target) router.go(nodeRoute({ kind: 'org', orgId: target.orgId, id: target.orgId }));
    else if (router.canGoBack) router.back();
    else router.go('/');
  }

  /** Another profile: nothing of the last one's logs stays. */
  reset(): void {
    this.leave();
    this.store.close();
  }

  /** Another feature's page: the view closes; the search (its query and hits) stays for Back. */
  leave(): void {
    this.store.closeView();
    this.missing = null;
    this.waiting = false;
    this.#carry = null;
  }
}
