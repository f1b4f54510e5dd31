/**
 * Runs the embedded fleet service (service/main.ts, bundled as out/main/service.js) as a child
 * process: a crash there never takes the app down, and its SQLite work never blocks the UI.
 * It reads the one JSON line the service prints when ready, keeps the port across restarts so the
 * local profile's address stays put, and reports every state change.
 *
 * How the child is started is a parameter (`spawn`): node's child_process.fork by default (browser
 * mode, tests), an Electron utility process in the desktop app (main/shell/utility-service.ts),
 * where a packaged build's RunAsNode fuse is off and forking the app binary as node is impossible.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { z } from 'zod';
import type { LocalServiceState } from '../../common/local-service';

/** What the service prints on stdout when it is ready. */
const readyLine = z.object({
  address: z.string().min(1),
  org_id: z.string(),
  api_key_id: z.string().min(1),
  api_key: z.string().min(1),
});

export interface LocalCredentials {
  readonly address: string;
  readonly apiKeyId: string;
  readonly apiKey: string;
}

/**
 * A started service process, as the supervisor uses it. Node's ChildProcess (with piped stdout and
 * stderr) is one; main/shell/utility-service.ts adapts Electron's UtilityProcess to it.
 */
export interface ServiceProcess {
  /** Undefined until the OS process exists (or when it never could). */
  readonly pid?: number | undefined;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** The exit code once it has exited, else null. */
  readonly exitCode: number | null;
  /** The signal that ended it, when one did and the platform says so, else null. */
  readonly signalCode: NodeJS.Signals | null;
  /** SIGTERM asks it to shut down cleanly (the service then closes its database); SIGKILL ends it at once. */
  kill(signal: 'SIGTERM' | 'SIGKILL'): boolean;
  /** Emitted once, when it has ended. */
  once(event: 'exit', listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
  /** A process that could not be started (or signalled); no 'exit' need follow. */
  once(event: 'error', listener: (error: Error) => void): this;
}

export interface SpawnServiceOptions {
  /** Extra node flags for the child. */
  readonly execArgv: readonly string[];
}

/** Starts `entry` with `args` as a separate process. */
export type SpawnService = (entry: string, args: readonly string[], options: SpawnServiceOptions) => ServiceProcess;

/** The default: node's child_process.fork, with an IPC channel so the service notices when its parent is gone. */
export const forkService: SpawnService = (entry, args, options) => {
  const child = fork(entry, [...args], {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    // Not the parent's flags: a fork inherits process.execArgv (an inspector port, say) otherwise.
    execArgv: [...options.execArgv],
  });
  // fork with stdio 'pipe' always creates these two streams.
  return child as ChildProcess & { stdout: Readable; stderr: Readable };
};

export interface SupervisorOptions {
  /** The service entry to start. */
  readonly entry: string;
  /** How to start it; node's child_process.fork unless given. */
  readonly spawn?: SpawnService;
  /** Extra node flags for the child. */
  readonly execArgv?: readonly string[];
  /** The service's data dir (its database and bootstrap credentials). */
  readonly dataDir: string;
  readonly onChange: (state: LocalServiceState) => void;
  readonly log: (message: string) => void;
  /** How long the service may take to print its ready line. */
  readonly startTimeoutMs?: number;
  /** How long a stopping service gets to close its database before it is killed (SIGKILL). */
  readonly stopGraceMs?: number;
}

/** Lines of the child's stderr kept to explain a failure. */
const STDERR_TAIL = 8;

/** How long a stopping service gets to close its database before it is killed. */
const STOP_GRACE_MS = 5_000;

export class LocalServiceSupervisor {
  readonly #options: SupervisorOptions;
  /** The one child we own; events of any child it replaced are ignored (see #attempt). */
  #child: ServiceProcess | null = null;
  #state: LocalServiceState;
  #credentials: LocalCredentials | null = null;
  #lastPort = 0;
  /**
   * start() and stop() run one after the other, in call order: a start issued while a stop is in
   * progress forks only after the old child has exited (two children would fight over the port and
   * the database), and a stop issued during a start waits for it. `#tail` is the last queued
   * operation; `#pendingStart`/`#pendingStop` let a repeated call join the same queued operation.
   */
  #tail: Promise<unknown> = Promise.resolve();
  #pendingStart: Promise<LocalCredentials> | null = null;
  #pendingStop: Promise<void> | null = null;
  /** Stops asked so far: a start that waits for its `notBefore` is cancelled by any stop asked after it. */
  #stops = 0;
  /** Ends the waiting start's wait at once (a stop was asked). */
  #cancelWait: (() => void) | null = null;

