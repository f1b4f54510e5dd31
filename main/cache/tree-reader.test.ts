/**
 * The tree reader thread starts with the app, beside the window's boot: what it loads is what it
 * costs the launch (with every domain's jobs and zod, 100 ms to its first answer; with the fleet's
 * reads alone, 35). Its code must not grow that graph again.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/** The modules `path` imports for their values (`import type` and type-only names left out), as written. */
function valueImports(path: string): string[] {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest);
  const out: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      const typeOnly = clause !== undefined && (clause.isTypeOnly || (clause.name === undefined && clause.namedBindings !== undefined && ts.isNamedImports(clause.namedBindings) && clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      if (!typeOnly) out.push((statement.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && !statement.isTypeOnly) {
      out.push((statement.moduleSpecifier as ts.StringLiteral).text);
    }
  }
  return out;
}

/** Every file and package `entry` loads at run time, following relative imports. */
function loadedBy(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (path: string) => {
    if (files.has(path)) return;
    files.add(path);
    for (const name of valueImports(path)) {
      if (!name.startsWith('.')) {
        packages.add(name);
        continue;
      }
      const base = resolve(dirname(path), name);
      const file = [`${base}.ts`, join(base, 'index.ts'), base].find((c) => existsSync(c) && c.endsWith('.ts'));
      if (file === undefined) throw new Error(`${path} imports ${name}, which is no TypeScript file here`);
      visit(file);
    }
  };
  visit(entry);
  return { files, packages };
}

describe('the tree reader thread', () => {
  it('loads the fleet’s reads and SQLite, no schema and no other domain’s jobs', () => {
    const root = join(import.meta.dirname, '..', '..');
    const { files, packages } = loadedBy(join(import.meta.dirname, 'tree-reader.ts'));
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
