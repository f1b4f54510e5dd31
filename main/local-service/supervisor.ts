/**
 * Runs the embedded fleet service (service/main.ts, bundled as out/main/service.js) as a child
 * process: a crash there never takes the app down, and its SQLite work never blocks the UI.
 * It reads the one JSON line the service prints when ready, keeps the port across restarts so the
 * local profile's address stays put, and reports every state change.
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

export interface SupervisorOptions {
  /** The service entry to fork. */
  readonly entry: string;
  /** Extra node flags for the child (tests run the TypeScript entry through tsx). */
  readonly execArgv?: readonly string[];
  /** The service's data dir (its database and bootstrap credentials). */
  readonly dataDir: string;
  readonly onChange: (state: LocalServiceState) => void;
  readonly log: (message: string) => void;
  /** How long the service may take to print its ready line. */
  readonly startTimeoutMs?: number;
}

/** Lines of the child's stderr kept to explain a failure. */
const STDERR_TAIL = 8;

export class LocalServiceSupervisor {
  readonly #options: SupervisorOptions;
  #child: ChildProcess | null = null;
  #state: LocalServiceState;
  #credentials: LocalCredentials | null = null;
  #starting: Promise<LocalCredentials> | null = null;
  #lastPort = 0;

  constructor(options: SupervisorOptions) {
    this.#options = options;
    this.#state = { status: 'stopped', address: null, dataDir: options.dataDir, error: null };
  }

  get state(): LocalServiceState {
    return this.#state;
  }

  /** The credentials the running service printed; null unless running. */
  get credentials(): LocalCredentials | null {
    return this.#state.status === 'running' ? this.#credentials : null;
  }

  /** Starts the service unless it runs already; resolves when it is ready to serve. */
  start(): Promise<LocalCredentials> {
    if (this.#state.status === 'running' && this.#credentials) return Promise.resolve(this.#credentials);
    this.#starting ??= this.#startOnce(this.#lastPort)
      .catch((e: unknown) => {
        // The port of the last run may have been taken meanwhile: any free one will do.
        if (this.#lastPort === 0) throw e;
        this.#options.log(`local service: could not start on port ${this.#lastPort} again; trying a free port`);
        return this.#startOnce(0);
      })
      .finally(() => {
        this.#starting = null;
      });
    return this.#starting;
  }

  /** Stops the service (SIGTERM, then SIGKILL after a grace period). */
  async stop(): Promise<void> {
    await this.#starting?.catch(() => undefined);
    const child = this.#child;
    if (!child || child.exitCode !== null || child.signalCode !== null) {
      this.#set({ status: 'stopped', address: null, error: null });
      return;
    }
    this.#set({ status: 'stopping', address: this.#state.address, error: null });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(killer);
  }

  #startOnce(port: number): Promise<LocalCredentials> {
    const { entry, dataDir } = this.#options;
    if (!existsSync(entry)) {
      const error = `The service program is missing (${entry}). Build the app again with \`npm run build\`.`;
      this.#set({ status: 'failed', address: null, error });
      return Promise.reject(new Error(error));
    }
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    // A data dir without bootstrap credentials is new: fill it with the demo fleet.
    const fresh = !existsSync(join(dataDir, 'bootstrap-credentials.json'));
    const args = ['--listen', `127.0.0.1:${port}`, '--data-dir', dataDir, ...(fresh ? ['--demo'] : [])];
    this.#set({ status: 'starting', address: null, error: null });

    return new Promise<LocalCredentials>((resolve, reject) => {
      const child = fork(entry, args, {
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
        // Not the parent's flags: a fork inherits process.execArgv (an inspector port, say) otherwise.
        execArgv: [...(this.#options.execArgv ?? [])],
      });
      this.#child = child;
      // fork with stdio 'pipe' always creates these two streams.
      const { stdout, stderr } = child as ChildProcess & { stdout: Readable; stderr: Readable };
      const stderrTail: string[] = [];
      let ready = false;

      createInterface({ input: stderr }).on('line', (line) => {
        stderrTail.push(line);
        if (stderrTail.length > STDERR_TAIL) stderrTail.shift();
        this.#options.log(`local service: ${line}`);
      });

      const timeout = setTimeout(() => {
        if (ready) return;
        child.kill('SIGKILL');
        fail(`it did not report ready within ${(this.#options.startTimeoutMs ?? 20_000) / 1000} s`);
      }, this.#options.startTimeoutMs ?? 20_000);

      const fail = (why: string) => {
        clearTimeout(timeout);
        const detail = stderrTail.length > 0 ? `: ${stderrTail.slice(-3).join(' | ')}` : '';
        const error = `The local service could not start: ${why}${detail}`;
        this.#set({ status: 'failed', address: null, error });
        reject(new Error(error));
      };

      createInterface({ input: stdout }).once('line', (line) => {
        let parsed;
        try {
          parsed = readyLine.parse(JSON.parse(line));
        } catch {
          child.kill('SIGKILL');
          fail('it printed something other than its ready line');
          return;
        }
        ready = true;
        clearTimeout(timeout);
        this.#lastPort = Number(parsed.address.slice(parsed.address.lastIndexOf(':') + 1));
        this.#credentials = { address: parsed.address, apiKeyId: parsed.api_key_id, apiKey: parsed.api_key };
        this.#set({ status: 'running', address: parsed.address, error: null });
        resolve(this.#credentials);
      });

      child.once('error', (e) => {
        if (!ready) fail(e.message);
      });
      child.once('exit', (code, signal) => {
        if (this.#child === child) this.#child = null;
        if (!ready) {
          fail(signal ? `it was stopped by ${signal}` : `it exited with code ${code}`);
        } else if (this.#state.status === 'stopping') {
          this.#set({ status: 'stopped', address: null, error: null });
        } else {
          const detail = stderrTail.length > 0 ? ` (${stderrTail.slice(-2).join(' | ')})` : '';
          this.#set({ status: 'failed', address: null, error: `The local service exited unexpectedly${signal ? ` (${signal})` : ` with code ${code}`}${detail}. Start it again to reconnect.` });
        }
      });
    });
  }

  #set(partial: Pick<LocalServiceState, 'status' | 'address' | 'error'>): void {
    this.#state = { ...partial, dataDir: this.#options.dataDir };
    this.#options.onChange(this.#state);
  }
}
