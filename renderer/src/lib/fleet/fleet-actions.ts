import type { FleetBridge } from '../../../../common/bridge';
import type { Location } from '../../../../common/locations';
import type { Machine, Part } from '../../../../common/machines';
import type { Organization } from '../../../../common/orgs';
import type { Result } from '../../../../common/result';
import type { JsonObject, MetadataView } from '../../../../common/schemas';
import type { FleetStore, NodeRef } from './fleet.svelte';
import type { Notices } from '../state/notices.svelte';

/**
 * Every write the fleet's panes and tree offer, in one place: the bridge call, a notice that says
 * what happened, and where the selection goes afterwards (to what was created or moved, to the
 * parent of what was deleted). Each answers the call's result, so dialogs can show a failure and
 * keep what was typed.
 */
export class FleetActions {
  constructor(
    private readonly bridge: FleetBridge,
    private readonly store: FleetStore,
    private readonly notices: Notices,
  ) {}

  #done<T>(result: Result<T>, message: (value: T) => string): Result<T> {
    if (result.ok) this.notices.push('success', message(result.value));
    return result;
  }

  async createLocation(orgId: string, name: string, parentLocationId?: string): Promise<Result<Location>> {
    const result = await this.bridge.invoke('locations.create', { orgId, name, parentLocationId });
    if (result.ok) this.store.reveal({ kind: 'location', orgId, id: result.value.id });
    return this.#done(result, (l) => `Created the location “${l.name}”.`);
  }

  async createMachine(orgId: string, locationId: string, name: string): Promise<Result<Machine>> {
    const result = await this.bridge.invoke('machines.create', { locationId, name });
    if (result.ok) this.store.reveal({ kind: 'machine', orgId, id: result.value.id });
    return this.#done(result, (m) => `Created the machine “${m.name}” with its main part “${m.name}-main”.`);
  }

  async createPart(orgId: string, machineId: string, name: string): Promise<Result<Part>> {
    const result = await this.bridge.invoke('machines.createPart', { machineId, name });
    if (result.ok) this.store.reveal({ kind: 'part', orgId, id: result.value.id });
    return this.#done(result, (p) => `Added the part “${p.name}”.`);
  }

  rename(ref: NodeRef, name: string): Promise<Result<unknown>> {
    switch (ref.kind) {
      case 'org':
        return this.bridge.invoke('orgs.update', { orgId: ref.id, name }).then((r) => this.#done(r, (o) => `Renamed the organization to “${o.name}”.`));
      case 'location':
        return this.bridge.invoke('locations.update', { locationId: ref.id, name }).then((r) => this.#done(r, (l) => `Renamed the location to “${l.name}”.`));
      case 'machine': {
        const machine = this.store.tree(ref.orgId)?.machines.get(ref.id);
        if (!machine) return Promise.resolve({ ok: false, error: { kind: 'not-found', message: 'That machine is no longer in the cached fleet.' } });
        return this.bridge.invoke('machines.update', { machineId: ref.id, name, locationId: machine.locationId }).then((r) => this.#done(r, (m) => `Renamed the machine to “${m.name}”.`));
      }
      case 'part':
        return Promise.resolve({ ok: false, error: { kind: 'invalid', message: 'Parts are renamed with their config, which this version does not edit.' } });
    }
  }

  /** Move a machine into a location, or a location under another location or (target organization) to the top level. */
  async move(source: NodeRef, target: NodeRef): Promise<Result<unknown>> {
    const index = this.store.tree(source.orgId);
    const targetName = target.kind === 'org' ? 'the top level' : `“${this.store.label(target)}”`;
    if (source.kind === 'machine') {
      const machine = index?.machines.get(source.id);
      if (!machine || target.kind !== 'location') return { ok: false, error: { kind: 'invalid', message: 'A machine can only be moved into a location.' } };
      if (machine.locationId === target.id) return { ok: true, value: null };
      const result = await this.bridge.invoke('machines.update', { machineId: source.id, name: machine.name, locationId: target.id });
      if (result.ok) this.store.reveal(source, { fromFleetPage: true });
      return this.#done(result, (m) => `Moved “${m.name}” to ${targetName}.`);
    }
    if (source.kind === 'location') {
      const parentLocationId = target.kind === 'org' ? '' : target.id;
      const result = await this.bridge.invoke('locations.update', { locationId: source.id, parentLocationId });
      if (result.ok) this.store.reveal(source, { fromFleetPage: true });
      return this.#done(result, (l) => `Moved “${l.name}” to ${targetName}.`);
    }
    return { ok: false, error: { kind: 'invalid', message: 'Only machines and locations can be moved.' } };
  }

  async remove(ref: NodeRef): Promise<Result<unknown>> {
    const name = this.store.label(ref);
    const index = this.store.tree(ref.orgId);
    let result: Result<unknown>;
    let parent: NodeRef | null = null;
    switch (ref.kind) {
      case 'org':
        result = await this.bridge.invoke('orgs.delete', { orgId: ref.id });
        break;
      case 'location': {
        const parentId = index?.locations.get(ref.id)?.parentLocationId ?? '';
        parent = parentId && index?.locations.has(parentId) ? { kind: 'location', orgId: ref.orgId, id: parentId } : { kind: 'org', orgId: ref.orgId, id: ref.orgId };
        result = await this.bridge.invoke('locations.delete', { locationId: ref.id });
        break;
      }
      case 'machine': {
        const locationId = index?.machines.get(ref.id)?.locationId;
        if (locationId) parent = { kind: 'location', orgId: ref.orgId, id: locationId };
        result = await this.bridge.invoke('machines.delete', { machineId: ref.id });
        break;
      }
      case 'part': {
        const machine = index?.partMachine.get(ref.id);
        if (machine) parent = { kind: 'machine', orgId: ref.orgId, id: machine.id };
        result = await this.bridge.invoke('machines.deletePart', { partId: ref.id });
        break;
      }
    }
    if (result.ok) this.store.revealInstead(parent, ref);
    return this.#done(result, () => `Deleted “${name}”.`);
  }

  share(locationId: string, orgId: string, orgName: string): Promise<Result<Location>> {
    return this.bridge.invoke('locations.share', { locationId, orgId }).then((r) => this.#done(r, (l) => `Shared “${l.name}” with ${orgName}.`));
  }

  unshare(locationId: string, orgId: string, orgName: string): Promise<Result<Location>> {
    return this.bridge.invoke('locations.unshare', { locationId, orgId }).then((r) => this.#done(r, (l) => `Stopped sharing “${l.name}” with ${orgName}.`));
  }

  markMain(partId: string, name: string): Promise<Result<readonly Part[]>> {
    return this.bridge.invoke('machines.markMain', { partId }).then((r) => this.#done(r, () => `“${name}” is now the main part.`));
  }

  markRestart(partId: string, name: string): Promise<Result<Part>> {
    return this.bridge.invoke('machines.markRestart', { partId }).then((r) => this.#done(r, () => `Asked “${name}” to restart; it shows the flag until it does.`));
  }

  updateOrg(orgId: string, changes: { name?: string; region?: string; cid?: string; publicNamespace?: string }): Promise<Result<Organization>> {
    return this.bridge.invoke('orgs.update', { orgId, ...changes }).then((r) => this.#done(r, (o) => `Saved “${o.name}”.`));
  }

  metadata(ref: NodeRef): { load: () => Promise<Result<MetadataView>>; save: (metadata: JsonObject) => Promise<Result<MetadataView>> } {
    const saved = (r: Result<MetadataView>) => this.#done(r, () => `Saved the metadata of “${this.store.label(ref)}”.`);
    switch (ref.kind) {
      case 'org':
        return { load: () => this.bridge.invoke('orgs.metadata', { orgId: ref.id }), save: (metadata) => this.bridge.invoke('orgs.setMetadata', { orgId: ref.id, metadata }).then(saved) };
      case 'location':
        return {
          load: () => this.bridge.invoke('locations.metadata', { locationId: ref.id }),
          save: (metadata) => this.bridge.invoke('locations.setMetadata', { locationId: ref.id, metadata }).then(saved),
        };
      case 'machine':
        return {
          load: () => this.bridge.invoke('machines.metadata', { machineId: ref.id }),
          save: (metadata) => this.bridge.invoke('machines.setMetadata', { machineId: ref.id, metadata }).then(saved),
        };
      case 'part':
        return {
          load: () => this.bridge.invoke('machines.partMetadata', { partId: ref.id }),
          save: (metadata) => this.bridge.invoke('machines.setPartMetadata', { partId: ref.id, metadata }).then(saved),
        };
    }
  }
}
