import { SvelteMap, SvelteSet } from 'svelte/reactivity';
import { untrack } from 'svelte';
import type { FleetBridge } from '../../../../common/bridge';
import { permissionResourceType, whyNot, type CheckedPermission, type KeyPermissions, type ResourceRef } from '../../../../common/permissions';
import { locationPath, type NodeRef } from '../fleet/fleet-index';
import type { FleetStore } from '../fleet/fleet.svelte';

/**
 * What the active profile's key may do, per organization, as main last checked it (one
 * CheckPermissions per organization's tree, refreshed with the sync; event `access.permissions`).
 * Every feature asks it before offering a write: `blocked(permission, ref)` is the sentence a
 * disabled action says ("needs owner on Reno Fulfillment Center"), or null.
 *
 * Nothing known yet (not read, or never checked) allows: the service is the judge and refuses in
 * words, so a slow first check never disables the whole app.
 */
export class KeyPermissionsStore {
  readonly #bridge: FleetBridge;
  readonly #fleet: FleetStore;
  readonly #offline: () => string | null;
  readonly #drawn: Promise<void>;
  readonly #views = new SvelteMap<string, KeyPermissions>();
  /** Organizations read or being read (a read that answers late for a forgotten one is dropped). */
  readonly #asked = new SvelteSet<string>();
  /** Bumped by `reset`, so a read made for the last profile is dropped (and each organization is read again). */
  #generation = $state(0);

  /**
   * `offline`: why writes cannot be made at all now (the shell's `blocked`), said before any denial.
   * `drawn`: the window's first view is drawn; the first reads wait for it, as a large organization's
   * answer (bits per machine: 430 KB at 10,000 machines) would compete with its tree on a cold start,
   * and nothing known allows meanwhile.
   */
  constructor(bridge: FleetBridge, fleet: FleetStore, offline: () => string | null, drawn: Promise<void> = Promise.resolve()) {
    this.#bridge = bridge;
    this.#fleet = fleet;
    this.#offline = offline;
    this.#drawn = drawn;
  }

  /** What is known for an organization, or undefined before its first answer. */
  view(orgId: string): KeyPermissions | undefined {
    return this.#views.get(orgId);
  }

  /** Read what the key may do in an organization (again). */
  async load(orgId: string): Promise<void> {
    const generation = this.#generation;
    this.#asked.add(orgId);
    const result = await this.#bridge.invoke('access.permissions', { orgId });
    if (generation !== this.#generation || !this.#asked.has(orgId)) return;
    // A failed read keeps what was known: the service decides each write anyway.
    if (result.ok) this.#views.set(orgId, result.value);
  }

  /** Follow main's word that what the key may do changed; returns the function that stops. */
  follow(): () => void {
    return this.#bridge.on('access.permissions', ({ orgIds, all }) => {
      const again = all ? [...this.#asked] : orgIds.filter((id) => this.#asked.has(id));
      if (all) this.#views.clear();
      for (const orgId of again) void this.load(orgId);
    });
  }

  /** Read each organization the app knows once it appears (a `$effect`, made while the root component is set up). */
  effects(): void {
    $effect(() => {
      void this.#fleet.orgs;
      void this.#generation;
      untrack(() => void this.readNew());
    });
  }

  /** Read each organization the app knows and that was not read yet, once the first view is drawn. */
  async readNew(): Promise<void> {
    const generation = this.#generation;
    await this.#drawn;
    if (generation !== this.#generation) return; // another profile: its own run reads
    for (const { id } of this.#fleet.orgs) if (!this.#asked.has(id)) void this.load(id);
  }

  /** Another profile: what the last key could do says nothing about this one. */
  reset(): void {
    this.#generation++;
    this.#views.clear();
    this.#asked.clear();
  }

  /**
   * The resource a permission on `ref` is checked on, then what covers it, nearest first, ending
   * with the organization, named as the tree knows them. A part's permissions are its machine's.
   */
  chain(ref: NodeRef): ResourceRef[] {
    const org: ResourceRef = { type: 'organization', id: ref.orgId, name: this.#fleet.orgs.find((o) => o.id === ref.orgId)?.name ?? null };
    if (ref.kind === 'org') return [org];
    const index = this.#fleet.tree(ref.orgId);
    const locations = (locationId: string): ResourceRef[] =>
      index
        ? locationPath(index, locationId)
            .reverse()
            .map((l) => ({ type: 'location', id: l.id, name: l.name }))
        : [];
    if (ref.kind === 'location') {
      const own = locations(ref.id);
      return [...(own.length > 0 ? own : [{ type: 'location' as const, id: ref.id, name: null }]), org];
    }
    const machine = ref.kind === 'machine' ? index?.machines.get(ref.id) : index?.partMachine.get(ref.id);
    if (!machine) return ref.kind === 'machine' ? [{ type: 'machine', id: ref.id, name: null }, org] : [org];
    return [{ type: 'machine', id: machine.id, name: machine.name }, ...locations(machine.locationId), org];
  }

  /** What the key lacks for `permission` on `ref` ("needs owner on Reno Fulfillment Center"), or null when it may (or nothing is known yet). */
  denial(permission: CheckedPermission, ref: NodeRef): string | null {
    const view = this.#views.get(ref.orgId);
    if (!view || view.checkedAt === null) return null;
    // Checked on the nearest resource of the permission's type: a location's on a machine's location, the organization's on anything.
    const chain = this.chain(ref);
    const type = permissionResourceType(permission);
    const from = chain.findIndex((r) => r.type === type);
    if (from < 0) return null;
    return whyNot(view, permission, chain.slice(from))?.text ?? null;
  }

  /** Why the key may not do `permission` on `ref`, as a disabled action says it, or null when it may (or nothing is known yet). */
  denied(permission: CheckedPermission, ref: NodeRef): string | null {
    const denial = this.denial(permission, ref);
    return denial ? `This profile’s API key cannot do this: it ${denial}.` : null;
  }

  /** Why an action that needs `permission` on `ref` cannot be made now: offline first, then the key's rights; null when it can. */
  blocked(permission: CheckedPermission, ref: NodeRef): string | null {
    return this.#offline() ?? this.denied(permission, ref);
  }
}
