/**
 * What the config editor completes from, made from what the registry and the fragments say: the
 * organization's modules with their models, public modules (ids only: a registry item carries no
 * models), and the fragments the config may name (the organization's, then others' public ones).
 */
import type { Fragment } from '../../../../common/fragments';
import type { Module, RegistryItem } from '../../../../common/registry';
import type { ConfigChoices, FragmentChoice, ModuleChoice } from '../../lib/config/completion';

/** The first line of a description, short enough to sit beside a completion. */
const firstLine = (text: string): string | undefined => {
  const line = text.split('\n', 1)[0]?.trim() ?? '';
  return line === '' ? undefined : line.length > 60 ? `${line.slice(0, 59)}…` : line;
};

/** Completion choices from the modules (with models), public module items, and fragments; each id once, the first source winning. */
export function configChoices(modules: readonly Module[], publicModules: readonly RegistryItem[], fragments: readonly Fragment[]): ConfigChoices {
  const moduleChoices: ModuleChoice[] = [];
  const seen = new Set<string>();
  for (const m of modules) {
    if (seen.has(m.id)) continue;
    seen.add(m.id);
    const latest = m.versions.at(-1);
    const detail = latest ? `v${latest.version}` : firstLine(m.description);
    moduleChoices.push({ id: m.id, models: m.models.length > 0 ? m.models : (latest?.models ?? []), ...(detail ? { detail } : {}) });
  }
  for (const item of publicModules) {
    if (item.type !== 'module' || seen.has(item.id)) continue;
    seen.add(item.id);
    const detail = firstLine(item.description);
    moduleChoices.push({ id: item.id, models: [], ...(detail ? { detail } : {}) });
  }
  const fragmentChoices: FragmentChoice[] = [];
  const fragmentIds = new Set<string>();
  for (const f of fragments) {
    if (fragmentIds.has(f.id)) continue;
    fragmentIds.add(f.id);
    fragmentChoices.push({ id: f.id, name: f.name, detail: `${f.orgName} · ${f.visibility} · r${f.latestRevision}` });
  }
  return { modules: moduleChoices, fragments: fragmentChoices };
}
