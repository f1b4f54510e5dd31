/**
 * The main-process backend: everything the app does except windows. Electron's shell (main/index.ts)
 * and browser mode (main/web.ts) both host it and reach it only through `handlers` and `events`,
 * so the same code answers the renderer whichever way it is served.
 */
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import type { ProfileView, ProfilesState } from '../../common/profiles';
import { Connection } from '../connection/connection';
import { connectionHandlers } from '../connection/handlers';
import { acquireLock, type DataDirLock } from '../fs/lock';
import { openKeychain, type KeychainStatus, type SecretStore } from '../keychain/keychain';
import { localServiceHandlers } from '../local-service/handlers';
import { LocalServiceSupervisor, type SpawnService } from '../local-service/supervisor';
import { locationsHandlers } from '../locations/handlers';
import { machinesHandlers } from '../machines/handlers';
import { LivenessWatcher } from '../machines/liveness';
import { logsHandlers } from '../logs/handlers';
import { registryHandlers } from '../registry/handlers';
import { RegistryUploads, type StagingOptions } from '../registry/uploads';
import { LogTails } from '../logs/tails';
import { Downloads } from '../fs/downloads';
import { fleetResource } from '../fleet/sync';
import { orgsHandlers } from '../orgs/handlers';
import { orgsResource } from '../orgs/sync';
import { uiHandlers } from '../ui/handlers';
import { pageWithFleetFrame } from '../ui/fleet-frame';
import { cachedOrgIds } from '../fleet/tree';
import { getUiState } from '../cache/ui-state';
import { trainingHandlers } from '../training/handlers';
import { configHandlers } from '../config/handlers';
import { fragmentsHandlers } from '../fragments/handlers';
import { accessHandlers } from '../access/handlers';
import { IssuedKeys } from '../access/issued';
import { permissionsResource } from '../access/sync';
import { TrainingWatcher, trainingResource, type TrainingNotify } from '../training/watcher';
import type { CacheWorkerOptions } from '../cache/worker-client';
import { profilesHandlers } from '../profiles/handlers';
import { LOCAL_PROFILE_ID, ProfileStore } from '../profiles/store';
import type { BackendContext } from './context';
import { AppError } from './errors';
import { EventBus } from './events';
import type { Handlers } from './router';

export interface BackendOptions {
  /** Where profiles, caches and the local service's data live (Electron's userData). */
  readonly userDataDir: string;
  /** The service entry to fork for the local profile (out/main/service.js beside the main bundle). */
  readonly serviceEntry: string;
  /** Extra node flags for the fork. */
  readonly serviceExecArgv?: readonly string[];
  /** How the local service is started: node's fork unless given (the Electron shell uses a utility process). */
  readonly spawnService?: SpawnService;
  readonly log?: (message: string) => void;
  /** Replaces the OS keychain (tests of the session-only fallback). */
  readonly keychain?: { store: SecretStore; status: KeychainStatus };
  /** Connection timing; defaults suit people, tests shorten them. */
  readonly timing?: { retryMinMs?: number; retryMaxMs?: number; refreshMs?: number; deadlineMs?: number; livenessMs?: number; tailRetryMinMs?: number; tailRetryMaxMs?: number; tailMaxQueuedBytes?: number; tailMaxWriteBytes?: number; uploadRetryMinMs?: number; uploadRetryMaxMs?: number; uploadChunkBytes?: number; trainingPollMinMs?: number; trainingPollMaxMs?: number };
  /** Asks where to save a file (the Electron shell's save dialog). Without it, exports are offered as downloads (browser mode). */
  readonly chooseSavePath?: (suggestedName: string) => Promise<string | null>;
  /** Asks which files to open (the Electron shell's open dialog). Without it, the page picks files and sends them to the loopback server (browser mode). */
  readonly chooseOpenPaths?: (options: { title: string; filters: { name: string; extensions: string[] }[] }) => Promise<string[]>;
  /** Whether uploads may name a file by path (Electron); browser mode passes false: its page sends files to the loopback server. */
  readonly acceptUploadPaths?: boolean;
  /** Bounds on the files browser mode's page stages for upload (defaults, or the FLEET_DESK_STAGING_* variables, unless given). */
  readonly staging?: StagingOptions;
  /** Shows a desktop notification when a watched training job ends (Electron's Notification); without it the page shows its own (browser mode). */
  readonly notify?: TrainingNotify;
  /** Shows the count of running training jobs on the app's icon (Electron's badge count). */
  readonly setBadge?: (running: number) => void;
  /** The cache worker (out/main/cache-worker.js beside the main bundle); without it cache jobs run on the main thread. */
  readonly cacheWorker?: CacheWorkerOptions;
  /**
   * How long `start()` lets a window draw its first view from the cache before it reaches the
   * service (ms): it goes on as soon as the renderer says `ui.restored`, or after this without it.
   * Starting the local service and the first sync of a large fleet take both cores of a small
   * machine for a second; sharing them with the window's boot made the cached tree 0.2–0.4 s later
   * (a launch lifecycle like VS Code's Restored/Eventually phases). A launch with no cache yet
   * connects at once. Unset or 0: at once (tests and hosts without a window).
   */
  readonly firstViewGraceMs?: number;
}

