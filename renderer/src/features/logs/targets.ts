/**
 * What a log view shows, worked out from the fleet tree: a part, a machine's parts, every part of
 * the machines in a location (at any depth), or a hand-picked set; and how each part is labelled and
 * colored in a merged view.
 */
import { MAX_VIEW_PARTS } from '../../../../common/log-levels';
import { locationPath, type NodeRef, type TreeIndex } from '../../lib/fleet/fleet-index';
import type { LogTarget } from './logs.svelte';

export interface PartLabel {
  readonly label: string;
  /** Color slot (--part-N, modulo 8), in the order the parts were named. */
  readonly slot: number;
}

/** The target for a node of the tree (null for an organization, or a node the tree no longer has). */
export function logTarget(index: TreeIndex, ref: NodeRef): (LogTarget & { readonly truncated: number }) | null {
  if (ref.kind === 'part') {
    const machine = index.partMachine.get(ref.id);
    const part = machine?.parts.find((p) => p.id === ref.id);
    if (!machine || !part) return null;
    return { kind: 'part', orgId: ref.orgId, title: `${machine.name} / ${part.name}`, partIds: [part.id], truncated: 0 };
  }
  if (ref.kind === 'machine') {
    const machine = index.machines.get(ref.id);
    if (!machine || machine.parts.length === 0) return null;
    return { kind: 'machine', orgId: ref.orgId, title: machine.name, partIds: machine.parts.map((p) => p.id), truncated: 0 };
  }
  if (ref.kind === 'location') {
    const location = index.locations.get(ref.id);
    const at = index.flat.findIndex((n) => n.ref.kind === 'location' && n.ref.id === ref.id);
    if (!location || at < 0) return null;
    const partIds: string[] = [];
    for (let i = at + 1; i < (index.flat[at]?.end ?? at); i++) {
      const node = index.flat[i];
      if (node?.ref.kind === 'part') partIds.push(node.ref.id);
    }
    if (partIds.length === 0) return null;
    return { kind: 'location', orgId: ref.orgId, title: `${location.name} (all machines)`, partIds: partIds.slice(0, MAX_VIEW_PARTS), truncated: Math.max(0, partIds.length - MAX_VIEW_PARTS) };
  }
  return null;
}

/** "machine / part" per part id, with its color slot. */
export function partLabels(index: TreeIndex | undefined, partIds: readonly string[]): ReadonlyMap<string, PartLabel> {
  return new Map(
    partIds.map((id, slot) => {
      const machine = index?.partMachine.get(id);
      const part = machine?.parts.find((p) => p.id === id);
      // Demo and real parts are often named after their machine ("amr-3-main"): say it once.
      const name = part && machine && part.name.startsWith(`${machine.name}-`) ? part.name.slice(machine.name.length + 1) : part?.name;
      return [id, { label: machine && name ? `${machine.name}/${name}` : id, slot }];
    }),
  );
}

/** Where a target's parts are, for the header: the organization and the location path of its first part. */
export function targetPath(index: TreeIndex | undefined, orgName: string, target: LogTarget): string {
  const machine = index?.partMachine.get(target.partIds[0] ?? '');
  if (!index || !machine) return orgName;
  return [orgName, ...locationPath(index, machine.locationId).map((l) => l.name)].join(' › ');
}
