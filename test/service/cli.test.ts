// The CLI as the desktop app and people run it: a child process, one JSON line on stdout. The app
// runs it bundled (the tests too: test/helpers/entries.ts); people run its source through tsx
// (`npm run service`), which the first test does with tsx's loader (`node --import tsx`).
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { credentials } from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { AppServiceClient } from '../../proto/gen/fleet/app/v1/app';
import { AuthServiceClient } from '../../proto/gen/fleet/auth/v1/auth';
import { MLTrainingServiceClient, TrainingStatus } from '../../proto/gen/fleet/mltraining/v1/ml_training';
import { DEMO_ORGANIZATIONS } from '../../service/demo';
import { openDatabase } from '../../service/db/open';
import { RegistryFiles } from '../../service/registry/files';
import { CREDENTIALS_FILE, DATABASE_FILE } from '../../service/server';
import { serviceEntry } from '../helpers/entries';
import { bearer, call, tempDir } from './helpers';

const root = join(import.meta.dirname, '..', '..');
// Where a bad-flags run would put its data if it wrongly started: not the repo.
const nowhere = join(tmpdir(), 'fleet-cli-test-never-created');

interface Ready {
  address: string;
  org_id: string;
  api_key_id: string;
  api_key: string;
}

interface Cli {
  readonly child: ChildProcess;
  /** Everything written so far. */
  readonly out: { stdout: string; stderr: string };
  /** The first stdout line, parsed; rejects if the process exits first. */
  readonly ready: Promise<Ready>;
  readonly exited: Promise<number | null>;
}

const running: ChildProcess[] = [];
const dirs: (() => void)[] = [];
afterEach(() => {
  for (const child of running.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const remove of dirs.splice(0)) remove();
});

function newDataDir(): string {
  const dir = tempDir('fleet-cli-test-');
  dirs.push(dir.remove);
  return join(dir.path, 'data');
}

function cli(...args: string[]): Cli {
  return start(args);
}

/** The CLI from its source through tsx's loader, as `npm run service` (the tsx CLI) runs it. */
function cliFromSource(...args: string[]): Cli {
  return start(args, { node: ['--import', 'tsx', 'service/main.ts'] });
}

/** The CLI with `env` added to the environment. */
function cliWith(env: Record<string, string>, ...args: string[]): Cli {
  return start(args, { env });
}

/** `node` (the bundled entry unless given) with `args`; FLEET_SERVICE_TRAINING_SECONDS unset unless `env` sets it. */
function start(args: readonly string[], { env = {}, node = [serviceEntry] }: { env?: Record<string, string>; node?: readonly string[] } = {}): Cli {
  const child = spawn(process.execPath, [...node, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FLEET_SERVICE_TRAINING_SECONDS: '', ...env } });
  running.push(child);
  const out = { stdout: '', stderr: '' };
  // 'close', not 'exit': by then stdout and stderr are drained.
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const ready = new Promise<Ready>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      out.stdout += chunk.toString('utf8');
      const newline = out.stdout.indexOf('\n');
      // Runs that do not serve (--check, --help) print other lines: `ready` then rejects, and nobody awaits it.
      if (newline >= 0) {
        try {
          resolve(JSON.parse(out.stdout.slice(0, newline)) as Ready);
        } catch (e) {
          reject(e instanceof Error ? e : new Error(String(e)));
        }
      }
    });
    void exited.then((code) => reject(new Error(`the service exited (${code}) before it was ready:\n${out.stderr}`)));
  });
  child.stderr?.on('data', (chunk: Buffer) => (out.stderr += chunk.toString('utf8')));
  // Tests of bad flags never await `ready`; its rejection is expected there.
  ready.catch(() => undefined);
  return { child, out, ready, exited };
}

async function orgsVia(ready: Ready): Promise<{ id: string; name: string }[]> {
  const auth = new AuthServiceClient(ready.address, credentials.createInsecure());
  const app = new AppServiceClient(ready.address, credentials.createInsecure());
  try {
    const { accessToken } = await call(auth.authenticate.bind(auth), { entity: ready.api_key_id, credentials: { type: 'api-key', payload: ready.api_key } });
    return (await call(app.listOrganizations.bind(app), {}, bearer(accessToken))).organizations;
  } finally {
    auth.close();
    app.close();
  }
}