/** What the app's launches (Electron and browser mode) give a window to draw its cached view: a slow machine's boot, with margin. */
export const LAUNCH_FIRST_VIEW_GRACE_MS = 2_000;

const LOCAL_UNAVAILABLE = 'The local service is stopped. Start it from the status bar to reconnect; until then you see the cached fleet.';

export class Backend {
  readonly handlers: Handlers;
  readonly events = new EventBus();
  /** Files offered for download in browser mode (the web server serves them). */
  readonly downloads = new Downloads();
  readonly #ctx: BackendContext;
  readonly #keyStored = new Map<string, boolean>();
  readonly #lock: DataDirLock;
  readonly #firstViewGraceMs: number;
  /** Resolved by the first `ui.restored`. */
  #firstViewDrawn: () => void = () => undefined;
  readonly #firstView = new Promise<void>((resolve) => (this.#firstViewDrawn = resolve));
  readonly #liveness: LivenessWatcher;
  readonly #tails: LogTails;
  readonly #training: TrainingWatcher;
  /** The module upload queue; browser mode's server stages the page's files through it. */
  readonly uploads: RegistryUploads;
  #closed = false;
  /** Counts activations: a connect that waited (a launch's first view) goes on only if no other activation came meanwhile. */
  #activations = 0;

  private constructor(options: BackendOptions, keychain: { store: SecretStore; status: KeychainStatus }, lock: DataDirLock) {
    this.#lock = lock;
    this.#firstViewGraceMs = options.firstViewGraceMs ?? 0;
    const log = options.log ?? ((m: string) => console.error(m));
    mkdirSync(options.userDataDir, { recursive: true, mode: 0o700 });
    const events = this.events;
    const profiles = ProfileStore.open(options.userDataDir, log);
    // The watcher needs the connection and the connection its resources: the resource reaches the watcher once both exist.
    let training: TrainingWatcher | null = null;
    const trainingOf = () => {
      if (!training) throw new Error('the training watcher is not set up yet');
      return training;
    };
    const connection = new Connection({
      events,
      resources: [orgsResource(events), fleetResource(events, log), permissionsResource(events, log), trainingResource({ apply: (...a) => trainingOf().apply(...a), publish: (c) => trainingOf().publish(c), wake: () => trainingOf().wake() }, log)],
      log,
      cacheWorker: options.cacheWorker,
      ...options.timing,
    });
    this.#training = training = new TrainingWatcher(connection, events, log, { notify: options.notify, setBadge: options.setBadge }, { pollMinMs: options.timing?.trainingPollMinMs, pollMaxMs: options.timing?.trainingPollMaxMs });
    this.#liveness = new LivenessWatcher(connection, events, log, options.timing?.livenessMs);
    this.#tails = new LogTails(connection, events, log, { retryMinMs: options.timing?.tailRetryMinMs, retryMaxMs: options.timing?.tailRetryMaxMs, maxQueuedBytes: options.timing?.tailMaxQueuedBytes, maxWriteBytes: options.timing?.tailMaxWriteBytes });
    this.uploads = new RegistryUploads(connection, events, {
      profileDir: (id) => join(options.userDataDir, 'profiles', id),
      stagingDir: join(options.userDataDir, 'staging'),
      log,
      retryMinMs: options.timing?.uploadRetryMinMs,
      retryMaxMs: options.timing?.uploadRetryMaxMs,
      chunkBytes: options.timing?.uploadChunkBytes,
      acceptPaths: options.acceptUploadPaths ?? true,
      staging: options.staging,
    });
    const localService = new LocalServiceSupervisor({
      entry: options.serviceEntry,
      execArgv: options.serviceExecArgv,
      spawn: options.spawnService,
      dataDir: join(options.userDataDir, 'local-service'),
      log,
      onChange: (state) => {
        events.emit('localService.changed', state);
        events.emit('profiles.changed', this.#profilesState());
        // Only the local profile depends on it (markUnavailable ignores a profile that is not active).
        if (state.status === 'stopped' || state.status === 'failed') {
          connection.markUnavailable(LOCAL_PROFILE_ID, new AppError('offline', state.error ?? LOCAL_UNAVAILABLE));
        }
      },
    });
    const issuedKeys = new IssuedKeys();
    connection.scope(issuedKeys);
    this.#ctx = {
      events,
      connection,
      profiles,
      keychain: keychain.store,
      keychainStatus: keychain.status,
      localService,
      log,
      activate: (id, options) => this.#activate(id, options?.wait ?? false),
      storeKey: (id, apiKey) => this.#storeKey(id, apiKey),
      profilesState: () => this.#profilesState(),
      cachePath: (id) => join(options.userDataDir, 'profiles', id, 'cache.sqlite'),
      forgetKey: (id) => this.#keyStored.delete(id),
      firstViewDrawn: () => this.#firstViewDrawn(),
      chooseSavePath: options.chooseSavePath ?? null,
      chooseOpenPaths: options.chooseOpenPaths ?? null,
      downloads: this.downloads,
      exportsDir: join(options.userDataDir, 'exports'),
    };
    this.handlers = {
      ...profilesHandlers(this.#ctx),
      ...connectionHandlers(this.#ctx),
      ...localServiceHandlers(this.#ctx),
      ...orgsHandlers(this.#ctx),
      ...locationsHandlers(this.#ctx),
      ...machinesHandlers(this.#ctx, this.#liveness),
      ...uiHandlers(this.#ctx),
      ...logsHandlers(this.#ctx, this.#tails),
      ...registryHandlers(this.#ctx, this.uploads),
      ...trainingHandlers(this.#ctx, this.#training),
      ...configHandlers(this.#ctx),
      ...fragmentsHandlers(this.#ctx),
      ...accessHandlers(this.#ctx, issuedKeys),
    };
  }

  /**
   * Opens profiles, keychain and caches. Touches no network and starts no process. Throws
   * DataDirLockedError when another Fleet Desk (desktop or browser mode) uses the same data folder:
   * two writers of profiles.json and two local services on one database would corrupt both.
   */
  static async open(options: BackendOptions): Promise<Backend> {
    const lock = acquireLock(options.userDataDir);
    try {
      const keychain = options.keychain ?? (await openKeychain());
      const backend = new Backend(options, keychain, lock);
      if (!keychain.status.available) backend.#ctx.log(`keychain: not available (${keychain.status.reason}); API keys are kept for this run only`);
      for (const profile of backend.#ctx.profiles.profiles) {
        const key = await keychain.store.get(profile.id).catch(() => null);
        backend.#keyStored.set(profile.id, key !== null);
      }
      // The last active profile's cache answers before anything starts or connects.
      const active = backend.#ctx.profiles.activeId;
      if (active) backend.#ctx.connection.open(active, backend.#ctx.cachePath(active));
      return backend;
    } catch (e) {
      lock.release();
      throw e;
    }
  }


  /**
   * First launch creates the local demo profile; every launch connects the active profile. Resolves
   * once the first connection attempt is over (online or offline): the cache answers either way.
   */
  async start(): Promise<void> {
    const { profiles } = this.#ctx;
    // A profile active in the last run has a cache to draw: the window shows it before the service is reached.
    const cached = profiles.activeId !== null;
    if (!profiles.get(LOCAL_PROFILE_ID)) {
      profiles.add({ id: LOCAL_PROFILE_ID, name: 'Local demo', kind: 'local', address: '', tls: false, apiKeyId: '' });
    }
    const active = profiles.activeId ?? LOCAL_PROFILE_ID;
    await this.#activate(active, true, cached ? this.#firstViewOrGrace() : undefined);
  }

  /** Resolves at the window's first view (`ui.restored`) or after the grace period, whichever is first. */
  #firstViewOrGrace(): Promise<void> | undefined {
    if (this.#firstViewGraceMs <= 0) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.#firstViewGraceMs)));
    return Promise.race([this.#firstView, grace]).finally(() => clearTimeout(timer));
  }

  /**
   * index.html as the window is served it: with the active profile's fleet tree drawn into its frame
   * as the window last showed it (main/ui/fleet-frame.ts); as it is with no profile active or nothing
   * stored. A read of one small row on main's connection, ahead of the window's first paint.
   */
  indexPage(indexHtml: string): string {
    const { connection } = this.#ctx;
    if (connection.profileId === null) return indexHtml;
    const orgIds = new Set(cachedOrgIds(connection.cache));
    return pageWithFleetFrame(indexHtml, getUiState(connection.cache, 'fleet.frame'), { profileId: connection.profileId, orgIds });
  }

  /** What the log tails did so far (benchmarks): gap fills, entries fetched by them, entries the service dropped. */
  get logStats(): Readonly<LogTails['stats']> {
    return this.#tails.stats;
  }

  /** Stops the local service and closes the cache. Safe to call twice. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#liveness.stop();
    this.#tails.stop();
    this.#training.stop();
    this.uploads.close();
    const released = this.#ctx.connection.close();
    try {
      await this.#ctx.localService.stop();
      // The cache worker finishes its jobs and closes its connection; a call that hangs does not hold up quitting.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([released, new Promise((resolve) => (timer = setTimeout(resolve, 5_000)))]);
      clearTimeout(timer);
    } finally {
      this.#lock.release();
    }
  }

  /**
   * Make a profile the active one. Its cache answers as soon as this returns; connecting (starting
   * the local service, reading the key, the first sync) goes on after, unless `wait` asks to be
   * told when the first sync round is over.
   */
  async #activate(profileId: string, wait: boolean, notBefore?: Promise<void>): Promise<void> {
    const { profiles, connection } = this.#ctx;
    if (!profiles.get(profileId)) throw new AppError('not-found', 'That profile does not exist.');
    connection.open(profileId, this.#ctx.cachePath(profileId));
    profiles.setActive(profileId);
    this.events.emit('profiles.changed', this.#profilesState());
    const connecting = this.#connect(profileId, notBefore, ++this.#activations);
    if (wait) await connecting;
    else void connecting;
  }

  /**
   * Reach the service of the (just opened) profile, not before `notBefore` (the local service shows
   * as starting meanwhile). Never throws: failures end up in the connection state.
   */
  async #connect(profileId: string, notBefore: Promise<void> | undefined, activation: number): Promise<void> {
    const { profiles, connection, keychain, localService, log } = this.#ctx;
    const profile = profiles.get(profileId);
    if (!profile) return;
    // After a wait, another activation (a switch, even back to this profile) or quitting made this one moot.
    const superseded = () => this.#closed || this.#activations !== activation;
    try {
      if (profile.kind === 'local') {
        let credentials;
        try {
          credentials = await localService.start({ notBefore });
        } catch (e) {
          connection.markUnavailable(profileId, new AppError('offline', e instanceof Error ? e.message : String(e)));
          return;
        }
        if (superseded()) return;
        if (profile.apiKeyId !== credentials.apiKeyId) profiles.add({ ...profile, apiKeyId: credentials.apiKeyId });
        // The service prints its key on every start; keeping it in the keychain too makes the local
        // profile like every other (and lets a later build connect before the service says it).
        await this.#storeKey(profileId, credentials.apiKey).catch((e: unknown) => log(`keychain: could not store the local key: ${String(e)}`));
        this.events.emit('profiles.changed', this.#profilesState());
        await connection.connect(profileId, { address: credentials.address, tls: false, apiKeyId: credentials.apiKeyId, apiKey: credentials.apiKey });
        return;
      }

      await notBefore;
      if (superseded()) return;
      const apiKey = await keychain.get(profileId).catch((e: unknown) => {
        log(`keychain: could not read the key of profile ${profile.name}: ${String(e)}`);
        return null;
      });
      this.#keyStored.set(profileId, apiKey !== null);
      this.events.emit('profiles.changed', this.#profilesState());
      if (apiKey === null) {
        connection.markUnavailable(profileId, new AppError('unauthenticated', `No API key is stored for "${profile.name}". Enter its key again to reconnect.`));
        return;
      }
      await connection.connect(profileId, { address: profile.address, tls: profile.tls, apiKeyId: profile.apiKeyId, apiKey });
    } catch (e) {
      // Opening a cache or a keychain failure: say so where the user looks, keep the app running.
      log(`connect: ${e instanceof Error ? e.message : String(e)}`);
      connection.markUnavailable(profileId, e instanceof AppError ? e : new AppError('internal', e instanceof Error ? e.message : String(e)));
    }
  }

  /** Keep a profile's key (keychain, or this run's memory without one). */
  async #storeKey(profileId: string, apiKey: string): Promise<void> {
    const { keychain } = this.#ctx;
    const stored = await keychain.get(profileId).catch(() => null);
    if (stored !== apiKey) {
      try {
        await keychain.set(profileId, apiKey);
      } catch (e) {
        throw new AppError('internal', `Could not store the API key in the keychain: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    this.#keyStored.set(profileId, true);
  }

  #profilesState(): ProfilesState {
    const { profiles, keychainStatus, localService } = this.#ctx;
    const views: ProfileView[] = profiles.profiles.map((p) => ({
      id: p.id,
      name: p.name,
      kind: p.kind,
      address: p.kind === 'local' ? (localService.state.address ?? '') : p.address,
      tls: p.tls,
      apiKeyId: p.apiKeyId,
      // The local profile's key is re-issued by its service on every start, so it is never missing.
      keyStorage: p.kind !== 'local' && !this.#keyStored.get(p.id) ? 'missing' : keychainStatus.available ? 'keychain' : 'session',
    }));
    return { profiles: views, activeId: profiles.activeId, keychain: { available: keychainStatus.available, reason: keychainStatus.reason } };
  }
}
