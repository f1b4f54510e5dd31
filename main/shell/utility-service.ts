/**
 * The local service in an Electron utility process, shaped as the supervisor's ServiceProcess.
 *
 * Why: node's child_process.fork runs the Electron binary with ELECTRON_RUN_AS_NODE, which the
 * packaged app's RunAsNode fuse turns off (electron-builder.config.ts). `utilityProcess.fork` starts
 * a Node.js child through Chromium's process launcher instead, which no fuse blocks.
 *
 * What differs from a node fork, and how this adapter evens it out:
 * - No signals: `kill()` takes none; it sends SIGTERM on POSIX (the service then closes its database
 *   and exits) and TerminateProcess on Windows (immediate, as node's `kill()` is there too). The
 *   supervisor's SIGKILL after its grace period is sent to the pid directly on POSIX, and is the same
 *   TerminateProcess on Windows.
 * - `kill()` before the process has spawned does nothing in Electron; here it is held until 'spawn'.
 * - 'exit' carries a code only (`signalCode` stays null), and there is no 'error' for a start that
 *   failed: such a process just exits. Electron's 'error' (a fatal V8 error, always followed by
 *   'exit') is written to stderr instead, so it shows in the log and in the supervisor's failure message.
 * - On 'exit' Electron drops every listener of the child's stdout/stderr and forgets them, though
 *   the last lines may still be on their way. This adapter owns the streams it hands out, keeps
 *   reading Electron's after the exit, and reports 'exit' once both have ended (or after
 *   OUTPUT_DRAIN_MS), so the stderr tail that explains a crash is complete and 'exit' comes last,
 *   as the supervisor expects.
 * - No IPC 'disconnect': a utility process has `process.parentPort`, not `process.send`. On quit the
 *   supervisor stops the service with SIGTERM first; should the app die instead, the service sees
 *   its parent pid change and stops itself (service/main.ts), so no orphan keeps the port or the database.
 */
import { EventEmitter } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import { utilityProcess, type UtilityProcess } from 'electron';
import type { ServiceProcess, SpawnService } from '../local-service/supervisor';

/** The name Electron shows for the process (app.getAppMetrics, 'child-process-gone'). */
export const SERVICE_NAME = 'Fleet Desk service';

/** How long output may still arrive after the process has ended before 'exit' is reported anyway. */
export const OUTPUT_DRAIN_MS = 500;

type Signal = 'SIGTERM' | 'SIGKILL';

export interface UtilityServiceOptions {
  /** Defaults to process.platform; tests pass another to cover Windows. */
  readonly platform?: NodeJS.Platform;
  /** Sends a signal to a pid; defaults to process.kill. */
  readonly killPid?: (pid: number, signal: Signal) => void;
}

/** One of the child's output streams, copied into the stream the adapter hands out. */
interface Pipe {
  readonly source: Readable;
  readonly target: PassThrough;
  ended: boolean;
}

class UtilityServiceProcess extends EventEmitter implements ServiceProcess {
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  exitCode: number | null = null;
  readonly signalCode: NodeJS.Signals | null = null;
  readonly #child: UtilityProcess;
  readonly #platform: NodeJS.Platform;
  readonly #killPid: (pid: number, signal: Signal) => void;
  readonly #pipes: Pipe[] = [];
  #pid: number | undefined;
  /** The code Electron reported; we may still be draining output before saying 'exit'. */
  #exitedWith: number | null = null;
  /** We said 'exit'. */
  #finished = false;
  #drainTimer: NodeJS.Timeout | undefined;
  #pendingKill: Signal | null = null;

