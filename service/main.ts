// The fleet service as a program: `tsx service/main.ts` in development, out/main/service.js when
// bundled and forked by the desktop app. stdout carries exactly one line, the JSON that says where
// the service listens and with which credentials; everything else goes to stderr.
import { parseArgs } from 'node:util';
import { credentialsJson } from './bootstrap';
import { describeCheck } from './registry/check';
import { DEFAULT_UPLOAD_LIMITS } from './registry/handlers';
import { addUser, checkDataDir, startService, type RunningService, type ServiceOptions } from './server';
import { DEFAULT_MAX_PENDING_JOBS } from './training/store';

/** Read when --training-seconds is not given: the desktop app forks us with its environment, so end-to-end tests shorten jobs through it. */
const TRAINING_SECONDS_ENV = 'FLEET_SERVICE_TRAINING_SECONDS';
/** Longest training run accepted: a day. */
const MAX_TRAINING_SECONDS = 86_400;
/** Highest --max-pending-jobs accepted: a bound on what one organization can make every tick and listing carry. */
const MAX_PENDING_JOBS_LIMIT = 1_000_000;

const USAGE = `usage: fleet-service --listen HOST:PORT --data-dir DIR [--demo [--demo-machines N]] [--log-rate N] [--token-ttl SECONDS] [--public-url URL] [--training-seconds N] [--max-pending-jobs N] [--upload-idle-seconds N] [--uploads-per-key N] [--uploads-total N] [--smtp URL [--mail-from ADDRESS]]
       fleet-service --check --data-dir DIR
       fleet-service --add-user EMAIL [--user-name NAME] --data-dir DIR

  --listen HOST:PORT     address to serve gRPC on; port 0 takes a free port
  --data-dir DIR         database and bootstrap credentials; created if missing
  --demo                 set a new data dir up with a demo fleet
  --demo-machines N      (benchmarks) add an organization of N more machines to the demo fleet
  --log-rate N           (benchmarks) the demo fleet's live parts log N lines a second in all
  --token-ttl SECONDS    lifetime of access tokens (default 3600)
  --public-url URL       base of the registry's module and download urls (default http://HOST:PORT)
  --training-seconds N   how long an ML training job runs (default 120; fractions allowed);
                         without the flag, the environment's ${TRAINING_SECONDS_ENV} if set
  --max-pending-jobs N   most PENDING training jobs per organization (default ${DEFAULT_MAX_PENDING_JOBS});
                         a submission past it is RESOURCE_EXHAUSTED (TRAINING_QUEUE_FULL)
  --upload-idle-seconds N  an upload stream that sends nothing this long ends ABORTED (UPLOAD_IDLE),
                         its bytes kept for a resume (default ${DEFAULT_UPLOAD_LIMITS.idleMs / 1000})
  --uploads-per-key N    upload streams one API key may have open at once (default ${DEFAULT_UPLOAD_LIMITS.perKey})
  --uploads-total N      upload streams the service takes at once (default ${DEFAULT_UPLOAD_LIMITS.total})
  --smtp URL             send invite mail through this SMTP server (smtp://[user:pass@]host[:port]
                         or smtps://…); without it each mail is written to DIR/outbox/ and logged
  --mail-from ADDRESS    the From of invite mail (default "Fleet Desk <fleet-desk@localhost>")
  --add-user EMAIL       make a user with this email (or, if there is one, a new key of theirs),
                         print {"user_id","api_key_id","api_key"} once and exit; --user-name NAME
                         sets a new user's display name (default: the part of EMAIL before the @)
  --check                check the data dir instead of serving: every registry file row against
                         its file (present, size, SHA-256) and every upload's .part against its
                         row; prints what it found, exits 0 when all agree, 1 when not, 2 when
                         it cannot check (no database there, or one of another schema version)

When ready, prints one JSON line on stdout:
  {"address":"HOST:PORT","org_id":"…","api_key_id":"…","api_key":"…"}
A second instance may share a data dir (SQLite WAL with a busy timeout), though one is the norm.`;

class UsageError extends Error {}


