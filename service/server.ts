/**
 * The composition root of the service: the one file (with main.ts, bootstrap.ts, demo.ts and
 * simulator.ts) that knows every domain. Each domain is a leaf that imports only the kernel (rpc.ts,
 * errors.ts, paging.ts, validate.ts, reflection.ts, tar.ts, permissions/, db/); what one domain needs of
 * another is handed in here, and each domain's permission rows are merged here into one table per
 * service, the way common/channels.ts merges the bridge's channels.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import Database from 'better-sqlite3';
import { AppServiceService } from '../proto/gen/fleet/app/v1/app';
import { AuthServiceService } from '../proto/gen/fleet/auth/v1/auth';
import { MLTrainingServiceService } from '../proto/gen/fleet/mltraining/v1/ml_training';
import { Authorizations } from './access/authorizations';
import { createKeyHandlers } from './access/key-handlers';
import { keyRules } from './access/key-rules';
import { ApiKeyStore } from './access/keys';
import { InviteStore } from './access/invites';
import { createMailer, type MailOptions, type Mailer } from './access/mail';
import { createAcceptHandler, createPeopleHandlers, peopleRules, signedIn } from './access/people-handlers';
import { RoleStore } from './access/roles';
import { emailAddress, UserStore, withUsers } from './access/users';
import { secretRules } from './access/secret-rules';
import { LocationSecrets } from './access/secrets';
import { createSecretHandlers } from './access/secrets-handlers';
import { displayName } from './validate';
import { createGuard } from './auth/guard';
import { createAuthHandlers } from './auth/handlers';
import { DEFAULT_TOKEN_TTL_SECONDS, loadSigningSecret, TokenService } from './auth/tokens';
import { ensureBootstrap, type BootstrapCredentials } from './bootstrap';
import { migrate } from '../db/migrate';
import { serviceMigrations } from './db/migrations';
import { openDatabase } from './db/open';
import { createLocationHandlers } from './locations/handlers';
import { locationRules } from './locations/rules';
import { LocationStore } from './locations/store';
import { createLogHandlers } from './logs/handlers';
import { LogFeed } from './logs/feed';
import { logRules } from './logs/rules';
import { LogStore } from './logs/store';
import type { EditorInfo } from '../proto/gen/fleet/app/v1/access';
import { createFragmentHandlers } from './fragments/handlers';
import { configIssues } from './fragments/resolve';
import { fragmentRules } from './fragments/rules';
import { FragmentStore } from './fragments/store';
import { createMachineHandlers, type PartConfigs } from './machines/handlers';
import { machineRules } from './machines/rules';
import { MachineStore } from './machines/store';
import { createOrgHandlers, importsAsConfig } from './orgs/handlers';
import { orgRules } from './orgs/rules';
import { PageTokens } from './paging';
import { Permissions } from './permissions/engine';
import { mergeRules } from './permissions/rules';
import { addHealthAndReflection } from './reflection';
import { OrgStore } from './orgs/store';
import { addService, type Caller } from './rpc';
import { startSimulator } from './simulator';
import { RegistryFiles } from './registry/files';
import { checkRegistry, describeCheck, type RegistryCheck } from './registry/check';
import { createRegistryHandlers, sweepUploads, type UploadLimits } from './registry/handlers';
import { ModelShelf } from './registry/models';
import { registryRules } from './registry/rules';
import { UploadStreams } from './registry/streams';
import { RegistryStore } from './registry/store';
import { createTrainingHandlers } from './training/handlers';
import { trainingRules } from './training/rules';
import { TrainingRunner, trainingTiming } from './training/runner';
import { DEFAULT_MAX_PENDING_JOBS, TrainingStore } from './training/store';

export { CREDENTIALS_FILE, type BootstrapCredentials } from './bootstrap';

// One table per service from every domain's rows (a new domain adds its rules here); exported for
// the tests that check every operation against them.
export const appRules = mergeRules<typeof AppServiceService>(orgRules, locationRules, machineRules, logRules, registryRules, fragmentRules, peopleRules, keyRules, secretRules);
export { trainingRules };

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
   * to 1 s); and how many PENDING jobs one organization may hold (`maxPendingJobs`, default 1,000;
   * a submission past it is RESOURCE_EXHAUSTED TRAINING_QUEUE_FULL).
   */
  readonly training?: { readonly runMs?: number; readonly pendingMs?: number; readonly tickMs?: number; readonly maxPendingJobs?: number };
  /** Bounds on upload streams (idle timeout, streams per key and in all); docs/PROTOCOL.md section 8. */
  readonly uploads?: Partial<UploadLimits>;
  /**
   * Where invite mail goes: `smtp` (an smtp:// or smtps:// URL) sends it through that server;
   * without it each mail is written to the data dir's `outbox/` and logged with its link.
   */
  readonly mail?: MailOptions;
  /** Server keepalive; default {@link DEFAULT_KEEPALIVE}. */
  readonly keepalive?: { readonly timeMs: number; readonly timeoutMs: number };
}

