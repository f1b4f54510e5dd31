/**
 * A real Backend for cross-process tests: real profile store, caches and keychain, with the local
 * service and the cache worker bundled from the source of this run (./entries.ts), as the app runs them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChannelName, RequestOf, ResponseOf } from '../../common/channels';
import type { EventName, Events } from '../../common/events';
import type { Result } from '../../common/result';
import { Backend, type BackendOptions } from '../../main/backend/backend';
import { createRouter, type BridgeHost, type BridgeSender } from '../../main/backend/router';
import { cacheWorkerEntry, serviceEntry } from './entries';

export { cacheWorkerEntry, repoRoot, serviceEntry } from './entries';
/** Node flags for the service's process: none, the entry is JavaScript (kept for the callers that pass it on). */
export const serviceExecArgv: readonly string[] = [];
export const trustedSender: BridgeSender = { transport: 'ipc', url: 'app://fleet-desk/index.html', id: 1 };

export function tempDir(prefix: string): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export interface TestBackend {
  readonly backend: Backend;
  readonly host: BridgeHost;
  readonly dir: string;
  /** A bridge call as the renderer makes it, through the router. */
  call<K extends ChannelName>(channel: K, request: RequestOf<K>): Promise<Result<ResponseOf<K>>>;
  /** Like call, but fails the test on an error result. */
  value<K extends ChannelName>(channel: K, request: RequestOf<K>): Promise<ResponseOf<K>>;
  /** Resolves with the first payload of `event` that satisfies `predicate` (or the current one, via `current`). */
  next<E extends EventName>(event: E, predicate: (payload: Events[E]) => boolean, timeoutMs?: number): Promise<Events[E]>;
  logs: string[];
  close(): Promise<void>;
}

export async function openTestBackend(dir: string, options: Partial<BackendOptions> = {}): Promise<TestBackend> {
  const logs: string[] = [];
  const backend = await Backend.open({
    userDataDir: dir,
    serviceEntry,
    serviceExecArgv,
    log: (m) => logs.push(m),
    timing: { retryMinMs: 100, retryMaxMs: 500, refreshMs: 60_000, deadlineMs: 3_000 },
    cacheWorker: { entry: cacheWorkerEntry },
    ...options,
  });
  const host = createRouter(backend.handlers, { isTrustedSender: (s) => s.url === trustedSender.url, log: (m) => logs.push(m) });
  const call = <K extends ChannelName>(channel: K, request: RequestOf<K>) => host.dispatch(trustedSender, channel, request) as Promise<Result<ResponseOf<K>>>;
  return {
    backend,
    host,
    dir,
    logs,
    call,
    async value(channel, request) {
      const result = await call(channel, request);
      if (!result.ok) throw new Error(`${channel} failed: ${result.error.kind}: ${result.error.message}`);
      return result.value;
    },
    next(event, predicate, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          stop();
          reject(new Error(`no ${event} event matched within ${timeoutMs} ms`));
        }, timeoutMs);
        const stop = backend.events.subscribe((name, payload) => {
          if ((name as EventName) !== event) return;
          const typed = payload as unknown as Events[typeof event];
          if (!predicate(typed)) return;
          clearTimeout(timer);
          stop();
          resolve(typed);
        });
      });
    },
    close: () => backend.close(),
  };
}
