// Composition code: setting a data dir up touches every domain (access, orgs, the demo's registry and training).
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { Authorizations } from './access/authorizations';
import { ApiKeyStore } from './access/keys';
import { seedDemoFleet } from './demo';
import { seedDemoRegistry } from './registry/demo';
import { RegistryFiles } from './registry/files';
import { ModelShelf } from './registry/models';
import { seedDemoTraining } from './training/demo';
import type { ErrorLog } from './errors';
import { OrgStore } from './orgs/store';

/** The file in the data dir that keeps the bootstrap credentials (mode 0600): the only copy of the key's secret. */
export const CREDENTIALS_FILE = 'bootstrap-credentials.json';
/** The organization a new data dir starts with, unless it gets the demo fleet. */
export const DEFAULT_ORG_NAME = 'Local Fleet';

/** The organization and owner API key a data dir was set up with. */
export interface BootstrapCredentials {
  readonly orgId: string;
  readonly apiKeyId: string;
  readonly apiKey: string;
}

/** The credentials as written to the file and printed by the CLI: snake_case, like the wire. */
export function credentialsJson(c: BootstrapCredentials): { org_id: string; api_key_id: string; api_key: string } {
  return { org_id: c.orgId, api_key_id: c.apiKeyId, api_key: c.apiKey };
}

/**
 * The data dir's bootstrap credentials. A data dir whose database holds no API key yet is new: it
 * gets an owner key and either one organization or, with `demo`, the demo fleet. Any other data
 * dir answers with what its credentials file says.
 *
 * The file is written inside the transaction that stores the key, before the commit: if the
 * process dies in between, the database is still new and the next start sets it up again,
 * overwriting the file, so the file can never be missing for a set-up database through a crash.
 * The IMMEDIATE transaction re-checks that the database is new, so of two processes starting on
 * the same new data dir only one sets it up and the other reads its file.
 */
export async function ensureBootstrap(
  db: Database.Database,
  dataDir: string,
  options: { readonly demo: boolean; readonly demoMachines?: number; readonly demoLogHistory?: boolean; readonly log: ErrorLog },
): Promise<BootstrapCredentials> {
  const keys = new ApiKeyStore(db);
  const file = join(dataDir, CREDENTIALS_FILE);
  if (keys.count() === 0) {
    const key = keys.prepare('bootstrap');
    const orgs = new OrgStore(db, new Authorizations(db));
    const created = db
      .transaction((): BootstrapCredentials | undefined => {
        if (keys.count() > 0) return undefined;
        keys.insert(key);
        const owner = { type: '', id: key.id } as const;
        const made = options.demo ? seedDemoFleet(db, orgs, owner, { machines: options.demoMachines, logHistory: options.demoLogHistory }) : [orgs.create(DEFAULT_ORG_NAME, owner)];
        if (options.demo) {
          const files = new RegistryFiles(dataDir);
          const now = new Date();
          seedDemoRegistry(db, files, made, now);
          seedDemoTraining(db, new ModelShelf(db, files), made, now);
        }
        const [first] = made;
        if (first === undefined) throw new Error('the demo fleet has no organization');
        const credentials = { orgId: first.id, apiKeyId: key.id, apiKey: key.secret };
        writePrivateFile(file, `${JSON.stringify(credentialsJson(credentials), null, 2)}\n`);
        return credentials;
      })
      .immediate();
    if (created !== undefined) {
      options.log(`set up new data dir ${dataDir}${options.demo ? ' with the demo fleet' : ''}; bootstrap credentials are in ${file}`);
      return created;
    }
  } else if (options.demo) {
    options.log(`--demo ignored: data dir ${dataDir} is already set up`);
  }

  const credentials = readCredentials(file);
  if ((await keys.verify(credentials.apiKeyId, credentials.apiKey)) === null) {
    options.log(`warning: the bootstrap API key in ${file} no longer authenticates (deleted or replaced)`);
  }
  return credentials;
}

function readCredentials(file: string): BootstrapCredentials {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(
      `the data dir is set up but its credentials file ${file} cannot be read (${e instanceof Error ? e.message : String(e)}); restore it, or start with a new data dir`,
      { cause: e },
    );
  }
  const fields = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  const { org_id: orgId, api_key_id: apiKeyId, api_key: apiKey } = fields;
  if (typeof orgId !== 'string' || typeof apiKeyId !== 'string' || typeof apiKey !== 'string') {
    throw new Error(`the credentials file ${file} lacks org_id, api_key_id or api_key; restore it, or start with a new data dir`);
  }
  return { orgId, apiKeyId, apiKey };
}

/**
 * Replace `path` with `text`, readable by its owner only. The file is created with mode 0600
 * (never chmod'ed afterwards, which would leave a window) under a temporary name, flushed, then
 * renamed over the old one, so a reader sees the old file or the new one, never half of one.
 */
function writePrivateFile(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  // Left behind by a process that died here, maybe with our pid (containers reuse pids).
  rmSync(temporary, { force: true });
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (e) {
    rmSync(temporary, { force: true });
    throw e;
  }
}