  constructor(child: UtilityProcess, options: UtilityServiceOptions) {
    super();
    this.#child = child;
    this.#platform = options.platform ?? process.platform;
    this.#killPid = options.killPid ?? ((pid, signal) => process.kill(pid, signal));
    this.#pid = child.pid;
    // Taken now: Electron's getters return null once the child has exited.
    for (const [source, target] of [
      [child.stdout, this.stdout],
      [child.stderr, this.stderr],
    ] as const) {
      if (!source) {
        target.end();
        continue;
      }
      const pipe: Pipe = { source: source as Readable, target, ended: false };
      this.#pipes.push(pipe);
      this.#attach(pipe);
    }

    child.once('spawn', () => {
      this.#pid = child.pid;
      const pending = this.#pendingKill;
      this.#pendingKill = null;
      if (pending) this.kill(pending);
    });
    child.on('error', (type, location) => {
      if (!this.#finished) this.stderr.write(`utility process: ${type} at ${location}\n`);
    });
    child.once('exit', (code) => this.#exit(code));
  }

  get pid(): number | undefined {
    return this.#pid;
  }

  #attach(pipe: Pipe): void {
    pipe.source.on('data', (chunk: Buffer | string) => pipe.target.write(chunk));
    pipe.source.once('end', () => {
      if (pipe.ended) return;
      pipe.ended = true;
      pipe.target.end();
      this.#finishWhenDrained();
    });
  }

  #exit(code: number): void {
    this.#exitedWith = code;
    this.#drainTimer = setTimeout(() => this.#finish(), OUTPUT_DRAIN_MS);
    const open = this.#pipes.filter((pipe) => !pipe.ended);
    // Right after this handler, Electron calls removeAllListeners() on both streams (lib/browser/api/
    // utility-process.ts), though the last output may still be in the pipe. Ours go back on in that
    // same call, so nothing emitted afterwards is lost. Pausing would not do: Node resumes a stream
    // that has lost all its listeners.
    for (const pipe of open) {
      const { source } = pipe;
      const removeAll = source.removeAllListeners;
      const restore = () => {
        if (Object.hasOwn(source, 'removeAllListeners')) delete (source as { removeAllListeners?: unknown }).removeAllListeners;
      };
      source.removeAllListeners = (...args: Parameters<Readable['removeAllListeners']>) => {
        restore();
        const result = removeAll.apply(source, args);
        if (!pipe.ended) this.#attach(pipe);
        return result;
      };
      // Should Electron ever stop doing so, our listeners simply stay, and the stream is left as it was.
      setImmediate(restore);
    }
    this.#finishWhenDrained();
  }

  #finishWhenDrained(): void {
    if (this.#exitedWith !== null && this.#pipes.every((pipe) => pipe.ended)) this.#finish();
  }

  #finish(): void {
    if (this.#finished || this.#exitedWith === null) return;
    this.#finished = true;
    clearTimeout(this.#drainTimer);
    this.stdout.end();
    this.stderr.end();
    this.exitCode = this.#exitedWith;
    this.emit('exit', this.#exitedWith, null);
  }

  kill(signal: Signal): boolean {
    if (this.#exitedWith !== null) return false;
    if (this.#pid === undefined) {
      // Not spawned yet: Electron would ignore a kill now. The stronger of two requests wins.
      if (this.#pendingKill !== 'SIGKILL') this.#pendingKill = signal;
      return true;
    }
    if (signal === 'SIGKILL' && this.#platform !== 'win32') {
      try {
        this.#killPid(this.#pid, 'SIGKILL');
        return true;
      } catch {
        return false; // already gone
      }
    }
    // SIGTERM on POSIX; TerminateProcess on Windows, for SIGTERM and SIGKILL alike.
    return this.#child.kill();
  }
}

/** A SpawnService that runs the entry in an Electron utility process (only after the app is ready). */
export function createUtilityServiceSpawner(options: UtilityServiceOptions = {}): SpawnService {
  return (entry, args, { execArgv }) => {
    const child = utilityProcess.fork(entry, [...args], {
      stdio: 'pipe',
      serviceName: SERVICE_NAME,
      execArgv: [...execArgv],
    });
    return new UtilityServiceProcess(child, options);
  };
}

export const spawnServiceInUtilityProcess: SpawnService = createUtilityServiceSpawner();
