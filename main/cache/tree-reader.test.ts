/**
 * The tree reader thread starts with the app, beside the window's boot: what it loads is what it
 * costs the launch (with every domain's jobs and zod, 100 ms to its first answer; with the fleet's
 * reads alone, 35). Its code must not grow that graph again. The sources' graph is what is checked:
 * the build follows it (out/main/tree-reader-*.js imports only better-sqlite3 and node:crypto).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * What `path` imports: statically for values (`import type …` and `export type … from` left out;
 * `import { type X }` counts, as the build keeps it under verbatimModuleSyntax), and dynamically
 * (`import(…)`, `require(…)`), each as written.
 */
function imports(path: string): { readonly values: string[]; readonly dynamic: string[] } {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest);
  const values: string[] = [];
  const dynamic: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && !statement.importClause?.isTypeOnly) values.push((statement.moduleSpecifier as ts.StringLiteral).text);
    else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && !statement.isTypeOnly) values.push((statement.moduleSpecifier as ts.StringLiteral).text);
  }
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require'))) {
      const [first] = node.arguments;
      dynamic.push(first !== undefined && ts.isStringLiteral(first) ? first.text : '(computed)');
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { values, dynamic };
}

/** Every file and package `entry` loads at run time, following relative imports; and any dynamic import met on the way. */
function loadedBy(entry: string): { files: Set<string>; packages: Set<string>; dynamic: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const dynamic: string[] = [];
  const visit = (path: string) => {
    if (files.has(path)) return;
    files.add(path);
    const found = imports(path);
    dynamic.push(...found.dynamic.map((name) => `${path}: ${name}`));
    for (const name of found.values) {
      if (!name.startsWith('.')) {
        packages.add(name);
        continue;
      }
      const base = resolve(dirname(path), name);
      const file = [`${base}.ts`, base.replace(/\.js$/, '.ts'), join(base, 'index.ts')].find((c) => existsSync(c));
      if (file === undefined) throw new Error(`${path} imports ${name}, which is no TypeScript file here`);
      visit(file);
    }
  };
  visit(entry);
  return { files, packages, dynamic };
}

describe('the tree reader thread', () => {
  it('starts from an entry that loads nothing but the thread’s own half', () => {
    const entry = imports(join(import.meta.dirname, 'worker.ts'));
    expect(entry.values).toEqual(['node:worker_threads']);
    expect(entry.dynamic.sort()).toEqual(['./tree-reader', './writer']);
  });

  it('loads the fleet’s reads and SQLite, no schema and no other domain’s jobs', () => {
    const root = join(import.meta.dirname, '..', '..');
    const { files, packages, dynamic } = loadedBy(join(import.meta.dirname, 'tree-reader.ts'));
    expect(dynamic).toEqual([]);
    expect([...packages].sort()).toEqual(['better-sqlite3', 'node:crypto']);
    const loaded = [...files].map((f) => f.slice(root.length + 1)).sort();
    expect(loaded).not.toContain('common/schemas.ts');
    expect(loaded).not.toContain('main/cache/all-jobs.ts');
    expect(loaded.every((f) => f.startsWith('main/cache/') || f.startsWith('main/fleet/') || f.startsWith('common/'))).toBe(true);
  });

  it('is checked for what it really imports: the writer, beside it, loads zod through every domain’s jobs', () => {
    const { packages, files } = loadedBy(join(import.meta.dirname, 'writer.ts'));
    expect(packages.has('zod')).toBe(true);
    expect([...files].some((f) => f.endsWith('all-jobs.ts'))).toBe(true);
  });
});
