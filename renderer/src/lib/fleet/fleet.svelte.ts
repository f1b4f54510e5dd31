import { SvelteMap, SvelteSet } from 'svelte/reactivity';
import type { FleetBridge } from '../../../../common/bridge';
import type { LivenessUpdate, TreePart } from '../../../../common/machines';
import { ancestorKeys, byName, indexTree, matchOf, nodeKey, parseKey, searchFlat, withParts, type FleetRow, type NodeRef, type TreeIndex } from './fleet-index';
import { browseOrg, FleetRows, searchOrg, type OrgRows } from './fleet-rows';

export { ancestorKeys, indexTree, locationPath, nodeKey, parseKey, type FleetRow, type NodeKind, type NodeRef, type TreeIndex } from './fleet-index';
import { fleetTreeFromColumns, partsFromColumns } from '../../../../common/fleet-columns';
import type { Organization } from '../../../../common/orgs';
import type { BridgeError } from '../../../../common/result';
import type { IsoTime } from '../../../../common/schemas';
import { afterPaint } from '../ui/after-paint';

/** How a node's page is asked for (see FleetStore.navigate). */
export interface FleetNavigation {
  /** In place of the current entry. */
  readonly replace?: boolean;
  /** Only while this (deleted) node's page, or a page under it, is the one shown. */
  readonly insteadOf?: NodeRef;
  /** Only while a fleet page (the start, an organization's, a node's) is the one shown. */
  readonly onlyOverFleet?: boolean;
}

/** How long after the last change the expanded set is saved. */
const SAVE_DELAY_MS = 500;

/**
 * The fleet tree of the active profile: every organization's cached fleet (locations nested,
 * machines, parts), what is expanded (remembered per profile), the selection, a search that reveals
 * matches in context, and the liveness of parts as main reports it.
 */
export class FleetStore {
  readonly #bridge: FleetBridge;
  readonly #getOrgs: () => readonly Organization[];
  readonly #trees = new SvelteMap<string, TreeIndex>();
  /**
   * Organizations whose whole tree has not arrived yet, indexed from their locations and machines
   * alone (`locations.treeColumns` without parts): the tree draws its first screenful from these on
   * a cold start, and their parts (`locations.treeParts`) complete them. Only drawing and search
   * read them (search finds locations and machines at once, part names once the parts are in, and
   * says so: `searchPartial`); `tree()` and every other reader wait for the whole tree, so none of
   * them ever takes a part it lacks for one that does not exist.
   */
  readonly #heads = new SvelteMap<string, TreeIndex>();
  readonly #loading = new SvelteSet<string>();
  #treeErrors = new SvelteMap<string, BridgeError>();
  readonly expanded = new SvelteSet<string>();
  /** Fresher liveness than the trees hold, by part id (machines.liveness). */
  readonly liveness = new SvelteMap<string, { lastAccess: IsoTime | null; markedForRestart: boolean }>();
  #selectedKey = $state<string | null>(null);
  #query = $state('');
  #saveTimer: ReturnType<typeof setTimeout> | undefined;
  #restoring: Promise<void> | null = null;
  /** Selections made (to tell a remembered selection read before one from after it). */
  #selects = 0;
  /** How many tree loads have begun (to tell a load that saw a write from one that began before it). */
  #loadsStarted = 0;
  /** A node to bring into view once a tree that holds it arrives. */
  #pendingReveal: { ref: NodeRef; afterLoad: number } | null = null;
  /** Resolved when the named organization's tree load ends (for a page restored before its tree arrived). */
  readonly #treeWaiters = new Map<string, (() => void)[]>(); // eslint-disable-line svelte/prefer-svelte-reactivity -- callbacks, never rendered
  /** Resolved when the named organization has rows to draw (its head or its tree) or its load ends. */
  readonly #drawWaiters = new Map<string, (() => void)[]>(); // eslint-disable-line svelte/prefer-svelte-reactivity -- callbacks, never rendered
  /**
   * Shows a node's page (the app's router); without it, `reveal` only selects. A page's route
   * selects through `show`, so the two never call each other in a circle.
   */
  navigate: ((ref: NodeRef | null, options?: FleetNavigation) => void) | null = null;

  constructor(bridge: FleetBridge, orgs: () => readonly Organization[]) {
    this.#bridge = bridge;
    this.#getOrgs = orgs;
  }

