// The fleet service as a program: `tsx service/main.ts` in development, out/main/service.js when
// bundled and forked by the desktop app. stdout carries exactly one line, the JSON that says where
// the service listens and with which credentials; everything else goes to stderr.
import { parseArgs } from 'node:util';
import { credentialsJson } from './bootstrap';
import { startService, type RunningService, type ServiceOptions } from './server';

/** Read when --training-seconds is not given: the desktop app forks us with its environment, so end-to-end tests shorten jobs through it. */
const TRAINING_SECONDS_ENV = 'FLEET_SERVICE_TRAINING_SECONDS';
/** Longest training run accepted: a day. */
const MAX_TRAINING_SECONDS = 86_400;

const USAGE = `usage: fleet-service --listen HOST:PORT --data-dir DIR [--demo [--demo-machines N]] [--log-rate N] [--token-ttl SECONDS] [--public-url URL] [--training-seconds N]

  --listen HOST:PORT     address to serve gRPC on; port 0 takes a free port
  --data-dir DIR         database and bootstrap credentials; created if missing
  --demo                 set a new data dir up with a demo fleet
  --demo-machines N      (benchmarks) add an organization of N more machines to the demo fleet
  --log-rate N           (benchmarks) the demo fleet's live parts log N lines a second in all
  --token-ttl SECONDS    lifetime of access tokens (default 3600)
  --public-url URL       base of the registry's module and download urls (default http://HOST:PORT)
  --training-seconds N   how long an ML training job runs (default 120; fractions allowed);
                         without the flag, the environment's ${TRAINING_SECONDS_ENV} if set

When ready, prints one JSON line on stdout:
  {"address":"HOST:PORT","org_id":"…","api_key_id":"…","api_key":"…"}
A second instance may share a data dir (SQLite WAL with a busy timeout), though one is the norm.`;

class UsageError extends Error {}


function parseOptions(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): ServiceOptions | 'help' {
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
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
  if (values.help) return 'help';
  const { listen, 'data-dir': dataDir, 'token-ttl': ttlText } = values;
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
  return { listen, dataDir, demo: values.demo, demoMachines, logRate, tokenTtlSeconds, publicUrl, training };
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
  const service = await startService(options);
  stopOnSignals(service);
  process.stdout.write(`${JSON.stringify({ address: service.address, ...credentialsJson(service.bootstrap) })}\n`);
}

main().catch((e: unknown) => {
  fail(`cannot start: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
