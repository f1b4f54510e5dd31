/**
 * A machine's fragments as a tree: the fragments its main part's config resolves to (nested as
 * they nest, with the version asked for, the revision it resolved to and the prefix), and the edits
 * of that config that add, remove, re-version and override them. Every edit rewrites only the
 * value it changes in the stored text and saves it conflict-checked; failures are kept to show.
 */
import type { FleetBridge } from '../../../../common/bridge';
import type { EffectiveConfig, MachineFragment, PartConfig, ResolvedFragment } from '../../../../common/config';
import type { Fragment } from '../../../../common/fragments';
import { err, ok, type BridgeError, type Result } from '../../../../common/result';
import type { Organization } from '../../../../common/orgs';
import type { Notices } from '../../lib/state/notices.svelte';
import { Latest } from '../../lib/state/latest';
import type { TreeNode } from '../../lib/ui/tree';
import { addFragment, fragmentRefs, modsOf, removeFragment, setFragmentRef, setMods, type FragmentRef, type ModRow } from './fragment-edits';

/** A node of the tree: a fragment as it resolved, and where the config names it. */
export interface FragmentNode {
  readonly fragment: ResolvedFragment;
  /** Its index in the config's `fragments` for a fragment the config names itself; null for a nested one. */
  readonly topIndex: number | null;
  /** The version as asked, for people: "latest", "revision 3", "tag stable". */
  readonly asked: string;
}

/** "latest", "revision 3" or "tag stable". */
export function askedVersion(version: string | undefined): string {
  if (version === undefined) return 'latest';
  return /^[0-9]/.test(version) ? `revision ${version}` : `tag ${version}`;
}

/** The tree of `fragments` (depth first, with depths, as config.effective lists them): each under the last shallower one. */
export function fragmentTree(fragments: readonly ResolvedFragment[]): TreeNode<FragmentNode>[] {
  const top: TreeNode<FragmentNode>[] = [];
  // The open ancestors: children[d] collects the children of the last node at depth d.
  const children: TreeNode<FragmentNode>[][] = [top];
  for (const fragment of fragments) {
    const depth = Math.max(1, Math.min(fragment.depth, children.length));
    const kids: TreeNode<FragmentNode>[] = [];
    const index = depth === 1 ? Number(/^fragments\[(\d+)\]/.exec(fragment.path)?.[1] ?? NaN) : NaN;
    const node: TreeNode<FragmentNode> = {
      id: `${fragment.path}|${fragment.id}@${fragment.revision}`,
      label: fragment.name ?? fragment.id,
      data: { fragment, topIndex: Number.isInteger(index) ? index : null, asked: askedVersion(fragment.version) },
      children: kids,
    };
    children.length = depth;
    children[depth - 1]?.push(node);
    children.push(kids);
  }
  // A node nesting nothing is a leaf (no expander).
  const prune = (nodes: TreeNode<FragmentNode>[]): TreeNode<FragmentNode>[] => nodes.map((n) => (n.children && n.children.length > 0 ? { ...n, children: prune([...n.children]) } : { id: n.id, label: n.label, data: n.data }));
  return prune(top);
}

export class MachineFragmentsPage {
  readonly machineId: string;
  readonly orgId: string;
  readonly #bridge: FleetBridge;
  readonly #notices: Notices | null;
  readonly #read = new Latest();
  /** The machine's main part, whose config names the fragments; null when the machine has none. */
  mainPartId = $state<string | null>(null);
  part = $state.raw<PartConfig | null>(null);
  effective = $state.raw<EffectiveConfig | null>(null);
  /** The fragments with their revisions and tags (what a version choice offers). */
  details = $state.raw<readonly MachineFragment[]>([]);
  tree = $state.raw<TreeNode<FragmentNode>[]>([]);
  loading = $state(true);
  error = $state.raw<BridgeError | null>(null);
  saving = $state(false);
  /** What the last edit's failure was, and what to do. */
  saveError = $state<string | null>(null);
  /** The fragments that can be added: the organization's and others' public ones. */
  catalog = $state.raw<readonly Fragment[]>([]);
  catalogError = $state<string | null>(null);

  constructor(bridge: FleetBridge, orgId: string, machineId: string, notices: Notices | null = null) {
    this.#bridge = bridge;
    this.orgId = orgId;
    this.machineId = machineId;
    this.#notices = notices;
  }

