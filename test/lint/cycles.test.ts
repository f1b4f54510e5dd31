/**
 * No circle of imports between files: a circle makes the evaluation order depend on which file is
 * imported first (an import then reads a binding not yet initialized), and it means the files are one
 * module in all but name. Every static relative import and re-export counts, `import type` included
 * (a type-only circle is the same tangle of responsibilities); dynamic `import()` is lazy and does not.
 *
 * No layer has one, asserted below for each (db/, fleetconfig/ and the composition roots included).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const SCANNED = ['service', 'main', 'db', 'fleetconfig', 'common', 'preload', 'renderer/src'];
/** Folders whose cycles fail the test: every one scanned. */
const ASSERTED = SCANNED;

/** The relative module names a file imports statically (TypeScript's own scanner, so comments and strings do not count). */
export function relativeImports(path: string, text: string): string[] {
  const scripts = path.endsWith('.svelte') ? [...text.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1] ?? '') : [text];
  return scripts.flatMap((script) =>
    ts
      .preProcessFile(script, true, false)
      .importedFiles.filter((f) => f.fileName.startsWith('./') || f.fileName.startsWith('../'))
      // `import(` right before the name (and its quote): a dynamic import.
      .filter((f) => !/import\s*\(\s*['"`]?$/.test(script.slice(Math.max(0, f.pos - 40), f.pos)))
      .map((f) => f.fileName),
  );
}

/** The file a relative module name means, among `files`, as the bundlers resolve it. */
function resolveImport(from: string, name: string, files: ReadonlySet<string>): string | undefined {
  const base = resolve(dirname(from), name);
  const candidates = [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, `${base}.svelte.ts`, `${base}.svelte`, join(base, 'index.ts')];
  return candidates.find((c) => files.has(c));
}

/**
 * Every circle of imports among `sources` (path → text): one per strongly connected component, as
 * the shortest circle through its first file (sorted), then the component's other files.
 */
export function findCycles(sources: ReadonlyMap<string, string>): { cycle: string[]; component: string[] }[] {
  const files = new Set(sources.keys());
  const edges = new Map<string, string[]>();
  for (const [path, text] of sources) {
    const targets = relativeImports(path, text).flatMap((name) => resolveImport(path, name, files) ?? []);
    edges.set(path, [...new Set(targets)].sort());
  }

  // Tarjan's strongly connected components, iteratively (deep import chains would overflow the stack).
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  for (const start of [...files].sort()) {
    if (index.has(start)) continue;
    const work: { node: string; next: number }[] = [{ node: start, next: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const targets = edges.get(frame.node) ?? [];
      if (frame.next < targets.length) {
        const target = targets[frame.next++]!;
        if (!index.has(target)) {
          index.set(target, counter);
          low.set(target, counter++);
          stack.push(target);
          onStack.add(target);
          work.push({ node: target, next: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        const selfLoop = component.length === 1 && (edges.get(frame.node) ?? []).includes(frame.node);
        if (component.length > 1 || selfLoop) components.push(component.sort());
      }
    }
  }

  return components.map((component) => {
    const first = component[0]!;
    const inside = new Set(component);
    // Breadth-first from the first file back to itself, inside the component: the shortest circle.
    const previous = new Map<string, string>();
    const queue = [first];
    let closing: string | undefined;
    while (queue.length > 0 && closing === undefined) {
      const node = queue.shift()!;
      for (const target of edges.get(node) ?? []) {
        if (!inside.has(target)) continue;
        if (target === first) {
          closing = node;
          break;
        }
        if (!previous.has(target)) {
          previous.set(target, node);
          queue.push(target);
        }
      }
    }
    const cycle = [first];
    for (let at = closing; at !== undefined && at !== first; at = previous.get(at)) cycle.splice(1, 0, at);
    return { cycle: [...cycle, first], component };
  });
}

function sourcesUnder(folder: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of readdirSync(join(root, folder), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/\.(ts|svelte)$/.test(entry.name) || entry.name.endsWith('.d.ts')) continue;
    const path = join(entry.parentPath, entry.name);
    out.set(path, readFileSync(path, 'utf8'));
  }
  return out;
}

const sources = new Map(SCANNED.flatMap((folder) => [...sourcesUnder(folder)]));
const found = findCycles(sources).map(({ cycle, component }) => ({
  cycle: cycle.map((f) => relative(root, f)),
  component: component.map((f) => relative(root, f)),
}));
const describeCycle = (c: { cycle: string[]; component: string[] }) =>
  `${c.cycle.join(' → ')}${c.component.length > c.cycle.length - 1 ? ` (with ${c.component.length - c.cycle.length + 1} more files in the same knot: ${c.component.filter((f) => !c.cycle.includes(f)).join(', ')})` : ''}`;

describe('import cycles', () => {
  it('finds a circle through import type, export from, an index.ts and a .svelte file, and no circle where there is none', () => {
    const at = (p: string) => join('/x', p);
    const knot = new Map([
      [at('a.ts'), "import type { B } from './b';\nconst lazy = () => import('./d');\nexport {};"],
      [at('b/index.ts'), "export { c } from '../c';"],
      [at('c.ts'), "import View from './View.svelte';\nexport const c = View;"],
      [at('View.svelte'), '<script lang="ts">\n  import { a } from \'./a\';\n</script>\n<p>{a}</p>'],
      // Only a dynamic import leads back: no circle.
      [at('d.ts'), "export const d = () => import('./a');"],
    ]);
    expect(findCycles(knot)).toEqual([
      { cycle: [at('View.svelte'), at('a.ts'), at('b/index.ts'), at('c.ts'), at('View.svelte')], component: [at('View.svelte'), at('a.ts'), at('b/index.ts'), at('c.ts')] },
    ]);
    expect(findCycles(new Map([[at('a.ts'), "import { b } from './b';"], [at('b.ts'), 'export const b = 1;']]))).toEqual([]);
  });

  it.each(ASSERTED)('%s/ has no circle of imports', (folder) => {
    expect(found.filter((c) => c.component.some((f) => f.startsWith(`${folder}/`))).map(describeCycle)).toEqual([]);
  });

});