/**
 * Server keepalive: the service pings a connection that has been quiet this long, and drops it
 * (ending its calls) when the ping is not answered in time. Without it a peer that vanished (a
 * laptop closed mid-upload, a cable pulled) is never noticed, and what its calls hold is held for
 * ever. Clients may ping as often as every 10 s (grpc-js servers do not police client pings).
 */
export const DEFAULT_KEEPALIVE = { timeMs: 60_000, timeoutMs: 20_000 } as const;

/** Lines of the start's registry check logged at most (the full list is `--check`'s). */
const STARTUP_CHECK_LINES = 20;

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
  const maxPendingJobs = options.training?.maxPendingJobs ?? DEFAULT_MAX_PENDING_JOBS;
  if (!Number.isSafeInteger(maxPendingJobs) || maxPendingJobs <= 0) throw new Error(`training.maxPendingJobs must be a positive whole number, not ${maxPendingJobs}`);

  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const db = openDatabase(join(options.dataDir, DATABASE_FILE));
  const keepalive = options.keepalive ?? DEFAULT_KEEPALIVE;
  const server = new Server({ 'grpc.keepalive_time_ms': keepalive.timeMs, 'grpc.keepalive_timeout_ms': keepalive.timeoutMs });
  let runner: TrainingRunner | undefined;
  let releaseUploads: () => void = () => undefined;
  try {
    const { from, to } = migrate(db, serviceMigrations);
    if (from !== to) log(`database schema migrated from version ${from} to ${to}`);
    const expired = new LogStore(db).sweep(Date.now() * 1000);
    if (expired > 0) log(`dropped ${expired} log entries older than the retention bound`);
    const bootstrap = await ensureBootstrap(db, options.dataDir, { demo: options.demo ?? false, demoMachines: options.demoMachines, demoLogHistory: options.logRate === undefined, log });
    const streams = new AbortController();
    // The default base url names the bound port, known only once bound (after the services are added).
    let address = options.listen;
    const files = new RegistryFiles(options.dataDir);
    // The first instance on a data dir takes its uploads; another one serving it too refuses them (and never sweeps them).
    let owned = false;
    const elsewhere = () => {
      if (owned) return null;
      const holder = files.claimUploads();
      owned = holder === null;
      return holder;
    };
    const registry = {
      store: new RegistryStore(db, () => (options.publicUrl ?? `http://${address}`).replace(/\/+$/, '')),
      files,
      uploads: options.uploads,
      streams: new UploadStreams(),
      elsewhere,
    };
    releaseUploads = () => files.releaseUploads();
    const sweep = async () => (elsewhere() === null ? sweepUploads(registry.store, registry.files, registry.streams) : 0);
    const swept = await sweep();
    if (swept > 0) log(`dropped ${swept} interrupted uploads nobody continued`);
    // The cheap part of the consistency check (sizes, no hashing): a file gone from disk is said at start, not found by a user's download.
    const check = await checkRegistry(db, registry.files, options.dataDir, { hash: false });
    if (check.findings.length > 0) {
      const lines = describeCheck(check);
      for (const line of lines.slice(0, STARTUP_CHECK_LINES)) log(line);
      if (lines.length > STARTUP_CHECK_LINES) log(`  … and ${lines.length - STARTUP_CHECK_LINES} more: run the service with --check --data-dir ${options.dataDir} for all of them`);
    }
    // Interrupted uploads are kept a day; swept hourly.
    const sweeper = setInterval(() => void sweep().catch((e: unknown) => log(`sweeping uploads failed: ${String(e)}`)), 3_600_000);
    sweeper.unref();
    const people = { mailer: createMailer(options.mail ?? {}, options.dataDir, log), baseUrl: () => (options.publicUrl ?? `http://${address}`).replace(/\/+$/, '') };
    const feed = register(server, db, ttl, log, streams.signal, registry, maxPendingJobs, people, options.tailCheckMs);
    // Resumes the jobs a previous run left (their state is in their rows) before anyone can ask.
    const jobs = new TrainingRunner(db, new ModelShelf(db, registry.files), log, timing);
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
        files.releaseUploads();
        db.close();
        log('stopped');
      }));
    };
    return { address, bootstrap, close };
  } catch (e) {
    runner?.stop();
    releaseUploads();
    server.forceShutdown();
    db.close();
    throw e;
  }
}