async function stop(c: Cli): Promise<number | null> {
  c.child.kill('SIGTERM');
  return c.exited;
}

describe('service/main.ts', () => {
  it('prints exactly one JSON line, serves on it, keeps secrets off stderr, and exits 0 on SIGTERM (run from its source, as `npm run service` does)', async () => {
    const dataDir = newDataDir();
    const c = cliFromSource('--listen', '127.0.0.1:0', '--data-dir', dataDir);
    const ready = await c.ready;
    expect(Object.keys(ready).sort()).toEqual(['address', 'api_key', 'api_key_id', 'org_id']);
    expect(ready.address).toMatch(/^127\.0\.0\.1:[1-9]\d*$/);

    const orgs = await orgsVia(ready);
    expect(orgs.map((o) => o.id)).toEqual([ready.org_id]);

    expect(await stop(c)).toBe(0);
    expect(c.out.stdout).toBe(`${JSON.stringify(ready)}\n`);
    expect(c.out.stderr).not.toContain(ready.api_key);
    expect(c.out.stderr).toContain('stopped');
  });

  it('creates the data dir 0700 and the credentials file 0600, holding the printed credentials', async () => {
    const dataDir = newDataDir();
    const c = cli('--listen', '127.0.0.1:0', '--data-dir', dataDir);
    const ready = await c.ready;
    const file = join(dataDir, CREDENTIALS_FILE);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ org_id: ready.org_id, api_key_id: ready.api_key_id, api_key: ready.api_key });
    expect(await stop(c)).toBe(0);
  });

  it('prints the same credentials for a reused data dir, also while another instance runs on it', async () => {
    const dataDir = newDataDir();
    const first = cli('--listen', '127.0.0.1:0', '--data-dir', dataDir);
    const a = await first.ready;
    const second = cli('--listen', '127.0.0.1:0', '--data-dir', dataDir);
    const b = await second.ready;
    expect({ ...b, address: '' }).toEqual({ ...a, address: '' });
    expect(b.address).not.toBe(a.address);
    expect(await orgsVia(b)).toEqual(await orgsVia(a));
    expect(await stop(first)).toBe(0);
    expect(await stop(second)).toBe(0);

    const third = cli('--listen', '127.0.0.1:0', '--data-dir', dataDir);
    expect({ ...(await third.ready), address: '' }).toEqual({ ...a, address: '' });
    expect(await stop(third)).toBe(0);
  });

  it('fills a new data dir with the demo fleet with --demo, printing its first organization', async () => {
    const c = cli('--listen', '127.0.0.1:0', '--data-dir', newDataDir(), '--demo');
    const ready = await c.ready;
    const orgs = await orgsVia(ready);
    expect(orgs.map((o) => o.name).sort()).toEqual(DEMO_ORGANIZATIONS.map((o) => o.name).sort());
    expect(orgs.length).toBeGreaterThanOrEqual(3);
    expect(orgs.find((o) => o.id === ready.org_id)?.name).toBe(DEMO_ORGANIZATIONS[0]?.name);
    expect(await stop(c)).toBe(0);
  });

  it('issues tokens with the --token-ttl lifetime', async () => {
    const c = cli('--listen', '127.0.0.1:0', '--data-dir', newDataDir(), '--token-ttl', '7');
    const ready = await c.ready;
    const auth = new AuthServiceClient(ready.address, credentials.createInsecure());
    const { accessToken } = await call(auth.authenticate.bind(auth), { entity: ready.api_key_id, credentials: { type: 'api-key', payload: ready.api_key } });
    auth.close();
    const claims = JSON.parse(Buffer.from(accessToken.split('.')[1] ?? '', 'base64url').toString('utf8')) as { iat: number; exp: number };
    expect(claims.exp - claims.iat).toBe(7);
    expect(await stop(c)).toBe(0);
    expect(c.out.stderr).not.toContain(accessToken);
  });

  it('runs training jobs for --training-seconds, or FLEET_SERVICE_TRAINING_SECONDS without the flag: the demo jobs finish in seconds', async () => {
    for (const [env, args] of [[{ FLEET_SERVICE_TRAINING_SECONDS: '1' }, []], [{ FLEET_SERVICE_TRAINING_SECONDS: 'not a number' }, ['--training-seconds', '0.5']]] as const) {
      const c = cliWith(env, '--listen', '127.0.0.1:0', '--data-dir', newDataDir(), '--demo', ...args);
      const ready = await c.ready;
      const auth = new AuthServiceClient(ready.address, credentials.createInsecure());
      const training = new MLTrainingServiceClient(ready.address, credentials.createInsecure());
      try {
        const { accessToken } = await call(auth.authenticate.bind(auth), { entity: ready.api_key_id, credentials: { type: 'api-key', payload: ready.api_key } });
        const deadline = Date.now() + 15_000;
        let active = -1;
        while (active !== 0 && Date.now() < deadline) {
          const { jobs } = await call(training.listTrainingJobs.bind(training), { orgId: ready.org_id, status: 0, pageSize: 0, pageToken: '' }, bearer(accessToken));
          active = jobs.filter((j) => j.status === TrainingStatus.TRAINING_STATUS_PENDING || j.status === TrainingStatus.TRAINING_STATUS_RUNNING).length;
          await new Promise((r) => setTimeout(r, 100));
        }
        expect(active).toBe(0);
      } finally {
        auth.close();
        training.close();
      }
      expect(await stop(c)).toBe(0);
    }
  });

  it('stops, exiting 0, when forked by a parent that then disconnects, as the desktop app forks it', async () => {
    const child = fork(serviceEntry, ['--listen', '127.0.0.1:0', '--data-dir', newDataDir()], {
      cwd: root,
      // Not the test worker's own flags, as the app's supervisor does not pass its own either.
      execArgv: [],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    running.push(child);
    // Not 'close': Node does not emit it for a child whose IPC channel the parent disconnected.
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const stderrEnded = new Promise((resolve) => child.stderr?.on('end', resolve));
    const line = await new Promise<string>((resolve, reject) => {
      let stdout = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('utf8');
        if (stdout.includes('\n')) resolve(stdout.slice(0, stdout.indexOf('\n')));
      });
      void exited.then(() => reject(new Error(`exited before it was ready:\n${stderr}`)));
    });
    expect(await orgsVia(JSON.parse(line) as Ready)).toHaveLength(1);
    child.disconnect();
    expect(await exited).toBe(0);
    await stderrEnded;
    expect(stderr).toMatch(/parent process disconnected: shutting down/);
  });

  it.runIf(process.platform !== 'win32')('stops when run as an Electron utility process whose app died (its parent pid changes)', async () => {
    // An intermediate parent starts the service as Electron would (process.parentPort set, no IPC),
    // prints the service's pid, and exits without stopping it: the service is re-parented.
    const logDir = tempDir('fleet-cli-orphan-');
    dirs.push(logDir.remove);
    const log = join(logDir.path, 'service.log');
    const script = `
      const { spawn } = require('node:child_process');
      const { openSync } = require('node:fs');
      const out = openSync(${JSON.stringify(log)}, 'a');
      const child = spawn(process.execPath, ['--import', 'data:text/javascript,process.parentPort={on(){}}', ${JSON.stringify(serviceEntry)}, '--listen', '127.0.0.1:0', '--data-dir', ${JSON.stringify(newDataDir())}], { cwd: ${JSON.stringify(root)}, stdio: ['ignore', out, out], detached: true });
      console.log(child.pid);
      setTimeout(() => process.exit(0), 3000);
    `;
    const parent = spawn(process.execPath, ['-e', script], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    const pid = Number(await new Promise<string>((resolve) => parent.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString()))));
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    try {
      await new Promise((resolve) => parent.once('exit', resolve));
      expect(alive()).toBe(true);
      const deadline = Date.now() + 10_000;
      while (alive() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(alive()).toBe(false);
      expect(readFileSync(log, 'utf8')).toMatch(/parent process exited: shutting down/);
    } finally {
      if (alive()) process.kill(pid, 'SIGKILL');
    }
  });

  it.each([
    [['--listen', '127.0.0.1:0', '--data-dir', nowhere, '--bogus'], /bogus/],
    [['--listen', '127.0.0.1:0'], /--data-dir is required/],
    [['--data-dir', nowhere], /--listen is required/],
    [['--listen', '127.0.0.1', '--data-dir', nowhere], /--listen must be HOST:PORT/],
    [['--listen', '127.0.0.1:70000', '--data-dir', nowhere], /--listen must be HOST:PORT/],
    [['--listen', '127.0.0.1:0', '--data-dir', nowhere, '--token-ttl', '0'], /--token-ttl must be a positive/],
    [['--listen', '127.0.0.1:0', '--data-dir', nowhere, 'stray'], /positional/],
    [['--listen', '127.0.0.1:0', '--data-dir', nowhere, '--demo-machines', '10'], /--demo-machines needs --demo/],
    [['--listen', '127.0.0.1:0', '--data-dir', nowhere, '--demo', '--demo-machines', 'lots'], /--demo-machines must be a whole number/],
    [['--listen', '127.0.0.1:0', '--data-dir', nowhere, '--log-rate', '0'], /--log-rate must be a whole number of lines a second from 1 to 1000000/],
    [['--listen', '127.0.0.1:0', '--data-dir', nowhere, '--log-rate', 'fast'], /--log-rate must be a whole number/],
    [['--listen', '127.0.0.1:0', '--data-dir', nowhere, '--training-seconds', '0'], /--training-seconds must be a number of seconds above 0/],
    [['--listen', '127.0.0.1:0', '--data-dir', nowhere, '--training-seconds', '1e3'], /--training-seconds must be a number/],
    [['--listen', '127.0.0.1:0', '--data-dir', nowhere, '--training-seconds', '86401'], /at most 86400/],
    [['--listen', '127.0.0.1:0', '--data-dir', nowhere, '--max-pending-jobs', '0'], /--max-pending-jobs must be a whole number of jobs from 1 to 1000000/],
    [['--listen', '127.0.0.1:0', '--data-dir', nowhere, '--max-pending-jobs', 'many'], /--max-pending-jobs must be a whole number/],
    [['--listen', '127.0.0.1:0', '--data-dir', nowhere, '--uploads-per-key', '0'], /--uploads-per-key must be a whole number of streams from 1 to 10000/],
    [['--listen', '127.0.0.1:0', '--data-dir', nowhere, '--upload-idle-seconds', 'soon'], /--upload-idle-seconds must be a whole number of seconds/],
    [['--check'], /--check needs --data-dir/],
    [['--add-user', 'ada@example.com'], /--add-user needs --data-dir/],
    [['--listen', '127.0.0.1:0', '--data-dir', nowhere, '--smtp', 'http://mail.example.com'], /--smtp must be an smtp:\/\/ or smtps:\/\/ URL/],
    [['FLEET_SERVICE_TRAINING_SECONDS=soon', '--listen', '127.0.0.1:0', '--data-dir', nowhere], /FLEET_SERVICE_TRAINING_SECONDS must be a number of seconds above 0/],
  ])('refuses %j with usage on stderr and exit code 2', async (args, why) => {
    // A leading NAME=value is put in the environment.
    const [first = '', ...rest] = args;
    const c = first.includes('=') ? cliWith(Object.fromEntries([first.split('=')]) as Record<string, string>, ...rest) : cli(...args);
    expect(await c.exited).toBe(2);
    expect(c.out.stdout).toBe('');
    expect(c.out.stderr).toMatch(why);
    expect(c.out.stderr).toContain('usage: fleet-service');
    expect(existsSync(nowhere)).toBe(false);
  });
});

