import { createLogHandlers } from './logs/handlers';
import { LogFeed } from './logs/feed';
import { LogStore } from './logs/store';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import type Database from 'better-sqlite3';
import { AppServiceService } from '../proto/gen/fleet/app/v1/app';
import { AuthServiceService } from '../proto/gen/fleet/auth/v1/auth';
import { MLTrainingServiceService } from '../proto/gen/fleet/mltraining/v1/ml_training';
import { createGuard } from './auth/guard';
import { createAuthHandlers } from './auth/handlers';
import { ApiKeyStore } from './auth/keys';
import { DEFAULT_TOKEN_TTL_SECONDS, loadSigningSecret, TokenService } from './auth/tokens';
import { ensureBootstrap, type BootstrapCredentials } from './bootstrap';
import { migrate } from './db/migrate';
import { serviceMigrations } from './db/migrations';
import { openDatabase } from './db/open';
import { Access } from './access/access';
import { appRules, trainingRules } from './access/rules';
import { createLocationHandlers } from './locations/handlers';
import { LocationStore } from './locations/store';
import { createMachineHandlers } from './machines/handlers';
import { startSimulator } from './machines/simulator';
import { MachineStore } from './machines/store';
import { createOrgHandlers } from './orgs/handlers';
import { PageTokens } from './paging';
import { addHealthAndReflection } from './reflection';
import { OrgStore } from './orgs/store';
import { addService } from './rpc';
import { RegistryFiles } from './registry/files';
import { createRegistryHandlers, sweepUploads } from './registry/handlers';
import { RegistryStore } from './registry/store';
import { createTrainingHandlers } from './training/handlers';
import { TrainingRunner, trainingTiming } from './training/runner';
import { TrainingStore } from './training/store';

export { CREDENTIALS_FILE, type BootstrapCredentials } from './bootstrap';

/** The service's SQLite database, inside the data dir. */
export const DATABASE_FILE = 'fleet.db';
/** How long close() lets calls in flight finish before cutting them off. */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 5_000;

/** How to run the service. */
export interface ServiceOptions {
  /** `host:port` to listen on; port 0 takes a free port (see {@link RunningService.address}). */
  readonly listen: string;
  /** Where the database and the bootstrap credentials live; created (mode 0700) if missing. */
  readonly dataDir: string;
  /** Set a new data dir up with the demo fleet instead of a single organization. Ignored for a data dir already set up. */
  readonly demo?: boolean;
  /** With `demo`: an extra organization of this many machines (benchmarks). */
  readonly demoMachines?: number;
  /** Run the liveness simulation of demo parts (default true; tests that drive it themselves turn it off). */
  readonly simulate?: boolean;
  /** (Benchmarks) the demo fleet's live parts log this many lines a second in all, instead of each at its own rate. */
  readonly logRate?: number;
  /** Lifetime of access tokens, in whole seconds; default {@link DEFAULT_TOKEN_TTL_SECONDS}. */
  readonly tokenTtlSeconds?: number;
  /** How long close() waits for calls in flight; default {@link DEFAULT_SHUTDOWN_TIMEOUT_MS}. */
  readonly shutdownTimeoutMs?: number;
  /** (Tests) how often a log tail checks that its key and part still exist; default 10 s. */
  readonly tailCheckMs?: number;
  /** Where log lines go; default stderr. Never given keys or tokens. */
  readonly log?: (line: string) => void;
  /**
   * Base of the urls the registry answers (module pages, file downloads), without a trailing slash;
   * default `http://<listen address>`. This service serves no downloads itself: a deployment puts
   * a file server there (docs/PROTOCOL.md section 11).
   */
  readonly publicUrl?: string;
  /**
   * ML training's pace (docs/PROTOCOL.md, "ML training"): how long a job runs (`runMs`, default
   * 120 s), how long it stays PENDING at least (`pendingMs`, default 3 s or half a run when runs are
   * shorter), and how often the runner advances jobs (`tickMs`, default a twentieth of a run, 20 ms
   * to 1 s).
   */
  readonly training?: { readonly runMs?: number; readonly pendingMs?: number; readonly tickMs?: number };
}

/** A service that is serving. */
export interface RunningService {
  /** The bound `host:port`, with the real port. */
  readonly address: string;
  /** The data dir's organization and owner API key. */
  readonly bootstrap: BootstrapCredentials;
  /** Stop serving (letting calls in flight finish, up to the shutdown timeout) and close the database. Safe to call twice. */
  close(): Promise<void>;
}

function stderrLog(line: string): void {
  process.stderr.write(`[fleet-service] ${line}\n`);
}

