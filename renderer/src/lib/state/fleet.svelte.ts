import { SvelteMap, SvelteSet } from 'svelte/reactivity';
import type { FleetBridge } from '../../../../common/bridge';
import type { LivenessUpdate, TreePart } from '../../../../common/machines';
import { ancestorKeys, indexTree, matchOf, nodeKey, parseKey, type FleetRow, type NodeRef, type TreeIndex } from '../fleet-index';

export { ancestorKeys, indexTree, locationPath, nodeKey, parseKey, type FleetRow, type NodeKind, type NodeRef, type TreeIndex } from '../fleet-index';
import type { Organization } from '../../../../common/orgs';
import type { BridgeError } from '../../../../common/result';
import type { IsoTime } from '../../../../common/schemas';

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });
const byLabel = (a: { name: string }, b: { name: string }) => collator.compare(a.name, b.name);

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
  readonly #loading = new SvelteSet<string>();
  #treeErrors = new SvelteMap<string, BridgeError>();
  readonly expanded = new SvelteSet<string>();
  /** Fresher liveness than the trees hold, by part id (machines.liveness). */
  readonly liveness = new SvelteMap<string, { lastAccess: IsoTime | null; markedForRestart: boolean }>();
  #selectedKey = $state<string | null>(null);
  #query = $state('');
  #saveTimer: ReturnType<typeof setTimeout> | undefined;
  #restored = false;
  /** How many tree loads have begun (to tell a load that saw a write from one that began before it). */
  #loadsStarted = 0;
  /** A node to bring into view once a tree that holds it arrives. */
  #pendingReveal: { ref: NodeRef; afterLoad: number } | null = null;

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
          this.#restored = false;
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
  }

  async loadTree(orgId: string): Promise<void> {
    this.#loading.add(orgId);
    const load = ++this.#loadsStarted;
    try {
      const result = await this.#bridge.invoke('locations.tree', { orgId });
      if (result.ok) {
        this.#trees.set(orgId, indexTree(result.value));
        this.#treeErrors.delete(orgId);
        // A node created or moved just now: main may announce the change before or after the write's
        // answer reaches us, so every load expands its ancestors, and one begun after the reveal,
        // which surely holds the write, ends the wait.
        const pending = this.#pendingReveal;
        if (pending && pending.ref.orgId === orgId) {
          this.#expandAncestors(pending.ref);
          if (load > pending.afterLoad) this.#pendingReveal = null;
        }
      } else this.#treeErrors.set(orgId, result.error);
    } finally {
      this.#loading.delete(orgId);
    }
  }

  applyLiveness(update: LivenessUpdate): void {
    for (const [partId, value] of Object.entries(update.parts)) this.liveness.set(partId, value);
  }

  /** A part's freshest last access and restart flag. */
  partState(part: TreePart): { lastAccess: IsoTime | null; markedForRestart: boolean } {
    return this.liveness.get(part.id) ?? part;
  }

  /** Bring back what was expanded and selected in this profile last time. */
  async restore(): Promise<void> {
    if (this.#restored) return;
    this.#restored = true;
    const [expanded, selected] = await Promise.all([this.#bridge.invoke('ui.get', { key: 'tree.expanded' }), this.#bridge.invoke('ui.get', { key: 'tree.selected' })]);
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
    if (this.#pendingReveal && nodeKey(this.#pendingReveal.ref) !== key) this.#pendingReveal = null;
    this.#selectedKey = key;
    void this.#bridge.invoke('ui.set', { key: 'tree.selected', value: key });
  }

  /** Select a node and open every ancestor so its row is in view. */
  reveal(ref: NodeRef): void {
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
  rows = $derived.by((): FleetRow[] => {
    const query = this.#query.trim().toLocaleLowerCase();
    return query === '' ? this.#browseRows() : this.#searchRows(query);
  });

  #browseRows(): FleetRow[] {
    const rows: FleetRow[] = [];
    const orgs = [...this.orgs].sort(byLabel);
    orgs.forEach((org, i) => {
      const ref: NodeRef = { kind: 'org', orgId: org.id, id: org.id };
      const key = nodeKey(ref);
      const index = this.#trees.get(org.id);
      const open = this.expanded.has(key);
      rows.push({ key, ref, label: org.name, level: 1, parentKey: null, expandable: true, expanded: open, posinset: i + 1, setsize: orgs.length, count: index?.tree.machines.length });
      if (open && index) this.#locationRows(rows, index, org.id, '', key, 2, () => true);
    });
    return rows;
  }

  /** Rows under a location (or the top level, `parentId` ''): its sub-locations, then its machines. */
  #locationRows(rows: FleetRow[], index: TreeIndex, orgId: string, parentId: string, parentKey: string, level: number, keep: (key: string) => boolean, forceOpen = false, query = ''): void {
    const locations = [...(index.children.get(parentId) ?? [])].sort(byLabel);
    const machines = parentId === '' ? [] : [...(index.machinesIn.get(parentId) ?? [])].sort(byLabel);
    const siblings = [
      ...locations.map((l) => ({ kind: 'location' as const, item: l })),
      ...machines.map((m) => ({ kind: 'machine' as const, item: m })),
    ].filter((s) => keep(nodeKey({ kind: s.kind, orgId, id: s.item.id })));
    siblings.forEach((s, i) => {
      const ref: NodeRef = { kind: s.kind, orgId, id: s.item.id };
      const key = nodeKey(ref);
      if (s.kind === 'location') {
        const l = s.item;
        const expandable = (index.children.get(l.id)?.length ?? 0) > 0 || (index.machinesIn.get(l.id)?.length ?? 0) > 0;
        const open = expandable && (forceOpen || this.expanded.has(key));
        rows.push({ key, ref, label: l.name, level, parentKey, expandable, expanded: open, posinset: i + 1, setsize: siblings.length, count: index.counts.get(l.id) ?? 0, shared: l.ownerOrgId !== orgId, match: matchOf(l.name, query) });
        if (open) this.#locationRows(rows, index, orgId, l.id, key, level + 1, keep, forceOpen, query);
      } else {
        const m = s.item;
        const open = this.expanded.has(key) || (forceOpen && m.parts.some((p) => keep(nodeKey({ kind: 'part', orgId, id: p.id }))));
        rows.push({ key, ref, label: m.name, level, parentKey, expandable: m.parts.length > 0, expanded: open, posinset: i + 1, setsize: siblings.length, parts: m.parts, match: matchOf(m.name, query) });
        if (open) {
          const parts = m.parts.filter((p) => !forceOpen || this.expanded.has(key) || keep(nodeKey({ kind: 'part', orgId, id: p.id })));
          parts.forEach((p, j) => {
            const partRef: NodeRef = { kind: 'part', orgId, id: p.id };
            rows.push({ key: nodeKey(partRef), ref: partRef, label: p.name, level: level + 1, parentKey: key, expandable: false, expanded: false, posinset: j + 1, setsize: parts.length, parts: [p], main: p.mainPart, match: matchOf(p.name, query) });
          });
        }
      }
    });
  }

  #searchRows(query: string): FleetRow[] {
    const rows: FleetRow[] = [];
    const orgs = [...this.orgs].sort(byLabel);
    const shown: { org: Organization; keep: Set<string> }[] = [];
    for (const org of orgs) {
      // eslint-disable-next-line svelte/prefer-svelte-reactivity -- built and read within one computation, never state
      const keep = new Set<string>();
      const index = this.#trees.get(org.id);
      const hit = (ref: NodeRef) => {
        keep.add(nodeKey(ref));
        if (index) for (const k of ancestorKeys(index, ref)) keep.add(k);
      };
      if (org.name.toLocaleLowerCase().includes(query)) keep.add(nodeKey({ kind: 'org', orgId: org.id, id: org.id }));
      if (index) {
        for (const l of index.tree.locations) if (l.name.toLocaleLowerCase().includes(query)) hit({ kind: 'location', orgId: org.id, id: l.id });
        for (const m of index.tree.machines) {
          if (m.name.toLocaleLowerCase().includes(query)) hit({ kind: 'machine', orgId: org.id, id: m.id });
          for (const p of m.parts) if (p.name.toLocaleLowerCase().includes(query)) hit({ kind: 'part', orgId: org.id, id: p.id });
        }
      }
      if (keep.size > 0) shown.push({ org, keep });
    }
    shown.forEach(({ org, keep }, i) => {
      const ref: NodeRef = { kind: 'org', orgId: org.id, id: org.id };
      const key = nodeKey(ref);
      const index = this.#trees.get(org.id);
      rows.push({ key, ref, label: org.name, level: 1, parentKey: null, expandable: true, expanded: true, posinset: i + 1, setsize: shown.length, count: index?.tree.machines.length, match: matchOf(org.name, query) });
      // In context: only the branches that lead to a match, opened.
      if (index) this.#locationRows(rows, index, org.id, '', key, 2, (k) => keep.has(k), true, query);
    });
    return rows;
  }

  /** How many nodes match the query (for the search box's status). */
  matchCount = $derived.by(() => (this.#query.trim() === '' ? 0 : this.rows.filter((r) => r.match !== undefined).length));
}
