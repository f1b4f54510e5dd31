import type { FleetBridge } from '../../../../common/bridge';
import type { Grant, Invite, People } from '../../../../common/access';
import type { Result } from '../../../../common/result';
import { explained } from './labels';
import { Loaded } from './loaded.svelte';

/** An organization's People page: members with their roles, pending invites, and what may be done to them. */
export class PeopleView {
  readonly orgId: string;
  readonly #bridge: FleetBridge;
  readonly people: Loaded<People>;

  constructor(bridge: FleetBridge, orgId: string) {
    this.#bridge = bridge;
    this.orgId = orgId;
    this.people = new Loaded(() => bridge.invoke('access.people', { orgId }));
  }

  load(): Promise<void> {
    return this.people.load();
  }

  /** Invite an email address with these roles; `sendEmail` false: granted at their next sign-in with it. */
  invite(email: string, grants: readonly Grant[], sendEmail: boolean): Promise<Result<Invite>> {
    return this.#write(this.#bridge.invoke('access.invite', { orgId: this.orgId, email, grants: [...grants], sendEmail }));
  }

  /** Make a pending invite grant exactly these roles. */
  updateInvite(email: string, grants: readonly Grant[]): Promise<Result<Invite>> {
    return this.#write(this.#bridge.invoke('access.updateInvite', { orgId: this.orgId, email, grants: [...grants] }));
  }

  resendInvite(email: string): Promise<Result<Invite>> {
    return this.#write(this.#bridge.invoke('access.resendInvite', { orgId: this.orgId, email }));
  }

  deleteInvite(email: string): Promise<Result<unknown>> {
    return this.#write(this.#bridge.invoke('access.deleteInvite', { orgId: this.orgId, email }));
  }

  removeMember(userId: string): Promise<Result<unknown>> {
    return this.#write(this.#bridge.invoke('access.removeMember', { orgId: this.orgId, userId }));
  }

  /** Every answer, done or refused, reads the list again: a refusal may mean it changed meanwhile. */
  async #write<T>(call: Promise<Result<T>>): Promise<Result<T>> {
    const result = await call;
    void this.load();
    return explained(result);
  }
}