  /** Read the main part's config, its resolution, and the machine's fragments. */
  async load(mainPartId: string | null = this.mainPartId): Promise<void> {
    const read = this.#read.read();
    this.mainPartId = mainPartId;
    if (mainPartId === null) {
      this.loading = false;
      this.error = { kind: 'not-found', message: 'This machine has no main part, so no config names fragments.' };
      return;
    }
    this.loading = true;
    const [part, effective, details] = await Promise.all([
      this.#bridge.invoke('config.part', { partId: mainPartId }),
      this.#bridge.invoke('config.effective', { partId: mainPartId }),
      this.#bridge.invoke('config.machineFragments', { machineId: this.machineId }),
    ]);
    if (!read.current) return;
    this.loading = false;
    const failed = [part, effective].find((r) => !r.ok);
    if (failed && !failed.ok) {
      this.error = failed.error;
      return;
    }
    if (!part.ok || !effective.ok) return;
    this.error = null;
    this.part = part.value;
    this.effective = effective.value;
    this.tree = fragmentTree(effective.value.fragments);
    if (details.ok) this.details = details.value.fragments;
  }

  /** Read what can be added (once per page; again after a failure). */
  async loadCatalog(orgs: readonly Organization[]): Promise<void> {
    if (this.catalog.length > 0) return;
    const results = await Promise.all([
      this.#bridge.invoke('fragments.list', { orgId: this.orgId }),
      ...orgs.filter((o) => o.id !== this.orgId).map((o) => this.#bridge.invoke('fragments.list', { orgId: o.id, visibilities: ['public'] })),
    ]);
    const first = results[0];
    this.catalogError = first && !first.ok ? `Couldn't list the organization's fragments: ${first.error.message}` : null;
    const all = results.flatMap((r) => (r.ok ? r.value.fragments : []));
    this.catalog = all.filter((f, i) => all.findIndex((g) => g.id === f.id) === i);
  }

  /** The revisions and tags of a fragment, from the machine's list or the catalog. */
  versionsOf(fragmentId: string): { revisions: readonly string[]; tags: readonly string[] } {
    const known = this.details.find((f) => f.id === fragmentId) ?? this.catalog.find((f) => f.id === fragmentId);
    return { revisions: known?.revisions.map((r) => r.revision) ?? [], tags: known?.tags.map((t) => t.tag) ?? [] };
  }

  /** The mods the config gives a fragment now. */
  mods(fragmentId: string): ModRow[] {
    return this.part ? modsOf(this.part.configJson, fragmentId) : [];
  }

  /** The config's ref at a top-level index (what a change dialog starts from). */
  ref(index: number): FragmentRef | null {
    return this.part ? (fragmentRefs(this.part.configJson)[index] ?? null) : null;
  }

  add(ref: FragmentRef, name: string): Promise<Result<unknown>> {
    return this.#edit((text) => addFragment(text, ref), `Added “${name}” to the machine.`);
  }

  remove(index: number, name: string): Promise<Result<unknown>> {
    return this.#edit((text) => removeFragment(text, index), `Removed “${name}” from the machine.`);
  }

  setRef(index: number, change: { readonly version?: string; readonly prefix?: string }, name: string): Promise<Result<unknown>> {
    return this.#edit((text) => setFragmentRef(text, index, change), `“${name}” now asks for ${askedVersion(change.version)}${change.prefix ? ` with prefix ${change.prefix}` : ''}.`);
  }

  setMods(fragmentId: string, rows: readonly ModRow[], name: string): Promise<Result<unknown>> {
    return this.#edit((text) => setMods(text, fragmentId, rows), `Saved the mods of “${name}”.`);
  }

  /** Apply `change` to the stored text and save it with its conflict token; someone else's save meanwhile reloads and asks to retry. */
  async #edit(change: (text: string) => string, done: string): Promise<Result<unknown>> {
    const part = this.part;
    if (!part || this.saving) return err('invalid', 'The config is not loaded yet.');
    let text: string;
    try {
      text = change(part.configJson);
    } catch (e) {
      return err('invalid', e instanceof Error ? e.message : String(e));
    }
    this.saving = true;
    this.saveError = null;
    try {
      const result = await this.#bridge.invoke('config.save', { partId: part.partId, configJson: text, lastUpdated: part.lastUpdated });
      if (result.ok) {
        this.#read.supersede();
        this.part = result.value;
        this.#notices?.push('success', done);
        await this.load();
        return ok(null);
      }
      if (result.error.kind === 'conflict') {
        await this.load();
        const message = 'Someone else saved this machine’s config meanwhile. It is reloaded with their change: check the tree, then try again.';
        this.saveError = message;
        return err('conflict', message);
      }
      return result;
    } finally {
      this.saving = false;
    }
  }

  /** Another page is shown: nothing of this one answers any more. */
  close(): void {
    this.#read.supersede();
  }
}
