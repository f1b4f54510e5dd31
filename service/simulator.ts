/**
 * The service's stand-in for robots. No operation of the contract sets a part's last_access (real
 * parts would report it by connecting), so in a demo data dir the service plays its machines: each
 * part with a `part_simulation` row checks in on its own rhythm —
 * - steady: every `interval_s` seconds, always live;
 * - flaky: live for `period_s` seconds (checking in every `interval_s`), then quiet for as long,
 *   offset by `phase_s` so parts do not flip together — liveness visibly changes while you watch.
 * Parts without a row (all but the demo fleet's, and the demo's "quiet" ones) are never touched.
 * A check-in also clears `marked_for_restart`: a part that contacts the service has restarted.
 * Live parts with a log rate (`log_per_min`) log like robots do (service/logs/simulated.ts); parts
 * that are not live log nothing. The log's retention bound is applied once a minute.
 *
 * One UPDATE per second, whatever the fleet's size, decided in SQL, and one insert transaction.
 *
 * Composition code beside demo.ts, not in a domain: it plays machines (their check-ins) and logs
 * (their lines) at once, and a domain imports no other domain.
 */
import type Database from 'better-sqlite3';
import { simulatedLevel, simulatedLine, simulatedLines, type LoggingPart } from './logs/simulated';
import { LogStore } from './logs/store';

/** How often the simulation runs. */
export const TICK_MS = 1_000;
/** A part is live this long after it checked in (PROTOCOL.md section 6). */
const LIVE_MS = 10_000;

export interface Simulator {
  /** Run one tick for the instant `now` (tests drive it directly). Returns the parts that checked in. */
  tick(now?: Date): number;
  /** With a fixed log rate: one log step (LOG_STEP_MS) ending at `now`. Returns the lines it stored. */
  logStep(now?: Date): number;
  stop(): void;
}

/** With a fixed log rate, lines are written in steps this long, so that they reach tails within a fraction of a second. */
export const LOG_STEP_MS = 50;

export function startSimulator(db: Database.Database, log: (line: string) => void, options: { autoStart?: boolean; logRate?: number } = {}): Simulator {
  const checkIn = db.prepare(
    `UPDATE robot_parts SET last_access = @now, marked_for_restart = 0
      WHERE id IN (
        SELECT part_id FROM part_simulation
         WHERE (@t + phase_s) % interval_s = 0
           AND (pattern = 'steady' OR ((@t + phase_s) / period_s) % 2 = 0))`,
  );
  // Parts log while they are live (checked in within 10 s), each at its own rate.
  const logging = db.prepare(
    `SELECT s.part_id AS partId, p.name AS name, s.log_per_min AS perMin
       FROM part_simulation s JOIN robot_parts p ON p.id = s.part_id
      WHERE s.log_per_min > 0 AND p.last_access >= @since`,
  );
  // Benchmarks: every live simulated part, whatever its own rate, shares a fixed rate.
  const allLive = db.prepare(
    `SELECT s.part_id AS partId, p.name AS name, 0 AS perMin
       FROM part_simulation s JOIN robot_parts p ON p.id = s.part_id
      WHERE p.last_access >= @since`,
  );
  const logs = new LogStore(db);
  const rate = options.logRate;
  let live: LoggingPart[] = [];
  let next = 0;
  let owed = 0;
  let lastStep: number | null = null;
  const tick = (now = new Date()) => {
    const checkedIn = checkIn.run({ now: now.toISOString(), t: Math.floor(now.getTime() / 1000) }).changes;
    const since = new Date(now.getTime() - LIVE_MS).toISOString();
    if (rate === undefined) {
      const lines = (logging.all({ since }) as LoggingPart[]).flatMap((part) => simulatedLines(part, now));
      if (lines.length > 0) logs.append(lines);
    } else live = allLive.all({ since }) as LoggingPart[];
    // Retention after each append, so each prune deletes only what the append pushed out.
    if (rate === undefined) logs.prune(now.getTime() * 1000);
    return checkedIn;
  };
  const logStep = (now = new Date()) => {
    if (rate === undefined || live.length === 0) return 0;
    // Lines owed for the time since the last step (a late timer owes more), at most a second's
    // worth; whole lines now, the fraction carried, so the rate holds.
    const elapsed = lastStep === null ? LOG_STEP_MS : Math.max(0, now.getTime() - lastStep);
    lastStep = now.getTime();
    owed = Math.min(owed + (rate * elapsed) / 1000, rate);
    const count = Math.floor(owed);
    owed -= count;
    const endUs = now.getTime() * 1000;
    const lines = [];
    for (let i = 0; i < count; i++) {
      const part = live[next++ % live.length] as LoggingPart;
      lines.push(simulatedLine(part, simulatedLevel(), endUs - Math.floor(((count - i) * elapsed * 1000) / count)));
    }
    logs.append(lines);
    logs.prune(endUs);
    return count;
  };
  let failing = false;
  let logFailing = false;
  const timer =
    options.autoStart === false
      ? null
      : setInterval(() => {
          try {
            tick();
            failing = false;
          } catch (e) {
            // A busy database (another writer) only delays the next check-in; say it once.
            if (!failing) log(`simulation: a tick failed (${e instanceof Error ? e.message : String(e)}); retrying every second`);
            failing = true;
          }
        }, TICK_MS);
  timer?.unref();
  const logTimer =
    options.autoStart === false || rate === undefined
      ? null
      : setInterval(() => {
          try {
            logStep();
            if (logFailing) log('simulation: log steps write again');
            logFailing = false;
          } catch (e) {
            // Twenty steps a second: a full disk would otherwise write twenty lines a second to the log it fills.
            if (!logFailing) log(`simulation: a log step failed (${e instanceof Error ? e.message : String(e)}); retrying every step, said again once it works`);
            logFailing = true;
          }
        }, LOG_STEP_MS);
  logTimer?.unref();
  return {
    tick,
    logStep,
    stop: () => {
      if (timer) clearInterval(timer);
      if (logTimer) clearInterval(logTimer);
    },
  };
}