/**
 * Start the fleet service: open (and migrate) the data dir's database, set the data dir up if it
 * is new, and serve AuthService and AppService (plus every other generated service) on `listen`.
 * Resolves once the port is bound. Rejects, having released everything, if any of that fails.
 */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  const log = options.log ?? stderrLog;
  const ttl = options.tokenTtlSeconds ?? DEFAULT_TOKEN_TTL_SECONDS;
  if (!Number.isSafeInteger(ttl) || ttl <= 0) throw new Error(`tokenTtlSeconds must be a positive whole number of seconds, not ${ttl}`);

  const timing = trainingTiming(options.training);

  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const db = openDatabase(join(options.dataDir, DATABASE_FILE));
  const server = new Server();
  let runner: TrainingRunner | undefined;
  try {
    const { from, to } = migrate(db, serviceMigrations);
    if (from !== to) log(`database schema migrated from version ${from} to ${to}`);
    const expired = new LogStore(db).sweep(Date.now() * 1000);
    if (expired > 0) log(`dropped ${expired} log entries older than the retention bound`);
    const bootstrap = await ensureBootstrap(db, options.dataDir, { demo: options.demo ?? false, demoMachines: options.demoMachines, log });
    const streams = new AbortController();
    // The default base url names the bound port, known only once bound (after the services are added).
    let address = options.listen;
    const registry = { store: new RegistryStore(db, () => (options.publicUrl ?? `http://${address}`).replace(/\/+$/, '')), files: new RegistryFiles(options.dataDir) };
    const swept = await sweepUploads(registry.store, registry.files);
    if (swept > 0) log(`dropped ${swept} interrupted uploads nobody continued`);
    // Interrupted uploads are kept a day; swept hourly.
    const sweeper = setInterval(() => void sweepUploads(registry.store, registry.files).catch((e: unknown) => log(`sweeping uploads failed: ${String(e)}`)), 3_600_000);
    sweeper.unref();
    const feed = register(server, db, ttl, log, streams.signal, registry, options.tailCheckMs);
    // Resumes the jobs a previous run left (their state is in their rows) before anyone can ask.
    const jobs = new TrainingRunner(db, registry.files, log, timing);
    runner = jobs;
    jobs.start();
    const simulator = startSimulator(db, log, { autoStart: options.simulate ?? true, logRate: options.logRate });
    const port = await bind(server, options.listen);
    address = `${options.listen.slice(0, options.listen.lastIndexOf(':'))}:${port}`;
    log(`serving on ${address} (data dir ${options.dataDir})`);

    let closing: Promise<void> | undefined;
    const close = () => {
      // Streams have no end of their own: end them (UNAVAILABLE, reconnect) so the shutdown can finish.
      streams.abort();
      return (closing ??= shutdown(server, options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS).then(() => {
        feed.stop();
        simulator.stop();
        jobs.stop();
        clearInterval(sweeper);
        db.close();
        log('stopped');
      }));
    };
    return { address, bootstrap, close };
  } catch (e) {
    runner?.stop();
    server.forceShutdown();
    db.close();
    throw e;
  }
}

/** Every service of the wire contract, plus the standard health and reflection services. */
function register(
  server: Server,
  db: Database.Database,
  ttl: number,
  log: (line: string) => void,
  closing: AbortSignal,
  registry: { store: RegistryStore; files: RegistryFiles },
  tailCheckMs?: number,
): LogFeed {
  const keys = new ApiKeyStore(db);
  const signingSecret = loadSigningSecret(db);
  const tokens = new TokenService(signingSecret, ttl);
  const guard = createGuard(tokens, keys);
  const access = new Access(db);
  const pages = new PageTokens(signingSecret);
  const locations = new LocationStore(db);
  const logs = new LogStore(db);
  const feed = new LogFeed(logs, log);
  addService(server, AuthServiceService, { public: createAuthHandlers(keys, tokens) }, guard, log);
  addService(
    server,
    AppServiceService,
    {
      authenticated: {
        ...createOrgHandlers(new OrgStore(db)),
        ...createLocationHandlers(locations, access, pages),
        ...createMachineHandlers(new MachineStore(db), locations, access, pages),
        ...createLogHandlers(logs, pages, { feed, keyActive: (id) => keys.isActive(id), closing, checkMs: tailCheckMs }),
        ...createRegistryHandlers(registry.store, registry.files, access, pages, { orgExists: (id) => db.prepare('SELECT 1 FROM organizations WHERE id = ?').get(id) !== undefined }),
      },
    },
    guard,
    log,
    { rules: appRules, access },
  );
  addService(server, MLTrainingServiceService, { authenticated: createTrainingHandlers(new TrainingStore(db), access, pages) }, guard, log, { rules: trainingRules, access });
  // Health and reflection need no token, like their usual deployments: probes and tools such as
  // grpcurl, `buf curl` and grpc_health_probe use them before they have any credentials.
  addHealthAndReflection(server);
  return feed;
}

function bind(server: Server, listen: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(listen, ServerCredentials.createInsecure(), (error, port) => (error ? reject(new Error(`cannot listen on ${listen}: ${error.message}`, { cause: error })) : resolve(port)));
  });
}

function shutdown(server: Server, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, timeoutMs);
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