/**
 * The registry's whole consistency check on a data dir (`--check`): every file hashed. Opens the
 * database read-only, so it runs beside a serving service too, though a completion under way then
 * shows as an unrecorded file for a moment.
 */
export async function checkDataDir(dataDir: string): Promise<RegistryCheck> {
  if (!existsSync(join(dataDir, DATABASE_FILE))) throw new Error(`${dataDir} holds no fleet service database (${DATABASE_FILE})`);
  // Read-only: a check changes nothing, not even the schema (a data dir of another version is refused instead).
  const db = new Database(join(dataDir, DATABASE_FILE), { readonly: true, fileMustExist: true });
  try {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version !== serviceMigrations.length) {
      throw new Error(`${dataDir} holds a database of schema version ${version}, and this service knows version ${serviceMigrations.length}: start this service on it once (it migrates), or check it with the service that wrote it`);
    }
    return await checkRegistry(db, new RegistryFiles(dataDir), dataDir, { hash: true });
  } finally {
    db.close();
  }
}

/** A user made by {@link addUser}: the secret of their first key is here and nowhere else. */
export interface AddedUser {
  readonly userId: string;
  readonly apiKeyId: string;
  readonly apiKey: string;
}

/**
 * The operator's way to make a user (`fleet-service --add-user EMAIL --data-dir DIR`): a user with
 * that email and a first API key of theirs, or, for an email that has a user already, a new key of
 * that user (a lost key is replaced this way). The data dir must have been set up by a start (a
 * key made first would look like a data dir whose credentials file is lost); the service may be
 * running on it. Migrates the database first, as starting would.
 */
export function addUser(dataDir: string, rawEmail: string, name?: string): AddedUser {
  const email = emailAddress('--add-user', rawEmail);
  const notSetUp = new Error(`${dataDir} holds no fleet service data dir yet: start the service on it once first`);
  if (!existsSync(join(dataDir, DATABASE_FILE))) throw notSetUp;
  const db = openDatabase(join(dataDir, DATABASE_FILE));
  try {
    migrate(db, serviceMigrations);
    const keys = new ApiKeyStore(db);
    if (keys.count() === 0) throw notSetUp;
    const users = new UserStore(db, keys);
    return db.transaction(() => {
      const user = users.byEmail(email) ?? users.create(email, name === undefined || name.trim() === '' ? email.slice(0, email.indexOf('@')) : displayName('--user-name', name));
      const key = users.addKey(user.id, `${email} (operator)`);
      return { userId: user.id, apiKeyId: key.id, apiKey: key.secret };
    })();
  } finally {
    db.close();
  }
}