  get orgs(): readonly Organization[] {
    return this.#getOrgs();
  }
  get query(): string {
    return this.#query;
  }
  set query(value: string) {
    this.#query = value;
  }
  get selectedKey(): string | null {
    return this.#selectedKey;
  }
  get selected(): NodeRef | null {
    return this.#selectedKey === null ? null : parseKey(this.#selectedKey);
  }
  tree(orgId: string): TreeIndex | undefined {
    return this.#trees.get(orgId);
  }
  treeLoading(orgId: string): boolean {
    return this.#loading.has(orgId);
  }
  treeError(orgId: string): BridgeError | undefined {
    return this.#treeErrors.get(orgId);
  }
  /** Every loaded tree. */
  get trees(): readonly TreeIndex[] {
    return [...this.#trees.values()];
  }

  /** Load every organization's tree and follow main's changes. Returns the function that stops. */
  follow(): () => void {
    const stops = [
      this.#bridge.on('fleet.changed', ({ orgIds, all }) => {
        const ids = all ? this.orgs.map((o) => o.id) : orgIds;
        for (const id of ids) void this.loadTree(id);
        if (all) {
          // Another profile: its own remembered state.
          this.liveness.clear();
          this.#restoring = null;
          void this.restore();
        }
      }),
      this.#bridge.on('machines.liveness', (update) => this.applyLiveness(update)),
    ];
    void this.restore();
    return () => {
      for (const stop of stops) stop();
      clearTimeout(this.#saveTimer);
    };
  }

