import type { AccessResourceType, Grant, SecretOwner } from '../../../../common/access';
import type { NodeRef } from '../../lib/fleet/fleet-index';
import { param, type RouteMatch } from '../../lib/router/router.svelte';
import type { Shell } from '../../lib/shell/feature';
import { GrantPicker } from './grant-picker.svelte';
import { HoldersView } from './holders.svelte';
import { KeysView } from './keys.svelte';
import { PeopleView } from './people.svelte';
import { SecretsView } from './secrets.svelte';

const KIND_OF: Readonly<Record<AccessResourceType, NodeRef['kind']>> = { organization: 'org', location: 'location', machine: 'machine' };

/** The access page the router shows (one at a time), each over its own state class. */
export class AccessPages {
  readonly #shell: Shell;
  people = $state.raw<PeopleView | null>(null);
  keys = $state.raw<KeysView | null>(null);
  holders = $state.raw<HoldersView | null>(null);
  secrets = $state.raw<SecretsView | null>(null);

  constructor(shell: Shell) {
    this.#shell = shell;
  }

  enterPeople(match: RouteMatch): void {
    this.leave();
    this.#shell.fleet.ensureTrees();
    this.people = new PeopleView(this.#shell.bridge, param(match, 'orgId'));
    void this.people.load();
  }

  enterKeys(match: RouteMatch, machine: boolean): void {
    this.leave();
    this.#shell.fleet.ensureTrees();
    const orgId = param(match, 'orgId');
    this.keys = new KeysView(this.#shell.bridge, machine ? { kind: 'machine', orgId, machineId: param(match, 'id') } : { kind: 'org', orgId });
    void this.keys.load();
  }

  enterRoles(match: RouteMatch, type: AccessResourceType): void {
    this.leave();
    this.#shell.fleet.ensureTrees();
    const orgId = param(match, 'orgId');
    this.holders = new HoldersView(this.#shell.bridge, orgId, type, type === 'organization' ? orgId : param(match, 'id'));
    void this.holders.load();
  }

  enterSecrets(match: RouteMatch, owner: SecretOwner): void {
    this.leave();
    this.#shell.fleet.ensureTrees();
    this.secrets = new SecretsView(this.#shell.bridge, param(match, 'orgId'), owner, param(match, 'id'));
    void this.secrets.load();
  }

  leave(): void {
    this.people = null;
    this.keys = null;
    this.holders = null;
    this.secrets = null;
  }

  /** The node a roles page is about, as the tree knows it. */
  holdersRef(view: HoldersView): NodeRef {
    return { kind: KIND_OF[view.resourceType], orgId: view.orgId, id: view.resourceId };
  }

  /** A picker over the organization's tree, starting from `initial`. */
  picker(orgId: string, initial: readonly Grant[] = []): GrantPicker {
    const fleet = this.#shell.fleet;
    return new GrantPicker(orgId, this.orgName(orgId), () => fleet.tree(orgId), initial);
  }

  orgName(orgId: string): string {
    return this.#shell.fleet.orgs.find((o) => o.id === orgId)?.name ?? orgId;
  }
}
