import { SvelteMap, SvelteSet } from 'svelte/reactivity';
import type { Grant } from '../../../../common/access';
import { ROLES, type AccessResourceType, type Role } from '../../../../common/permissions';
import type { TreeIndex } from '../../lib/fleet/fleet-index';
import { keyAction, typeahead, visibleRows, type TreeNode, type TreeRow } from '../../lib/ui/tree';

/** A resource of the organization's tree, as the picker offers it. */
export interface PickNode {
  readonly type: AccessResourceType;
  readonly id: string;
}

const keyOf = (type: AccessResourceType, id: string) => `${type}:${id}`;

/**
 * The roles picked over an organization's tree (organization › locations › machines), for an
 * invite, a new key or an invite's edit: each resource none, operator or owner. Keyboard: the arrows
 * move and open (a WAI-ARIA tree), Space or Enter steps the focused resource's role (none → operator
 * → owner → none), typing a name jumps to it.
 */
export class GrantPicker {
  readonly orgId: string;
  readonly #orgName: string;
  readonly #tree: () => TreeIndex | undefined;
  readonly #roles = new SvelteMap<string, Role>();
  readonly expanded = new SvelteSet<string>();
  focused = $state<string | null>(null);
  #typed = '';
  #typedAt = 0;

  /** `tree`: the organization's fleet as the app knows it (the key's own view: a scoped key picks within what it sees). */
  constructor(orgId: string, orgName: string, tree: () => TreeIndex | undefined, initial: readonly Grant[] = []) {
    this.orgId = orgId;
    this.#orgName = orgName;
    this.#tree = tree;
    for (const g of initial) this.#roles.set(keyOf(g.resourceType, g.resourceId), g.role);
    const org = keyOf('organization', orgId);
    this.expanded.add(org);
    this.focused = org;
    // What was picked before is shown: its locations open.
    const index = tree();
    for (const g of initial) {
      let at = g.resourceType === 'machine' ? index?.machines.get(g.resourceId)?.locationId : g.resourceType === 'location' ? index?.locations.get(g.resourceId)?.parentLocationId : undefined;
      for (let guard = 0; at && guard < 100; guard++, at = index?.locations.get(at)?.parentLocationId) this.expanded.add(keyOf('location', at));
    }
  }

  /** The tree's nodes: the organization, its locations nested, each location's machines. */
  readonly nodes = $derived.by((): TreeNode<PickNode>[] => {
    const index = this.#tree();
    const location = (id: string, name: string): TreeNode<PickNode> => ({
      id: keyOf('location', id),
      label: name,
      data: { type: 'location', id },
      children: [...(index?.children.get(id) ?? []).map((l) => location(l.id, l.name)), ...(index?.machinesIn.get(id) ?? []).map((m): TreeNode<PickNode> => ({ id: keyOf('machine', m.id), label: m.name, data: { type: 'machine', id: m.id } }))],
    });
    return [{ id: keyOf('organization', this.orgId), label: this.#orgName, data: { type: 'organization', id: this.orgId }, children: (index?.children.get('') ?? []).map((l) => location(l.id, l.name)) }];
  });

  /** The rows reachable now, in order. */
  readonly rows = $derived<TreeRow<PickNode>[]>(visibleRows(this.nodes, this.expanded));

  /** The role picked on a row, or null. */
  roleOf(rowId: string): Role | null {
    return this.#roles.get(rowId) ?? null;
  }

  /** Pick a role on a row (null: none). */
  set(rowId: string, role: Role | null): void {
    if (role) this.#roles.set(rowId, role);
    else this.#roles.delete(rowId);
  }

  /** The next role of a row: none → operator → owner → none. */
  step(rowId: string): void {
    const now = this.roleOf(rowId);
    this.set(rowId, now === null ? ROLES[0] : (ROLES[ROLES.indexOf(now) + 1] ?? null));
  }

  toggle(rowId: string): void {
    if (this.expanded.has(rowId)) this.expanded.delete(rowId);
    else this.expanded.add(rowId);
  }

  /** A key pressed in the tree: true when the picker took it (the caller prevents its default). */
  key(key: string, at: number = Date.now()): boolean {
    const action = keyAction(this.rows, this.focused, key);
    if (action) {
      if (action.type === 'focus') this.focused = action.id;
      else if (action.type === 'select') this.step(action.id);
      else if (action.type === 'expand') this.expanded.add(action.id);
      else this.expanded.delete(action.id);
      return true;
    }
    if (key.length !== 1 || key === ' ') return false;
    this.#typed = at - this.#typedAt < 700 ? this.#typed + key : key;
    this.#typedAt = at;
    const found = typeahead(this.rows, this.focused, this.#typed);
    if (found) this.focused = found;
    return true;
  }

  /** The roles picked, as a request names them (the tree's order). */
  get grants(): Grant[] {
    const out: Grant[] = [];
    const walk = (nodes: readonly TreeNode<PickNode>[]) => {
      for (const node of nodes) {
        const role = this.#roles.get(node.id);
        if (role) out.push({ resourceType: node.data.type, resourceId: node.data.id, role });
        if (node.children) walk(node.children);
      }
    };
    walk(this.nodes);
    // Roles on resources this tree does not show (an invite's, made by someone who sees more) are kept.
    const shown = new Set(out.map((g) => keyOf(g.resourceType, g.resourceId))); // eslint-disable-line svelte/prefer-svelte-reactivity -- a lookup for this answer, never state
    for (const [k, role] of this.#roles) {
      if (shown.has(k)) continue;
      const [type, ...rest] = k.split(':');
      out.push({ resourceType: type as AccessResourceType, resourceId: rest.join(':'), role });
    }
    return out;
  }
}