  /** Load the trees of organizations that have none yet (the list changed). */
  ensureTrees(): void {
    for (const org of this.orgs) if (!this.#trees.has(org.id) && !this.#loading.has(org.id)) void this.loadTree(org.id);
    for (const id of [...this.#trees.keys()]) if (!this.orgs.some((o) => o.id === id)) this.#trees.delete(id);
    for (const id of [...this.#heads.keys()]) if (!this.orgs.some((o) => o.id === id)) this.#heads.delete(id);
    // A page waiting for an organization the list no longer has waits no more.
    for (const map of [this.#treeWaiters, this.#drawWaiters]) for (const [id, waiters] of [...map]) if (!this.orgs.some((o) => o.id === id) && !this.#loading.has(id)) for (const done of [...waiters]) done();
  }

  async loadTree(orgId: string): Promise<void> {
    this.#loading.add(orgId);
    const load = ++this.#loadsStarted;
    try {
      // Nothing of this organization drawn yet (a cold start): its locations and machines first, a
      // fifth of the whole, then its parts alone (main reads trees in the order asked), so the first
      // screenful does not wait for 30,000 parts and the rest does not carry the head again.
      const cold = !this.#trees.has(orgId) && !this.#heads.has(orgId);
      const index = (cold ? await this.#loadInTwo(orgId) : undefined) ?? (await this.#loadWhole(orgId));
      if (index !== undefined) {
        this.#trees.set(orgId, index);
        this.#heads.delete(orgId);
        this.#treeErrors.delete(orgId);
        // A node created or moved just now: main may announce the change before or after the write's
        // answer reaches us, so every load expands its ancestors, and one begun after the reveal,
        // which surely holds the write, ends the wait.
        const pending = this.#pendingReveal;
        if (pending && pending.ref.orgId === orgId) {
          this.#expandAncestors(pending.ref);
          if (load > pending.afterLoad) this.#pendingReveal = null;
        }
      }
    } finally {
      this.#loading.delete(orgId);
      // Drawn or failed, the whole tree's load is over: a head left (a failure) would show a tree without parts as if it were one.
      this.#heads.delete(orgId);
      this.#wake(this.#treeWaiters, orgId);
      this.#wake(this.#drawWaiters, orgId);
    }
  }

  #wake(waiters: Map<string, (() => void)[]>, orgId: string): void {
    const done = waiters.get(orgId) ?? [];
    waiters.delete(orgId);
    for (const wake of done) wake();
  }

  /** The whole tree in one answer, indexed; undefined (its error kept) when it could not be read. */
  async #loadWhole(orgId: string): Promise<TreeIndex | undefined> {
    // Columns, not objects: at 10,000 machines the object form's JSON was most of a cold start.
    const result = await this.#bridge.invoke('locations.treeColumns', { orgId });
    const tree = result.ok ? fleetTreeFromColumns(result.value) : null;
    if (typeof tree === 'string') this.#treeErrors.set(orgId, { kind: 'internal', message: `The fleet tree could not be read (${tree}). Reload the app.` });
    else if (tree !== null) return indexTree(tree);
    else if (!result.ok) this.#treeErrors.set(orgId, result.error);
    return undefined;
  }

  /**
   * A cold start's tree in two answers: the head (`parts: false`), indexed and drawn as it arrives
   * (see #heads), then, once that frame is painted, its parts alone, which complete the head's index
   * (`withParts`, no second sort of 10,000 machines). Asked late so that every organization's head
   * is asked before any parts (main's tree reader runs one read at a time: another organization's
   * head asked after 10,000 machines' parts waited 0.3 s for their read) and so that 3.8 MB of parts
   * are not parsed on this thread before the head's first frame; a launch's reader reads the parts
   * ahead from the page's first tree ask (fleet/jobs.ts readAheadJobs, main/cache/tree-reader.ts),
   * so asking late costs at most what is left of that read.
   * Undefined when they do not fit together — a head read before a change to the locations or
   * machines (another stamp), a failure, a main without `locations.treeParts` — and the caller then
   * reads the whole tree.
   */
  async #loadInTwo(orgId: string): Promise<TreeIndex | undefined> {
    const result = await this.#bridge.invoke('locations.treeColumns', { orgId, parts: false });
    const tree = result.ok ? fleetTreeFromColumns(result.value) : null;
    if (tree === null || typeof tree === 'string' || !result.ok) return undefined;
    const first = { index: indexTree(tree), stamp: result.value.stamp };
    if (!this.#trees.has(orgId) && this.#loading.has(orgId)) {
      this.#heads.set(orgId, first.index);
      this.#wake(this.#drawWaiters, orgId);
    }
    if (first.stamp === undefined) return undefined;
    await afterPaint();
    const rest = await this.#bridge.invoke('locations.treeParts', { orgId });
    if (!rest.ok || rest.value.stamp !== first.stamp) return undefined;
    const parts = partsFromColumns(rest.value, first.index.tree.machines.length);
    if (typeof parts === 'string' || !(rest.value.syncedAt === null || typeof rest.value.syncedAt === 'string')) return undefined;
    return withParts(first.index, parts, rest.value.syncedAt);
  }

  /**
   * The organization's tree once it is loaded, or undefined when its load failed, the organization
   * is unknown, or `timeoutMs` passed: a page restored at start asks before the first load ends.
   */
  async whenTree(orgId: string, options: { readonly timeoutMs?: number; readonly signal?: AbortSignal; readonly orgsKnown?: boolean } = {}): Promise<TreeIndex | undefined> {
    const ready = this.#trees.get(orgId);
    if (ready) return ready;
    // Nothing will come: an organization the (loaded) list does not have, or a failed load with none under way.
    if (options.orgsKnown && !this.orgs.some((o) => o.id === orgId)) return undefined;
    if (this.#treeErrors.has(orgId) && !this.#loading.has(orgId)) return undefined;
    await this.#wait(this.#treeWaiters, orgId, options);
    return this.#trees.get(orgId);
  }

  /**
   * Resolves once the organization has rows to draw — a cold start's head (its locations and
   * machines) or its whole tree — or its load has ended without, or `timeoutMs` passed: the window's
   * frame of the last run comes off once the app's own tree can take its place (app.svelte.ts).
   */
  async whenDrawn(orgId: string, options: { readonly timeoutMs?: number; readonly orgsKnown?: boolean } = {}): Promise<void> {
    if (this.#trees.has(orgId) || this.#heads.has(orgId)) return;
    if (options.orgsKnown && !this.orgs.some((o) => o.id === orgId)) return;
    if (this.#treeErrors.has(orgId) && !this.#loading.has(orgId)) return;
    await this.#wait(this.#drawWaiters, orgId, options);
  }

  #wait(waiters: Map<string, (() => void)[]>, orgId: string, options: { readonly timeoutMs?: number; readonly signal?: AbortSignal }): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', done);
        const left = (waiters.get(orgId) ?? []).filter((w) => w !== done);
        if (left.length > 0) waiters.set(orgId, left);
        else waiters.delete(orgId);
        resolve();
      };
      const timer = setTimeout(done, options.timeoutMs ?? 15_000);
      options.signal?.addEventListener('abort', done);
      waiters.set(orgId, [...(waiters.get(orgId) ?? []), done]);
    });
  }

  applyLiveness(update: LivenessUpdate): void {
    for (const [partId, value] of Object.entries(update.parts)) this.liveness.set(partId, value);
  }

  /** A part's freshest last access and restart flag. */
  partState(part: TreePart): { lastAccess: IsoTime | null; markedForRestart: boolean } {
    return this.liveness.get(part.id) ?? part;
  }

  /** Bring back what was expanded and selected in this profile last time (every caller waits for the one read). */
  restore(): Promise<void> {
    this.#restoring ??= this.#restore();
    return this.#restoring;
  }

  async #restore(): Promise<void> {
    const selectsBefore = this.#selects;
    const [expanded, selected] = await Promise.all([this.#bridge.invoke('ui.get', { key: 'tree.expanded' }), this.#bridge.invoke('ui.get', { key: 'tree.selected' })]);
    // A page shown meanwhile (an address, a deep link) selected its node: the remembered one is older.
    if (this.#selects !== selectsBefore) {
      if (expanded.ok && Array.isArray(expanded.value.value)) for (const key of expanded.value.value) if (typeof key === 'string') this.expanded.add(key);
      return;
    }
    this.expanded.clear();
    if (expanded.ok && Array.isArray(expanded.value.value)) for (const key of expanded.value.value) if (typeof key === 'string') this.expanded.add(key);
    if (selected.ok && typeof selected.value.value === 'string' && parseKey(selected.value.value)) this.#selectedKey = selected.value.value;
  }

  #save(): void {
    clearTimeout(this.#saveTimer);
    this.#saveTimer = setTimeout(() => {
      void this.#bridge.invoke('ui.set', { key: 'tree.expanded', value: [...this.expanded] });
    }, SAVE_DELAY_MS);
  }

  setExpanded(key: string, open: boolean): void {
    if (open === this.expanded.has(key)) return;
    if (open) this.expanded.add(key);
    else this.expanded.delete(key);
    this.#save();
  }

  select(key: string | null): void {
    this.#selects += 1;
    if (this.#pendingReveal && nodeKey(this.#pendingReveal.ref) !== key) this.#pendingReveal = null;
    this.#selectedKey = key;
    void this.#bridge.invoke('ui.set', { key: 'tree.selected', value: key });
  }

  /**
   * Go to a node's page (through `navigate`), its row selected and in view. `fromFleetPage`: an
   * action's answer (a move) that goes there only while a fleet page is shown, not over another page.
   */
  reveal(ref: NodeRef, options: { readonly fromFleetPage?: boolean } = {}): void {
    // Shown first: when the page is already this node's (a move), the router has nothing to enter,
    // and the node's new ancestors must still open.
    this.show(ref);
    this.navigate?.(ref, options.fromFleetPage ? { onlyOverFleet: true } : {});
  }

  /** After `deleted` was deleted: the parent's page (or none) in place of the deleted node's, if that is still shown. */
  revealInstead(ref: NodeRef | null, deleted: NodeRef): void {
    if (this.navigate) this.navigate(ref, { replace: true, insteadOf: deleted });
    else this.select(ref ? nodeKey(ref) : null);
  }

  /** Select a node and open every ancestor so its row is in view (its page is being shown). */
  show(ref: NodeRef): void {
    // After a write the loaded tree may not hold the node (or its new place) yet: expand again once
    // the next load of its organization lands.
    this.#pendingReveal = { ref, afterLoad: this.#loadsStarted };
    this.#expandAncestors(ref);
    this.select(nodeKey(ref));
  }

  #expandAncestors(ref: NodeRef): void {
    const index = this.#trees.get(ref.orgId);
    if (index) for (const key of ancestorKeys(index, ref)) this.setExpanded(key, true);
  }

  /** Label of a node, for headings and the palette. */
  label(ref: NodeRef): string {
    const index = this.#trees.get(ref.orgId);
    switch (ref.kind) {
      case 'org':
        return this.orgs.find((o) => o.id === ref.id)?.name ?? ref.id;
      case 'location':
        return index?.locations.get(ref.id)?.name ?? ref.id;
      case 'machine':
        return index?.machines.get(ref.id)?.name ?? ref.id;
      case 'part':
        return index?.partMachine.get(ref.id)?.parts.find((p) => p.id === ref.id)?.name ?? ref.id;
    }
  }

  /** The visible rows: everything under expanded nodes, or, while searching, the matches in context. */
  rows = $derived.by((): FleetRows => {
    const query = this.#query.trim().toLocaleLowerCase();
    // One read of the reactive set, then plain lookups: tens of thousands of nodes ask it.
    const expanded = new Set(this.expanded); // eslint-disable-line svelte/prefer-svelte-reactivity -- a snapshot read within this computation, never state
    return new FleetRows(query === '' ? this.#browseRows(expanded) : this.#searchRows(expanded, query));
  });

  #browseRows(expanded: ReadonlySet<string>): OrgRows[] {
    const orgs = [...this.orgs].sort(byName);
    return orgs.map((org, i) => {
      const ref: NodeRef = { kind: 'org', orgId: org.id, id: org.id };
      const key = nodeKey(ref);
      // A cold start's head while the whole tree is on its way: the same rows, machines without parts.
      const index = this.#trees.get(org.id) ?? this.#heads.get(org.id);
      const row: FleetRow = { key, ref, label: org.name, level: 1, parentKey: null, expandable: true, expanded: expanded.has(key), posinset: i + 1, setsize: orgs.length, count: index?.tree.machines.length };
      return browseOrg(row, index, expanded);
    });
  }

  /** Per organization, the last search's matches: a query typed on from it only looks among them. */
  readonly #lastSearch = new Map<string, { index: TreeIndex; query: string; matches: number[] }>(); // eslint-disable-line svelte/prefer-svelte-reactivity -- a memo of the rows computation, never read as state

  #searchRows(expanded: ReadonlySet<string>, query: string): OrgRows[] {
    const orgs = [...this.orgs].sort(byName);
    const shown: { org: Organization; index?: TreeIndex; marks?: Uint8Array }[] = [];
    let matches = 0;
    let partial = false;
    for (const org of orgs) {
      // A cold start's head while its parts are on their way: its locations and machines are found already.
      const whole = this.#trees.get(org.id);
      const index = whole ?? this.#heads.get(org.id);
      if (!whole && index) partial = true;
      let marks: Uint8Array | undefined;
      if (index) {
        const last = this.#lastSearch.get(org.id);
        const within = last && last.index === index && query.includes(last.query) ? last.matches : undefined;
        const found = searchFlat(index, query, within);
        this.#lastSearch.set(org.id, { index, query, matches: found.matches });
        matches += found.matches.length;
        if (found.matches.length > 0) marks = found.shown;
      }
      const named = org.name.toLocaleLowerCase().includes(query);
      if (named) matches += 1;
      if (marks || named) shown.push({ org, index, marks });
    }
    this.#matches = matches;
    this.#partial = partial;
    return shown.map(({ org, index, marks }, i) => {
      const ref: NodeRef = { kind: 'org', orgId: org.id, id: org.id };
      const row: FleetRow = { key: nodeKey(ref), ref, label: org.name, level: 1, parentKey: null, expandable: true, expanded: true, posinset: i + 1, setsize: shown.length, count: index?.tree.machines.length, match: matchOf(org.name, query) };
      return index && marks ? searchOrg(row, index, marks, expanded, query) : browseOrg({ ...row, expanded: false }, undefined, expanded);
    });
  }

  /** How many nodes match the query (for the search box's status). */
  matchCount = $derived.by(() => {
    if (this.#query.trim() === '') return 0;
    void this.rows; // counted while the rows were drawn
    return this.#matches;
  });
  /** Nodes matching the current query, counted by the last computation of `rows` (not state: derived from it). */
  #matches = 0;

  /** Whether the current search looked at a tree whose parts have not arrived yet (a cold start): part names may match once they do. */
  searchPartial = $derived.by(() => {
    if (this.#query.trim() === '') return false;
    void this.rows;
    return this.#partial;
  });
  #partial = false;
}
