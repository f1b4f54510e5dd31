/**
 * The tree reader thread (worker.ts with `role: 'reader'`): a read-only connection that runs only
 * READER_JOBS, so that reading a whole tree never waits in the writer's queue behind a sync's page
 * writes (WAL lets it read beside the writer). It loads the fleet's reads alone, not every domain's
 * jobs (all-jobs.ts): it starts with the app, beside the window's boot, and the rest (zod among it)
 * doubled its start.
 */
import type { MessagePort } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { fleetJobs, isTreeHead, READER_JOBS, READER_STATS, readAheadJobs } from '../fleet/jobs';
import { answer, READ_ON, readKey, type ReadAhead, type Request } from './worker-messages';

/**
 * The tree reader: each job in one read transaction (its statements see one committed state, as
 * they did when the reads ran between the writer's jobs), and the last answer per job and
 * arguments kept while the file is unchanged (`data_version` moves with every commit of another
 * connection): a tree asked for again — a change announced twice, a second window, a launch's page
 * asking what was read ahead — is not read again.
 *
 * `readAhead` (the app's reader, which starts with it): read ahead what a launch's page asks first,
 * every organization's head at once, the rest (their parts: 0.1–0.2 s of a core at 10,000 machines)
 * once a page asks for a tree (a request, or main's READ_ON when a page's first tree ask reached it)
 * or after `holdMs` — on two cores that read took a core from the window's boot. A/B at
 * 10,000 machines, interleaved cold opens: first screenful 443 → 419 and 493 → 457 ms (12 and 14
 * each), whole tree searchable 657 → 705 ms (10 each; its parts are read while the page draws).
 */
export function serveReads(port: MessagePort, path: string, readAhead: { readonly holdMs: number } | null): void {
  const reader = new Database(path, { fileMustExist: true, readonly: true });
  // Trees are a few MB read now and then: the default 16 MB page cache would only hold memory.
  reader.pragma('cache_size = -4000');
  reader.pragma('busy_timeout = 5000');
  /**
   * Kept answers in one form: the value as read, or, once asked as text (what the app asks: main
   * sends it on as it is), its JSON text alone — whole trees are megabytes, and the text also
   * leaves this thread as one string instead of 150,000.
   */
  const ready = new Map<string, { version: number; value: unknown; text: string | null }>();
  /** Reads a page asked for itself: reading them ahead too would hand main a copy nobody takes. */
  const asks = new Set<string>();
  /** What the reader did so far (READER_STATS): reads it ran (asked or ahead), answers it gave from what it kept. */
  const stats = { read: 0, kept: 0, ahead: 0 };
  let closed = false;
  /** The read-ahead stops before the first read that is not a head until a page asks for a tree (`readOn`), or `holdMs` is up. */
  let held = readAhead !== null;
  /** Whether the read-ahead stopped there (and `readOn` must start it again). */
  let parked = false;
  const holdTimer = readAhead === null ? undefined : setTimeout(() => readOn(), readAhead.holdMs);
  /** A page asks for a tree: the read-ahead goes on past the heads. */
  const readOn = () => {
    if (!held) return;
    held = false;
    clearTimeout(holdTimer);
    if (parked) {
      parked = false;
      setImmediate(next);
    }
  };
  const read = (job: string, args: readonly unknown[], text: boolean, asked = true): unknown => {
    if (!READER_JOBS.has(job)) throw new Error(`${job} is not a read the tree reader runs`);
    const run = fleetJobs[job as keyof typeof fleetJobs] as (database: Database.Database, ...args: readonly unknown[]) => unknown;
    return reader.transaction(() => {
      const version = reader.pragma('data_version', { simple: true }) as number;
      const key = readKey(job, args);
      if (asked) asks.add(key);
      let kept = ready.get(key);
      if (kept?.version === version) {
        if (asked) stats.kept++;
      } else {
        stats.read++;
        // What was kept of an older revision will never be given again: megabytes per tree.
        for (const [other, entry] of ready) if (entry.version !== version) ready.delete(other);
        kept = { version, value: run(reader, ...args), text: null };
        ready.set(key, kept);
      }
      if (!text) return kept.text === null ? kept.value : JSON.parse(kept.text);
      if (kept.text === null) {
        kept.text = JSON.stringify(kept.value);
        kept.value = null;
      }
      return kept.text;
    })();
  };
  // Requests wait here for a turn of the event loop: a page asks for every organization's head and
  // parts at once, and the heads (its first screenful) are answered before any parts, whatever the
  // order they came in. One read per turn, so that what arrives meanwhile is weighed too.
  const waiting: Request[] = [];
  let draining = false;
  const drain = () => {
    draining = false;
    if (closed) return;
    const at = waiting.findIndex((r) => isTreeHead(r.job, r.args));
    const [message] = waiting.splice(at === -1 ? 0 : at, 1);
    if (message === undefined) return;
    answer(port, message.id, () => ((message.job as string) === READER_STATS ? { ...stats } : read(message.job, message.args, message.text === true)));
    if (waiting.length > 0) schedule();
  };
  const schedule = () => {
    if (draining) return;
    draining = true;
    setImmediate(drain);
  };
  port.on('message', (message: Request | 'close' | typeof READ_ON) => {
    if (message === 'close') {
      closed = true;
      clearTimeout(holdTimer);
      reader.close();
      port.close();
      return;
    }
    if (message === READ_ON) return readOn();
    // Asking how it did (a test, the bench) is not a page asking for a tree.
    if ((message.job as string) !== READER_STATS) readOn();
    waiting.push(message);
    schedule();
  });
  if (readAhead === null) return;
  // One read per turn too, after any request waiting. A read that fails is left to the request that
  // needs it, which says why.
  let ahead: ReturnType<typeof readAheadJobs> = [];
  try {
    ahead = readAheadJobs(reader);
  } catch {
    // A cache the reader cannot list yet: it answers what is asked, as without a read-ahead.
  }
  const next = () => {
    if (closed) return;
    if (waiting.length > 0) return void setImmediate(next);
    // The heads first, at once; what follows waits until a page asks (readOn).
    if (held && ahead[0] !== undefined && !isTreeHead(ahead[0].job, ahead[0].args)) {
      parked = true;
      return;
    }
    const item = ahead.shift();
    if (item === undefined) return;
    // Asked already (a page asks for its parts a frame after its head, and may do so before the
    // read-ahead reached them): answered, and main would keep the copy for nobody.
    if (asks.has(readKey(item.job, item.args))) return void setImmediate(next);
    try {
      // Kept as the page's asks will want it: as text; and handed to main, which answers them itself.
      const text = read(item.job, item.args, true, false) as string;
      stats.ahead++;
      port.postMessage({ ahead: readKey(item.job, item.args), text } satisfies ReadAhead);
    } catch {
      // Nothing asked for it yet.
    }
    setImmediate(next);
  };
  setImmediate(next);
}