  constructor(options: SupervisorOptions) {
    this.#options = options;
    this.#state = { status: 'stopped', address: null, dataDir: options.dataDir, error: null };
  }

  get state(): LocalServiceState {
    return this.#state;
  }

  /** The pid of the service process we own (alive or not yet reaped), for diagnostics. */
  get pid(): number | null {
    return this.#child?.pid ?? null;
  }

  /**
   * Starts the service unless it runs already; resolves when it is ready to serve. `notBefore`: the
   * state says `starting` at once, the process is forked only once it settles (a launch lets the
   * window draw its cached view first). A stop issued while it waits ends the wait: nothing is
   * forked, the start rejects saying so, and the stop answers at once (quitting right after launch
   * neither waits for the window nor forks a service only to stop it).
   */
  start(options: { readonly notBefore?: Promise<unknown> } = {}): Promise<LocalCredentials> {
    if (this.#pendingStart) return this.#pendingStart;
    if (!this.#pendingStop && this.#isRunning() && this.#credentials) return Promise.resolve(this.#credentials);
    const stopsBefore = this.#stops;
    const op = this.#tail.then(() => this.#startNow(options.notBefore, stopsBefore));
    this.#pendingStart = op;
    this.#pendingStop = null;
    this.#tail = op.catch(() => undefined);
    const clear = () => {
      if (this.#pendingStart === op) this.#pendingStart = null;
    };
    void op.then(clear, clear);
    return op;
  }

  /** Stops the service (SIGTERM, then SIGKILL after a grace period), after any start queued before it. */
  stop(): Promise<void> {
    if (this.#pendingStop) return this.#pendingStop;
    const op = this.#tail.then(() => this.#stopNow());
    this.#pendingStop = op;
    this.#pendingStart = null;
    this.#stops++;
    this.#cancelWait?.();
    this.#tail = op.catch(() => undefined);
    const clear = () => {
      if (this.#pendingStop === op) this.#pendingStop = null;
    };
    void op.then(clear, clear);
    return op;
  }

  #isRunning(): boolean {
    const child = this.#child;
    return this.#state.status === 'running' && child !== null && child.exitCode === null && child.signalCode === null;
  }

  async #startNow(notBefore?: Promise<unknown>, stopsBefore = this.#stops): Promise<LocalCredentials> {
    if (this.#isRunning() && this.#credentials) return this.#credentials;
    const { entry, dataDir } = this.#options;
    if (!existsSync(entry)) {
      const error = `The service program is missing (${entry}). Build the app again with \`npm run build\`.`;
      this.#set({ status: 'failed', address: null, error });
      throw new Error(error);
    }
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    this.#set({ status: 'starting', address: null, error: null });
    if (notBefore) {
      // A stop asked since this start was (even while it queued behind another operation) ends the wait.
      const stopAsked = new Promise<void>((resolve) => (this.#cancelWait = resolve));
      if (this.#stops === stopsBefore) await Promise.race([notBefore.catch(() => undefined), stopAsked]);
      this.#cancelWait = null;
      if (this.#stops !== stopsBefore) {
        this.#set({ status: 'stopped', address: null, error: null });
        throw new Error('The local service was stopped before it started.');
      }
    }
    try {
      let credentials: LocalCredentials;
      try {
        credentials = await this.#attempt(this.#lastPort);
      } catch (e) {
        // The port of the last run may have been taken meanwhile: any free one will do. No `failed`
        // for this first attempt: the state goes on as `starting` while the retry runs.
        if (this.#lastPort === 0) throw e;
        this.#options.log(`local service: could not start on port ${this.#lastPort} again (${e instanceof Error ? e.message : String(e)}); trying a free port`);
        credentials = await this.#attempt(0);
      }
      this.#set({ status: 'running', address: credentials.address, error: null });
      return credentials;
    } catch (e) {
      this.#set({ status: 'failed', address: null, error: e instanceof Error ? e.message : String(e) });
      throw e;
    }
  }

  async #stopNow(): Promise<void> {
    const child = this.#child;
    if (!child || child.exitCode !== null || child.signalCode !== null) {
      this.#set({ status: 'stopped', address: null, error: null });
      return;
    }
    this.#set({ status: 'stopping', address: this.#state.address, error: null });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), this.#options.stopGraceMs ?? STOP_GRACE_MS);
    await exited;
    clearTimeout(killer);
  }

  /**
   * Forks the service once and waits for its ready line. Rejects (without publishing a state: the
   * caller decides whether a retry follows) once the child is gone, so a retry never overlaps it.
   */
  #attempt(port: number): Promise<LocalCredentials> {
    const { entry, dataDir } = this.#options;
    const startTimeoutMs = this.#options.startTimeoutMs ?? 20_000;
    // A data dir without bootstrap credentials is new: fill it with the demo fleet.
    const fresh = !existsSync(join(dataDir, 'bootstrap-credentials.json'));
    const args = ['--listen', `127.0.0.1:${port}`, '--data-dir', dataDir, ...(fresh ? ['--demo'] : [])];

    return new Promise<LocalCredentials>((resolve, reject) => {
      const spawn = this.#options.spawn ?? forkService;
      const child = spawn(entry, args, { execArgv: this.#options.execArgv ?? [] });
      this.#child = child;
      const { stdout, stderr } = child;
      const stderrTail: string[] = [];
      const stderrSummary = (lines: number, before: string, after = '') => (stderrTail.length > 0 ? `${before}${stderrTail.slice(-lines).join(' | ')}${after}` : '');
      let ready = false;
      let settled = false;
      /** Why we killed it before it was ready (timeout, a bad ready line): reported when it is gone. */
      let killedBecause: string | null = null;

      createInterface({ input: stderr }).on('line', (line) => {
        stderrTail.push(line);
        if (stderrTail.length > STDERR_TAIL) stderrTail.shift();
        this.#options.log(`local service: ${line}`);
      });

      const fail = (why: string) => {
        clearTimeout(timeout);
        // Once per attempt: a kill before ready is followed by the exit it causes.
        if (settled) return;
        settled = true;
        reject(new Error(`The local service could not start: ${why}${stderrSummary(3, ': ')}`));
      };
      const killBeforeReady = (why: string) => {
        clearTimeout(timeout);
        killedBecause ??= why;
        child.kill('SIGKILL');
      };

      const timeout = setTimeout(() => killBeforeReady(`it did not report ready within ${startTimeoutMs / 1000} s`), startTimeoutMs);

      createInterface({ input: stdout }).once('line', (line) => {
        let parsed;
        try {
          parsed = readyLine.parse(JSON.parse(line));
        } catch {
          killBeforeReady('it printed something other than its ready line');
          return;
        }
        if (killedBecause !== null || settled) return;
        ready = true;
        settled = true;
        clearTimeout(timeout);
        this.#lastPort = Number(parsed.address.slice(parsed.address.lastIndexOf(':') + 1));
        this.#credentials = { address: parsed.address, apiKeyId: parsed.api_key_id, apiKey: parsed.api_key };
        resolve(this.#credentials);
      });

      // 'error' without 'exit' is a fork that never ran (or a kill that failed): nothing to wait for.
      child.once('error', (e) => {
        if (!ready) fail(e.message);
      });
      child.once('exit', (code, signal) => {
        if (!ready) fail(killedBecause ?? (signal ? `it was stopped by ${signal}` : `it exited with code ${code}`));
        // A child that a newer one replaced must not touch the state: the state is the new child's.
        if (this.#child !== child) return;
        this.#child = null;
        if (!ready) return; // the attempt's rejection says it; #startNow publishes (or retries)
        if (this.#state.status === 'stopping') {
          this.#set({ status: 'stopped', address: null, error: null });
        } else {
          const how = signal ? ` (${signal})` : ` with code ${code}`;
          this.#set({ status: 'failed', address: null, error: `The local service exited unexpectedly${how}${stderrSummary(2, ' (', ')')}. Start it again to reconnect.` });
        }
      });
    });
  }

  #set(partial: Pick<LocalServiceState, 'status' | 'address' | 'error'>): void {
    this.#state = { ...partial, dataDir: this.#options.dataDir };
    this.#options.onChange(this.#state);
  }
}