/** A whole-number flag from 1 to `max`, or undefined when absent. */
function count(values: Record<string, unknown>, name: string, max: number, what: string): number | undefined {
  const text = values[name];
  if (text === undefined) return undefined;
  const value = typeof text === 'string' && /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(value >= 1 && value <= max)) throw new UsageError(`--${name} must be a whole number of ${what} from 1 to ${max}, not "${String(text)}"`);
  return value;
}

function parseOptions(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): ServiceOptions | 'help' | { readonly check: string } | { readonly addUser: string; readonly name?: string; readonly dataDir: string } {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        listen: { type: 'string' },
        'data-dir': { type: 'string' },
        demo: { type: 'boolean', default: false },
        'demo-machines': { type: 'string' },
        'log-rate': { type: 'string' },
        'token-ttl': { type: 'string' },
        'public-url': { type: 'string' },
        'training-seconds': { type: 'string' },
        'max-pending-jobs': { type: 'string' },
        'upload-idle-seconds': { type: 'string' },
        'uploads-per-key': { type: 'string' },
        'uploads-total': { type: 'string' },
        check: { type: 'boolean', default: false },
        smtp: { type: 'string' },
        'mail-from': { type: 'string' },
        'add-user': { type: 'string' },
        'user-name': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
  if (values.help) return 'help';
  const { listen, 'data-dir': dataDir, 'token-ttl': ttlText } = values;
  if (values.check) {
    if (dataDir === undefined || dataDir === '') throw new UsageError('--check needs --data-dir');
    return { check: dataDir };
  }
  if (values['add-user'] !== undefined) {
    if (dataDir === undefined || dataDir === '') throw new UsageError('--add-user needs --data-dir');
    return { addUser: values['add-user'], name: values['user-name'], dataDir };
  }
  const smtp = values.smtp;
  if (smtp !== undefined && !/^smtps?:\/\/[^\s/]+\/?(\?\S*)?$/.test(smtp)) throw new UsageError('--smtp must be an smtp:// or smtps:// URL such as smtp://mail.example.com:587');
  const from = values['mail-from'];
  if (from !== undefined && (from.trim() === '' || /[\r\n]/.test(from))) throw new UsageError('--mail-from must be one address, such as "Fleet Desk <fleet@example.com>"');
  if (listen === undefined) throw new UsageError('--listen is required');
  const port = /^(?:\[[0-9a-fA-F:.]+\]|[^\s:[\]]+):(\d{1,5})$/.exec(listen)?.[1];
  if (port === undefined || Number(port) > 65535) throw new UsageError(`--listen must be HOST:PORT with a port from 0 to 65535, not "${listen}"`);
  if (dataDir === undefined || dataDir === '') throw new UsageError('--data-dir is required');
  let tokenTtlSeconds: number | undefined;
  if (ttlText !== undefined) {
    tokenTtlSeconds = /^\d+$/.test(ttlText) ? Number(ttlText) : NaN;
    if (!Number.isSafeInteger(tokenTtlSeconds) || tokenTtlSeconds <= 0) throw new UsageError(`--token-ttl must be a positive whole number of seconds, not "${ttlText}"`);
  }
  let demoMachines: number | undefined;
  const machinesText = values['demo-machines'];
  if (machinesText !== undefined) {
    demoMachines = /^\d+$/.test(machinesText) ? Number(machinesText) : NaN;
    if (!Number.isSafeInteger(demoMachines) || demoMachines > 1_000_000) throw new UsageError(`--demo-machines must be a whole number up to 1000000, not "${machinesText}"`);
    if (!values.demo) throw new UsageError('--demo-machines needs --demo');
  }
  let logRate: number | undefined;
  const rateText = values['log-rate'];
  if (rateText !== undefined) {
    logRate = /^\d+$/.test(rateText) ? Number(rateText) : NaN;
    if (!Number.isSafeInteger(logRate) || logRate <= 0 || logRate > 1_000_000) throw new UsageError(`--log-rate must be a whole number of lines a second from 1 to 1000000, not "${rateText}"`);
  }
  const publicUrl = values['public-url'];
  if (publicUrl !== undefined && !/^https?:\/\/[^\s/]+(\/\S*)?$/.test(publicUrl)) throw new UsageError(`--public-url must be an absolute http(s) URL, not "${publicUrl}"`);
  const flag = values['training-seconds'];
  const seconds = flag ?? (env[TRAINING_SECONDS_ENV] === '' ? undefined : env[TRAINING_SECONDS_ENV]);
  let training: ServiceOptions['training'];
  if (seconds !== undefined) {
    const value = /^\d+(\.\d+)?$/.test(seconds) ? Number(seconds) : NaN;
    const source = flag !== undefined ? '--training-seconds' : TRAINING_SECONDS_ENV;
    if (!(value > 0 && value <= MAX_TRAINING_SECONDS)) throw new UsageError(`${source} must be a number of seconds above 0 and at most ${MAX_TRAINING_SECONDS}, not "${seconds}"`);
    training = { runMs: Math.max(1, Math.round(value * 1000)) };
  }
  const maxPendingJobs = count(values, 'max-pending-jobs', MAX_PENDING_JOBS_LIMIT, 'jobs');
  if (maxPendingJobs !== undefined) training = { ...training, maxPendingJobs };
  const idleSeconds = count(values, 'upload-idle-seconds', 86_400, 'seconds');
  const perKey = count(values, 'uploads-per-key', 10_000, 'streams');
  const total = count(values, 'uploads-total', 100_000, 'streams');
  const uploads = { ...(idleSeconds !== undefined && { idleMs: idleSeconds * 1000 }), ...(perKey !== undefined && { perKey }), ...(total !== undefined && { total }) };
  const mail = { ...(smtp !== undefined && { smtp }), ...(from !== undefined && { from }) };
  return { listen, dataDir, demo: values.demo, demoMachines, logRate, tokenTtlSeconds, publicUrl, training, uploads, mail };
}

