import type { FleetBridge } from '../../../../common/bridge';
import type { AccessResourceType, ApiKey, Grant, Holders, Member, Role } from '../../../../common/access';
import type { Result } from '../../../../common/result';
import { explained } from './labels';
import { Loaded } from './loaded.svelte';

/** Someone who may be given a role here: a member of the organization or one of its keys. */
export interface Candidate {
  readonly type: 'user' | 'key';
  readonly id: string;
  readonly label: string;
}

/** Who holds what on an organization, location or machine, and the role changes made from its Roles page. */
export class HoldersView {
  readonly orgId: string;
  readonly resourceType: AccessResourceType;
  readonly resourceId: string;
  readonly #bridge: FleetBridge;
  readonly holders: Loaded<Holders>;
  /** Members and keys of the organization, read when a role is being added. */
  candidates = $state.raw<readonly Candidate[]>([]);

  constructor(bridge: FleetBridge, orgId: string, resourceType: AccessResourceType, resourceId: string) {
    this.#bridge = bridge;
    this.orgId = orgId;
    this.resourceType = resourceType;
    this.resourceId = resourceId;
    this.holders = new Loaded(() => bridge.invoke('access.holders', { orgId, resourceType, resourceId }));
  }

  load(): Promise<void> {
    return this.holders.load();
  }

  /** Read who could be given a role (members by name and email, keys by name). */
  async loadCandidates(): Promise<void> {
    const [people, keys] = await Promise.all([this.#bridge.invoke('access.people', { orgId: this.orgId }), this.#bridge.invoke('access.keys', { orgId: this.orgId })]);
    const members: readonly Member[] = people.ok ? people.value.members : [];
    const apiKeys: readonly ApiKey[] = keys.ok ? keys.value.keys : [];
    this.candidates = [
      ...members.map((m): Candidate => ({ type: 'user', id: m.userId, label: [m.name, m.emails[0]].filter(Boolean).join(' · ') || m.userId })),
      ...apiKeys.map((k): Candidate => ({ type: 'key', id: k.id, label: `API key ${k.name}` })),
    ];
  }

  #grant(role: Role): Grant {
    return { resourceType: this.resourceType, resourceId: this.resourceId, role };
  }

  /** Give `identityId` a role on this resource. */
  add(identityId: string, role: Role): Promise<Result<unknown>> {
    return this.#write(this.#bridge.invoke('access.addRole', { orgId: this.orgId, identityId, grant: this.#grant(role) }));
  }

  /** Turn an identity's role here into the other one, in one step. */
  change(identityId: string, from: Role, to: Role): Promise<Result<unknown>> {
    return this.#write(this.#bridge.invoke('access.changeRole', { orgId: this.orgId, identityId, from: this.#grant(from), to: this.#grant(to) }));
  }

  remove(identityId: string, role: Role): Promise<Result<unknown>> {
    return this.#write(this.#bridge.invoke('access.removeRole', { orgId: this.orgId, identityId, grant: this.#grant(role) }));
  }

  async #write<T>(call: Promise<Result<T>>): Promise<Result<T>> {
    const result = await call;
    void this.load();
    return explained(result);
  }
}
