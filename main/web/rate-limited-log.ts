/**
 * A log for events an outsider can cause at will (refused connections, sockets reset before a
 * request): the first one of a window is written at once, the rest of that window are counted and
 * summed up in one line when it ends. However fast a local process knocks, the log grows by at most
 * two lines per window, and the cause is still visible.
 */
export interface RateLimitedLog {
  /** Report one event; `what` is its kind in a few words (summed up per kind at the end of the window). */
  (what: string): void;
  /** Write the pending summary now and stop the timer (on shutdown). */
  flush(): void;
}

export interface RateLimitedLogOptions {
  /** Length of a window. */
  readonly windowMs?: number;
  /** What every line starts with, e.g. "web: refused a bridge connection". */
  readonly prefix: string;
}

export const DEFAULT_WINDOW_MS = 10_000;

export function createRateLimitedLog(log: (line: string) => void, options: RateLimitedLogOptions): RateLimitedLog {
  const windowMs = options.windowMs ?? DEFAULT_WINDOW_MS;
  /** Kinds held back in the current window, with their counts; null while no window is open. */
  let held: Map<string, number> | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;

  const closeWindow = (): void => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    const counts = held;
    held = null;
    if (counts === null || counts.size === 0) return;
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    const kinds = [...counts].map(([what, n]) => `${what} ×${n}`).join(', ');
    log(`${options.prefix}: ${total} more in the last ${Math.round(windowMs / 1000)} s (${kinds})`);
  };

  const report = ((what: string) => {
    if (held === null) {
      held = new Map();
      // unref: a pending summary must not keep a shutting-down process alive.
      timer = setTimeout(closeWindow, windowMs);
      timer.unref?.();
      log(`${options.prefix} (${what})`);
      return;
    }
    held.set(what, (held.get(what) ?? 0) + 1);
  }) as RateLimitedLog;
  report.flush = closeWindow;
  return report;
}
