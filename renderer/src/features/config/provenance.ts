/**
 * Where each stretch of an effective config's text came from: the config is written out (two-space
 * JSON), and every block, top-level field and applied mod of its provenance is found in that text,
 * so the view can mark it and the legend can jump to it. Pure: the view and the tests share it.
 */
import { findNodeAtLocation, parseTree, type Node } from 'jsonc-parser';
import type { ConfigSource, EffectiveConfig, ModOutcome, ResolvedFragment } from '../../../../common/config';

/** How many colors sources cycle through (the `--part-N` variables). */
export const SOURCE_COLORS = 8;

/** One source of blocks: the part's own config or a fragment at a revision, reached through a chain. */
export interface SourceGroup {
  /** Stable within one effective config: `own`, or `fragmentId@revision/chain`. */
  readonly key: string;
  readonly source: ConfigSource;
  /** "Own config", or the fragment's name with its revision. */
  readonly label: string;
  /** For a nested fragment: the names from the one the config names down to it ("AMR base › Lidar"). */
  readonly chain: string;
  /** Index into the `--part-N` colors; -1 for the own config (unmarked). */
  readonly color: number;
  readonly blocks: readonly MarkedBlock[];
}

/** A block of a section (a component, a service…) and where it is in the text. */
export interface MarkedBlock {
  readonly section: string;
  readonly index: number;
  /** Its name, with "(was x)" when a prefix renamed it. */
  readonly label: string;
  readonly from: number;
  readonly to: number;
  readonly group: string;
}

/** A value a mod set, and where it is in the text; `from` is -1 for a mod that removed the value or was not applied. */
export interface MarkedMod {
  readonly mod: ModOutcome;
  readonly from: number;
  readonly to: number;
  /** What it did, for people: "set by fragment_mods[0].mods[0] (was 1.2, from AMR base r3)". */
  readonly label: string;
}

/** An effective config laid out for the view. */
export interface MarkedConfig {
  readonly text: string;
  /** Sources in order of first appearance, the own config first. */
  readonly groups: readonly SourceGroup[];
  readonly blocks: readonly MarkedBlock[];
  readonly mods: readonly MarkedMod[];
}

const sourceKey = (s: ConfigSource): string => (s.kind === 'own' ? 'own' : `${s.fragmentId}@${s.revision}/${s.chain.join('>')}`);

/** A fragment's name as resolved (its id when the fragment was unreadable). */
export function fragmentName(fragments: readonly ResolvedFragment[], id: string): string {
  return fragments.find((f) => f.id === id)?.name ?? id;
}

/** "AMR base r3", or "own config". */
export function sourceLabel(fragments: readonly ResolvedFragment[], source: ConfigSource): string {
  return source.kind === 'own' ? 'own config' : `${fragmentName(fragments, source.fragmentId)} r${source.revision}`;
}

const preview = (value: unknown): string => {
  const text = JSON.stringify(value);
  return text === undefined ? 'nothing' : text.length > 40 ? `${text.slice(0, 39)}…` : text;
};

/** The node a mod's dotted path names: `components.lidar.x` is the `x` of the `components` element named `lidar`. */
function modNode(root: Node, effective: EffectiveConfig['effective'], path: string): Node | undefined {
  const [section, name, ...rest] = path.split('.');
  if (section === undefined) return undefined;
  const list = effective[section];
  if (Array.isArray(list) && name !== undefined) {
    const index = list.findIndex((b) => typeof b === 'object' && b !== null && !Array.isArray(b) && (b as { name?: unknown }).name === name);
    if (index < 0) return undefined;
    return findNodeAtLocation(root, [section, index, ...rest]);
  }
  return findNodeAtLocation(root, path.split('.'));
}

/** Lay `config` out and find its provenance in the text. */
export function markConfig(config: EffectiveConfig): MarkedConfig {
  const text = JSON.stringify(config.effective, null, 2);
  const root = parseTree(text);
  const groups = new Map<string, { source: ConfigSource; blocks: MarkedBlock[] }>([['own', { source: { kind: 'own' }, blocks: [] }]]);
  const blocks: MarkedBlock[] = [];
  for (const b of config.blocks) {
    const node = root && findNodeAtLocation(root, [b.section, b.index]);
    if (!node) continue;
    const key = sourceKey(b.source);
    const name = b.name ?? `${b.section}[${b.index}]`;
    const block: MarkedBlock = { section: b.section, index: b.index, label: b.originalName && b.originalName !== b.name ? `${name} (was ${b.originalName})` : name, from: node.offset, to: node.offset + node.length, group: key };
    blocks.push(block);
    const group = groups.get(key) ?? { source: b.source, blocks: [] };
    group.blocks.push(block);
    groups.set(key, group);
  }
  let color = 0;
  const sourceGroups: SourceGroup[] = [...groups].map(([key, g]) => ({
    key,
    source: g.source,
    label: g.source.kind === 'own' ? 'Own config' : sourceLabel(config.fragments, g.source),
    chain: g.source.kind === 'fragment' && g.source.chain.length > 1 ? g.source.chain.map((id) => fragmentName(config.fragments, id)).join(' › ') : '',
    color: g.source.kind === 'own' ? -1 : color++ % SOURCE_COLORS,
    blocks: g.blocks,
  }));
  const mods: MarkedMod[] = config.mods.map((mod) => {
    const node = mod.applied && mod.op === '$set' && root ? modNode(root, config.effective, mod.path) : undefined;
    const was = mod.previous === undefined ? 'no value before' : `was ${preview(mod.previous)}${mod.overrode ? `, from ${sourceLabel(config.fragments, mod.overrode)}` : ''}`;
    const label = !mod.applied
      ? `${mod.op} ${mod.path} not applied: ${mod.reason ?? 'nothing to change'}`
      : `${mod.op === '$set' ? 'Set' : 'Removed'} by ${mod.at} on ${fragmentName(config.fragments, mod.fragmentId)} (${was})`;
    return { mod, from: node ? node.offset : -1, to: node ? node.offset + node.length : -1, label };
  });
  return { text, groups: sourceGroups.filter((g) => g.blocks.length > 0 || g.source.kind === 'fragment'), blocks, mods };
}