describe('service/main.ts --check', () => {
  it('says the database and the disk agree on a sound data dir (exit 0), names every disagreement (exit 1), cannot check a dir without a database (exit 2), and the service logs the cheap part at start', async () => {
    const dataDir = newDataDir();
    const first = cli('--listen', '127.0.0.1:0', '--data-dir', dataDir, '--demo');
    await first.ready;
    expect(await stop(first)).toBe(0);
    const nothing = cli('--check', '--data-dir', newDataDir());
    expect(await nothing.exited).toBe(2);
    expect(nothing.out.stderr).toMatch(/cannot check: .* holds no fleet service database/);
    const sound = cli('--check', '--data-dir', dataDir);
    expect(await sound.exited).toBe(0);
    expect(sound.out.stdout).toMatch(/registry check: \d+ registry files \(sizes and SHA-256\) and 0 uploads checked: the database and the disk agree/);

    // Damage it the ways a disk or a hand can: a file gone, a file with other bytes of the same size, bytes no row lists, a .part no upload names.
    const db = openDatabase(join(dataDir, DATABASE_FILE));
    const rows = db.prepare('SELECT item_id, version, platform FROM registry_files ORDER BY item_id, version, platform LIMIT 2').all() as { item_id: string; version: string; platform: string }[];
    db.close();
    const files = new RegistryFiles(dataDir);
    const [gone, changed] = rows.map((r) => files.path(r.item_id, r.version, r.platform));
    rmSync(gone!);
    const bytes = readFileSync(changed!);
    bytes[0] = bytes[0]! ^ 0xff;
    writeFileSync(changed!, bytes);
    writeFileSync(join(dirname(changed!), 'stray-platform'), 'stray');
    mkdirSync(join(dataDir, 'registry', 'uploads'), { recursive: true });
    writeFileSync(join(dataDir, 'registry', 'uploads', 'nobody_1.0.0_linux-any.part'), 'half');

    const damaged = cli('--check', '--data-dir', dataDir);
    expect(await damaged.exited).toBe(1);
    expect(damaged.out.stdout).toMatch(/: 4 problems/);
    expect(damaged.out.stdout).toMatch(/file-missing: registry\/files\/.*: version .* is listed, but its file is missing/);
    expect(damaged.out.stdout).toMatch(/file-sha256: registry\/files\/.*hashes to [0-9a-f]{64}/);
    expect(damaged.out.stdout).toMatch(/file-unrecorded: registry\/files\/.*stray-platform/);
    expect(damaged.out.stdout).toMatch(/part-unrecorded: registry\/uploads\/nobody_1.0.0_linux-any.part/);

    // At start the service checks sizes only (no hashing): the missing file is logged; the changed bytes of the same size are --check's to find.
    const again = cli('--listen', '127.0.0.1:0', '--data-dir', dataDir);
    await again.ready;
    expect(again.out.stderr).toMatch(/registry check: \d+ registry files \(sizes\) and 0 uploads checked: 2 problems/);
    expect(again.out.stderr).toMatch(/file-missing: /);
    expect(again.out.stderr).toMatch(/file-unrecorded: /);
    expect(await stop(again)).toBe(0);
  }, 60_000);
});