/** Every service of the wire contract, plus the standard health and reflection services. */
function register(
  server: Server,
  db: Database.Database,
  ttl: number,
  log: (line: string) => void,
  closing: AbortSignal,
  registry: { store: RegistryStore; files: RegistryFiles; uploads?: Partial<UploadLimits>; streams: UploadStreams; elsewhere: () => string | null },
  maxPendingJobs: number,
  people: { readonly mailer: Mailer; readonly baseUrl: () => string },
  tailCheckMs?: number,
): LogFeed {
  const keys = new ApiKeyStore(db);
  const signingSecret = loadSigningSecret(db);
  const tokens = new TokenService(signingSecret, ttl);
  const users = new UserStore(db, keys);
  // A user key's calls act as its user (docs/PROTOCOL.md, "Users, sign-in and invites").
  const guard = withUsers(createGuard(tokens, keys), users);
  const permissions = new Permissions(db);
  const pages = new PageTokens(signingSecret);
  const authorizations = new Authorizations(db);
  const peopleDeps = { db, users, invites: new InviteStore(db), roles: new RoleStore(db), authorizations, permissions, pages, log, ...people };
  // A user's sign-in also grants the invites made for their email without mail.
  const signIn = {
    verify: async (id: string, secret: string) => {
      const version = await keys.verify(id, secret);
      if (version !== null) signedIn(peopleDeps, id);
      return version;
    },
    check: (id: string, version: number) => keys.check(id, version),
  };
  const logs = new LogStore(db);
  const feed = new LogFeed(logs, log);
  // History entries name the caller as it was: the user's display name, or its key's name, at the time of the change.
  const editorOf = (caller: Caller): EditorInfo => ({
    identityType: caller.identity.type,
    identityId: caller.identity.id,
    displayName: (caller.identity.type === 'user' ? users.byId(caller.identity.id)?.displayName : keys.name(caller.keyId)) ?? '',
  });
  const fragments = new FragmentStore(db);
  const machines = new MachineStore(db, authorizations);
  const orgs = new OrgStore(db, authorizations);
  // Machines, organizations and fragments need each other: a part config's (and an organization's
  // default fragments') fragments must resolve, a new machine starts with its organization's default
  // fragments, machines are listed by fragment, and a fragment counts and lists what uses it.
  const partConfigs: PartConfigs = { blockingIssues: (config, orgId, grants) => configIssues(fragments, config, orgId, grants) };
  const newMachineConfig = (orgId: string) => {
    const defaults = orgs.defaultFragments(orgId);
    return defaults.length === 0 ? '{}' : JSON.stringify(importsAsConfig(defaults));
  };
  addService(server, AuthServiceService, { public: createAuthHandlers(signIn, tokens) }, guard, log);
  addService(
    server,
    AppServiceService,
    {
      // The invite token is AcceptOrganizationInvite's credential: the invited person has no key yet.
      public: createAcceptHandler(peopleDeps),
      authenticated: {
        ...createPeopleHandlers(peopleDeps),
        ...createOrgHandlers(orgs, partConfigs),
        ...createLocationHandlers(new LocationStore(db, authorizations), permissions, pages),
        ...createMachineHandlers(machines, permissions, pages, { configs: partConfigs, fragments, editorOf, newMachineConfig }),
        ...createFragmentHandlers(fragments, permissions, pages, { parts: { countParts: (uses) => machines.countPartsUsing(uses) }, machines, orgs, editorOf }),
        ...createLogHandlers(logs, pages, { feed, keyActive: (id) => keys.isActive(id), closing, checkMs: tailCheckMs }),
        ...createKeyHandlers(keys, authorizations, permissions, pages),
        ...createSecretHandlers(new LocationSecrets(db), machines, editorOf),
        ...createRegistryHandlers(registry.store, registry.files, permissions, pages, { orgExists: (id) => db.prepare('SELECT 1 FROM organizations WHERE id = ?').get(id) !== undefined, uploads: registry.uploads, streams: registry.streams, uploadsElsewhere: registry.elsewhere }),
      },
    },
    guard,
    log,
    { rules: appRules, permissions },
  );
  addService(server, MLTrainingServiceService, { authenticated: createTrainingHandlers(new TrainingStore(db), permissions, pages, { maxPendingJobs }) }, guard, log, { rules: trainingRules, permissions });
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
