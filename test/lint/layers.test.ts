/**
 * The layer rules are lint rules; this proves they fire. Each case lints a one-line import as if it
 * were a file in that folder, through the project's own eslint.config.js.
 */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/backend';

const eslint = new ESLint({ cwd: repoRoot });

async function ruleIds(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\nexport {};\n`, { filePath });
  return (result?.messages ?? []).map((m) => m.ruleId ?? m.message);
}

describe('layer rules', () => {
  it.each([
    ['renderer/src/x.ts', "import { Backend } from '../../main/backend/backend';", 'import-x/no-restricted-paths'],
    ['renderer/src/x.ts', "import { startService } from '../../service/server';", 'import-x/no-restricted-paths'],
    ['renderer/src/x.ts', "import { readFileSync } from 'node:fs';", 'no-restricted-imports'],
    ['renderer/src/x.ts', "import { ipcRenderer } from 'electron';", 'no-restricted-imports'],
    ['common/x.ts', "import { readFileSync } from 'node:fs';", 'no-restricted-imports'],
    ['common/x.ts', "import { join } from 'path';", 'no-restricted-imports'],
    ['common/x.ts', "import { app } from 'electron';", 'no-restricted-imports'],
    ['common/x.ts', "import { Backend } from '../main/backend/backend';", 'import-x/no-restricted-paths'],
    ['service/x.ts', "import { Backend } from '../main/backend/backend';", 'import-x/no-restricted-paths'],
    ['service/x.ts', "import { ok } from '../common/result';", 'import-x/no-restricted-paths'],
    ['main/backend/x.ts', "import { app } from 'electron';", 'no-restricted-imports'],
    ['main/orgs/x.ts', "import { app } from 'electron';", 'no-restricted-imports'],
    ['preload/x.ts', "import { Backend } from '../main/backend/backend';", 'import-x/no-restricted-paths'],
  ])('%s: %s is refused', async (file, code, rule) => {
    expect(await ruleIds(file, code)).toContain(rule);
  });

  it.each([
    ['main/shell/x.ts', "import { app } from 'electron';"],
    ['preload/x.ts', "import { contextBridge } from 'electron';"],
    ['renderer/src/x.ts', "import { createBridge } from '../../common/bridge';"],
    ['main/backend/x.ts', "import { readFileSync } from 'node:fs';"],
    ['main/cache/x.ts', "import { migrate } from '../../service/db/migrate';"],
  ])('%s: %s is allowed', async (file, code) => {
    const ids = await ruleIds(file, code);
    expect(ids.filter((id) => id === 'no-restricted-imports' || id === 'import-x/no-restricted-paths')).toEqual([]);
  });
});