function fail(message: string): void {
  process.stderr.write(`[fleet-service] ${message}\n`);
}

/** Stop on SIGTERM/SIGINT, and when a parent that forked us goes away, so no orphan keeps the port and database. */
function stopOnSignals(service: RunningService): void {
  let stopping = false;
  const stop = (why: string) => {
    if (stopping) return;
    stopping = true;
    fail(`${why}: shutting down`);
    service.close().then(
      () => process.exit(0),
      (e: unknown) => {
        fail(`shutdown failed: ${e instanceof Error ? e.message : String(e)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  if (process.send !== undefined) process.on('disconnect', () => stop('parent process disconnected'));
  // In an Electron utility process (the desktop app's way to run us) there is no IPC channel to
  // lose, only `process.parentPort`. Should the app die without stopping us, we are re-parented:
  // the parent pid changes. A slow poll is enough for a backstop.
  if ('parentPort' in process && process.platform !== 'win32') {
    const parent = process.ppid;
    setInterval(() => {
      if (process.ppid !== parent) stop('parent process exited');
    }, PARENT_POLL_MS).unref();
  }
}

/** How often a service in a utility process checks that the app that started it still runs. */
const PARENT_POLL_MS = 2_000;

async function main(): Promise<void> {
  let options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    fail(e.message);
    process.stderr.write(`${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  if (options === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if ('addUser' in options) {
    try {
      const added = addUser(options.dataDir, options.addUser, options.name);
      process.stdout.write(`${JSON.stringify({ user_id: added.userId, api_key_id: added.apiKeyId, api_key: added.apiKey })}\n`);
    } catch (e) {
      fail(`cannot add the user: ${e instanceof Error ? e.message : String(e)}`);
      process.exitCode = 2;
    }
    return;
  }
  if ('check' in options) {
    let check;
    try {
      check = await checkDataDir(options.check);
    } catch (e) {
      // Not "problems found" (1): the check could not run (2), like a usage error.
      fail(`cannot check: ${e instanceof Error ? e.message : String(e)}`);
      process.exitCode = 2;
      return;
    }
    process.stdout.write(`${describeCheck(check).join('\n')}\n`);
    process.exitCode = check.findings.length === 0 ? 0 : 1;
    return;
  }
  const service = await startService(options);
  stopOnSignals(service);
  process.stdout.write(`${JSON.stringify({ address: service.address, ...credentialsJson(service.bootstrap) })}\n`);
}

main().catch((e: unknown) => {
  fail(`cannot start: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