describe('service/main.ts --add-user', () => {
  it('makes a user on a data dir in use and prints their key once, which signs in at once; refuses a bad email and a data dir never set up (exit 2)', async () => {
    const dataDir = newDataDir();
    const never = cli('--add-user', 'ada@example.com', '--data-dir', dataDir);
    expect(await never.exited).toBe(2);
    expect(never.out.stderr).toMatch(/start the service on it once first/);
    expect(existsSync(dataDir)).toBe(false);

    const c = cli('--listen', '127.0.0.1:0', '--data-dir', dataDir);
    const ready = await c.ready;
    const added = cli('--add-user', 'Ada@Example.com', '--user-name', 'Ada', '--data-dir', dataDir);
    expect(await added.exited).toBe(0);
    const printed = JSON.parse(added.out.stdout) as { user_id: string; api_key_id: string; api_key: string };
    expect(Object.keys(printed).sort()).toEqual(['api_key', 'api_key_id', 'user_id']);
    expect(added.out.stderr).not.toContain(printed.api_key);
    // Signs in; holds no role yet, so it sees no organization.
    expect(await orgsVia({ ...ready, api_key_id: printed.api_key_id, api_key: printed.api_key })).toEqual([]);

    const bad = cli('--add-user', 'not an email', '--data-dir', dataDir);
    expect(await bad.exited).toBe(2);
    expect(bad.out.stdout).toBe('');
    expect(bad.out.stderr).toMatch(/cannot add the user: --add-user must be an email address/);
    expect(await stop(c)).toBe(0);
    const db = openDatabase(join(dataDir, DATABASE_FILE));
    try {
      expect(db.prepare('SELECT email, display_name FROM users').all()).toEqual([{ email: 'ada@example.com', display_name: 'Ada' }]);
    } finally {
      db.close();
    }
  });
});
