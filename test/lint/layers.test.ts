/**
 * The layer rules are lint rules; this proves they fire. Each case lints a one-line import as if it
 * were a file in that folder, through the project's own eslint.config.js.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
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
    ['fleetconfig/x.ts', "import { openDatabase } from '../service/db/open';", 'no-restricted-imports'],
    ['fleetconfig/x.ts', "import { openCache } from '../main/cache/cache';", 'no-restricted-imports'],
    ['fleetconfig/x.ts', "import { ok } from '../common/result';", 'no-restricted-imports'],
    ['fleetconfig/x.ts', "import { migrate } from '../db/migrate';", 'no-restricted-imports'],
    ['fleetconfig/x.ts', "import type { Fragment } from '../proto/gen/fleet/app/v1/fragments';", 'no-restricted-imports'],
    ['fleetconfig/x.ts', "import { readFileSync } from 'node:fs';", 'no-restricted-imports'],
    ['fleetconfig/x.ts', "import { app } from 'electron';", 'no-restricted-imports'],
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
    // Service domains are leaves; the kernel imports none of them.
    ['service/logs/x.ts', "import { partOf } from '../machines/handlers';", 'no-restricted-imports'],
    ['service/orgs/x.ts', "import type { Authorizations } from '../access/authorizations';", 'no-restricted-imports'],
    ['service/registry/deep/x.ts', "import { OrgStore } from '../../orgs/store';", 'no-restricted-imports'],
    ['service/machines/x.ts', "import { Backend } from '../../main/backend/backend';", 'no-restricted-imports'],
    ['service/rpc.ts', "import type { Caller } from './auth/guard';", 'no-restricted-imports'],
    ['service/permissions/x.ts', "import type { Role } from '../orgs/store';", 'no-restricted-imports'],
    ['service/db/migrations/x.ts', "import { LogStore } from '../../logs/store';", 'no-restricted-imports'],
  ])('%s: %s is refused', async (file, code, rule) => {
    expect(await ruleIds(file, code)).toContain(rule);
  });

  it.each([
    ['main/orgs/x.ts', "import { cachedMetadataView } from '../locations/handlers';", 'no-restricted-imports'],
    ['main/machines/x.ts', "import { listOrgs } from '../orgs/cache';", 'no-restricted-imports'],
    ['main/logs/sub/x.ts', "import { RegistryUploads } from '../../registry/uploads';", 'no-restricted-imports'],
    ['main/training/x.test.ts', "import { orgsJobs } from '../orgs/jobs';", 'no-restricted-imports'],
    ['main/ui/x.ts', "import { logsHandlers } from '../logs/handlers';", 'no-restricted-imports'],
    ['main/cache/x.ts', "import { logsJobs } from '../logs/jobs';", 'no-restricted-imports'],
    ['main/cache/migrations/x.ts', "import { listOrgs } from '../../orgs/cache';", 'no-restricted-imports'],
    ['main/backend/context.ts', "import type { LogTails } from '../logs/tails';", 'no-restricted-imports'],
    ['main/connection/x.ts', "import { orgsResource } from '../orgs/sync';", 'no-restricted-imports'],
    ['main/fleet/x.ts', "import { listOrgs } from '../orgs/cache';", 'no-restricted-imports'],
    ['main/web/x.ts', "import { RegistryUploads } from '../registry/uploads';", 'no-restricted-imports'],
    ['main/shell/x.ts', "import { LogTails } from '../logs/tails';", 'no-restricted-imports'],
    ['main/paths.ts', "import { trainingJobs } from './training/jobs';", 'no-restricted-imports'],
    ['main/config/x.ts', "import { cachedFragment } from '../fragments/cache';", 'no-restricted-imports'],
    ['main/fragments/x.ts', "import { fetchPartConfig } from '../config/handlers';", 'no-restricted-imports'],
    ['main/cache/x.ts', "import { configJobs } from '../config/jobs';", 'no-restricted-imports'],
    // The blocks that carry the domain and kernel rules keep main's layer rule too.
    ['main/orgs/x.ts', "import { OrgStore } from '../../service/orgs/store';", 'no-restricted-imports'],
    ['main/logs/x.ts', "import App from '../../renderer/src/App.svelte';", 'no-restricted-imports'],
    ['main/registry/x.ts', "import { app } from 'electron';", 'no-restricted-imports'],
    ['main/cache/x.ts', "import { app } from 'electron';", 'no-restricted-imports'],
    ['main/cache/x.ts', "import { migrate } from '../../service/db/migrate';", 'no-restricted-imports'],
    ['main/shell/x.ts', "import { startService } from '../../service/server';", 'no-restricted-imports'],
    ['main/index.ts', "import { startService } from '../service/server';", 'no-restricted-imports'],
    ['main/backend/backend.ts', "import { app } from 'electron';", 'no-restricted-imports'],
  ])('main inside: %s: %s is refused', async (file, code, rule) => {
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
    ['fleetconfig/x.ts', "import { parseFragments } from './refs';"],
    ['fleetconfig/x.test.ts', "import fc from 'fast-check';"],
    ['service/machines/x.ts', "import { resolveConfig } from '../../fleetconfig/resolve';"],
    ['main/machines/x.ts', "import { resolveConfig } from '../../fleetconfig';"],
    ['main/orgs/x.ts', "import { AppServiceClient } from '../../proto/gen/fleet/app/v1/app';"],
    ['renderer/src/main.ts', "import App from './App.svelte';"],
    ['service/x.ts', "import { startService } from './server';"],
    ['service/logs/x.ts', "import { partOf } from '../permissions/resources';"],
    ['service/logs/x.ts', "import type { CallContext } from '../rpc';"],
    ['service/logs/x.ts', "import { LogStore } from './store';"],
    ['service/logs/x.ts', "import { migrate } from '../db/migrate';"],
    ['service/orgs/x.ts', "import type { Organization } from '../../proto/gen/fleet/app/v1/orgs';"],
    ['service/permissions/x.ts', "import type { CallContext } from '../rpc';"],
    ['service/server.ts', "import { createOrgHandlers } from './orgs/handlers';"],
    ['service/demo.ts', "import { partFqdn } from './machines/store';"],
  ])('%s: %s is allowed', async (file, code) => {
    const ids = await ruleIds(file, code);
    expect(ids.filter((id) => id === 'no-restricted-imports')).toEqual([]);
  });

  it.each([
    ['main/orgs/x.ts', "import { getOrg } from './cache';"],
    ['main/orgs/x.ts', "import { readThrough } from '../backend/calls';"],
    ['main/orgs/x.ts', "import { cachedMetadataView } from '../backend/metadata';"],
    ['main/machines/x.ts', "import { listAllSummaries } from '../fleet/sync';"],
    ['main/logs/x.ts', "import type { CacheRunner } from '../connection/connection';"],
    ['main/registry/x.ts', "import { writeFileAtomic } from '../fs/atomic';"],
    ['main/registry/x.ts', "import { StagingError } from '../web/staging';"],
    ['main/orgs/x.test.ts', "import { cacheMigrations } from '../cache/migrations/index';"],
    ['main/cache/x.ts', "import { setUiState } from './ui-state';"],
    ['main/cache/x.ts', "import { fleetJobs } from '../fleet/jobs';"],
    ['main/fleet/x.ts', "import type { CacheRunner } from '../connection/connection';"],
    ['main/backend/backend.ts', "import { orgsHandlers } from '../orgs/handlers';"],
    ['main/cache/all-jobs.ts', "import { logsJobs } from '../logs/jobs';"],
    ['main/web.ts', "import { Backend } from './backend/backend';"],
    ['main/index.ts', "import { app } from 'electron';"],
    ['main/shell/x.ts', "import { app } from 'electron';"],
  ])('main inside: %s: %s is allowed', async (file, code) => {
    const ids = await ruleIds(file, code);
    expect(ids.filter((id) => id === 'no-restricted-imports')).toEqual([]);
  });

  // Renderer features are leaves on lib/; lib/ imports no feature; the composition root (the top of
  // renderer/src: App.svelte, app.svelte.ts) imports them all.
  it.each([
    ['renderer/src/features/training/x.ts', "import { RegistryStore } from '../registry/store.svelte';"],
    ['renderer/src/features/orgs/x.svelte', "<script lang=\"ts\">\n  import FleetTree from '../fleet/FleetTree.svelte';\n  console.log(FleetTree);\n</script>"],
    ['renderer/src/features/logs/deep/x.ts', "import { FleetSidebar } from '../../fleet/FleetSidebar.svelte';"],
    ['renderer/src/features/registry/x.ts', "import { TrainingStore } from '../../features/training/store.svelte';"],
    ['renderer/src/lib/ui/x.ts', "import { TrainingStore } from '../../features/training/store.svelte';"],
    ['renderer/src/lib/x.ts', "import { LogsStore } from '../features/logs/logs.svelte';"],
    // The blocks that carry the feature and kernel rules keep the renderer's layer rule too.
    ['renderer/src/features/logs/x.ts', "import { LogTails } from '../../../../main/logs/tails';"],
    ['renderer/src/features/registry/x.ts', "import { readFileSync } from 'node:fs';"],
    ['renderer/src/features/profiles/x.ts', "import { ipcRenderer } from 'electron';"],
    ['renderer/src/lib/state/x.ts', "import { readFileSync } from 'node:fs';"],
    ['renderer/src/lib/ui/x.ts', "import type { Organization } from '../../../../proto/gen/fleet/app/v1/orgs';"],
  ])('renderer inside: %s: %s is refused', async (file, code) => {
    expect(await ruleIds(file, code)).toContain('no-restricted-imports');
  });

  it.each([
    ['renderer/src/features/training/x.ts', "import { formatDuration } from '../../lib/format';"],
    ['renderer/src/features/training/x.ts', "import { jobLabel } from './labels';"],
    ['renderer/src/features/orgs/x.ts', "import { FleetStore } from '../../lib/fleet/fleet.svelte';"],
    ['renderer/src/features/fleet/x.ts', "import { Latest } from '../../lib/state/latest';"],
    ['renderer/src/features/logs/x.ts', "import type { LogLine } from '../../../../common/logs';"],
    ['renderer/src/lib/ui/x.ts', "import Icon from './Icon.svelte';"],
    ['renderer/src/lib/fleet/x.ts', "import { Notices } from '../state/notices.svelte';"],
    ['renderer/src/App.svelte', "<script lang=\"ts\">\n  import TrainingPane from './features/training/TrainingPane.svelte';\n  console.log(TrainingPane);\n</script>"],
    ['renderer/src/app.svelte.ts', "import { LogsStore } from './features/logs/logs.svelte';"],
  ])('renderer inside: %s: %s is allowed', async (file, code) => {
    const ids = await ruleIds(file, code);
    expect(ids.filter((id) => id === 'no-restricted-imports')).toEqual([]);
  });

  // Every feature folder is a leaf from its first file (the list is read from the disk).
  const rendererFeatures = readdirSync(join(repoRoot, 'renderer/src/features'), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
  it.each(rendererFeatures)('renderer/src/features/%s/ may not import another feature', async (feature) => {
    const other = feature === 'orgs' ? 'logs' : 'orgs';
    expect(await ruleIds(`renderer/src/features/${feature}/x.ts`, `import { x } from '../${other}/x';`)).toContain('no-restricted-imports');
  });

  // A new folder in main/ that is neither a domain nor kernel in eslint.config.js would escape both rules.
  const mainFolders = readdirSync(join(repoRoot, 'main'), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
  it.each(mainFolders)('main/%s/ is a domain or kernel: it may not import a domain', async (folder) => {
    const other = folder === 'orgs' ? 'logs' : 'orgs';
    expect(await ruleIds(`main/${folder}/x.ts`, `import { x } from '../${other}/x';`)).toContain('no-restricted-imports');
  });
});
