/**
 * The layer rules are lint rules; this proves they fire. Each case lints a one-line import as if it
 * were a file in that folder, through the project's own eslint.config.js.
 */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/backend';

const eslint = new ESLint({ cwd: repoRoot });

async function ruleIds(filePath: string, code: string): Promise<string[]> {
  // A module marker for script files; a .svelte file is markup and takes the code as it is.
  const text = filePath.endsWith('.svelte') ? code : `${code}\nexport {};\n`;
  const [result] = await eslint.lintText(text, { filePath });
  return (result?.messages ?? []).map((m) => m.ruleId ?? m.message);
}

describe('layer rules', () => {
  it.each([
    ['renderer/src/x.ts', "import { Backend } from '../../main/backend/backend';", 'no-restricted-imports'],
    ['renderer/src/x.ts', "import { startService } from '../../service/server';", 'no-restricted-imports'],
    ['renderer/src/lib/state/x.svelte.ts', "import { Backend } from '../../../../main/backend/backend';", 'no-restricted-imports'],
    ['renderer/src/x.svelte', "<script lang=\"ts\">\n  import { Backend } from '../../main/backend/backend';\n  console.log(Backend);\n</script>", 'no-restricted-imports'],
    ['main/backend/x.ts', "import App from '../../renderer/src/App.svelte';", 'no-restricted-imports'],
    ['main/x.ts', "import { OrgStore } from '../service/orgs/store';", 'no-restricted-imports'],
    ['main/cache/x.ts', "import { openDatabase } from '../../service/db/open';", 'no-restricted-imports'],
    ['main/cache/x.ts', "import { migrate } from '../../service/db/migrate';", 'no-restricted-imports'],
    ['db/x.ts', "import { openDatabase } from '../service/db/open';", 'no-restricted-imports'],
    ['db/x.ts', "import { openCache } from '../main/cache/cache';", 'no-restricted-imports'],
    ['db/x.ts', "import { ok } from '../common/result';", 'no-restricted-imports'],
    ['db/x.ts', "import { app } from 'electron';", 'no-restricted-imports'],
    ['renderer/src/x.ts', "import type { Organization } from '../../proto/gen/fleet/app/v1/orgs';", 'no-restricted-imports'],
    ['common/x.ts', "import { AppServiceClient } from '../proto/gen/fleet/app/v1/app';", 'no-restricted-imports'],
    ['renderer/src/x.ts', "import { readFileSync } from 'node:fs';", 'no-restricted-imports'],
    ['renderer/src/x.ts', "import { ipcRenderer } from 'electron';", 'no-restricted-imports'],
    ['common/x.ts', "import { readFileSync } from 'node:fs';", 'no-restricted-imports'],
    ['common/x.ts', "import { join } from 'path';", 'no-restricted-imports'],
    ['common/x.ts', "import { app } from 'electron';", 'no-restricted-imports'],
    ['common/x.ts', "import { Backend } from '../main/backend/backend';", 'no-restricted-imports'],
    ['service/x.ts', "import { Backend } from '../main/backend/backend';", 'no-restricted-imports'],
    ['service/x.ts', "import { ok } from '../common/result';", 'no-restricted-imports'],
    ['main/backend/x.ts', "import { app } from 'electron';", 'no-restricted-imports'],
    ['main/orgs/x.ts', "import { app } from 'electron';", 'no-restricted-imports'],
    ['preload/x.ts', "import { readFileSync } from 'node:fs';", 'no-restricted-imports'],
    ['preload/x.ts', "import { Backend } from '../main/backend/backend';", 'no-restricted-imports'],
  ])('%s: %s is refused', async (file, code, rule) => {
    expect(await ruleIds(file, code)).toContain(rule);
  });

  it.each([
    ['main/shell/x.ts', "import { app } from 'electron';"],
    ['preload/x.ts', "import { contextBridge } from 'electron';"],
    ['preload/x.test.ts', "import { EventEmitter } from 'node:events';"],
    ['renderer/src/x.ts', "import { createBridge } from '../../common/bridge';"],
    ['main/backend/x.ts', "import { readFileSync } from 'node:fs';"],
    ['main/cache/x.ts', "import { migrate } from '../../db/migrate';"],
    ['service/x.ts', "import { migrate } from '../db/migrate';"],
    ['db/x.ts', "import Database from 'better-sqlite3';"],
    ['main/orgs/x.ts', "import { AppServiceClient } from '../../proto/gen/fleet/app/v1/app';"],
    ['renderer/src/main.ts', "import App from './App.svelte';"],
    ['service/x.ts', "import { startService } from './server';"],
  ])('%s: %s is allowed', async (file, code) => {
    const ids = await ruleIds(file, code);
    expect(ids.filter((id) => id === 'no-restricted-imports')).toEqual([]);
  });
});
