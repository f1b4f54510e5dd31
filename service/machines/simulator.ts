/**
 * The service's stand-in for robots. No operation of the contract sets a part's last_access (real
 * parts would report it by connecting), so in a demo data dir the service plays its machines: each
 * part with a `part_simulation` row checks in on its own rhythm —
 * - steady: every `interval_s` seconds, always live;
 * - flaky: live for `period_s` seconds (checking in every `interval_s`), then quiet for as long,
 *   offset by `phase_s` so parts do not flip together — liveness visibly changes while you watch.
 * Parts without a row (all but the demo fleet's, and the demo's "quiet" ones) are never touched.
 * A check-in also clears `marked_for_restart`: a part that contacts the service has restarted.
 *
 * One UPDATE per second, whatever the fleet's size, decided in SQL.
 */
import type Database from 'better-sqlite3';

/** How often the simulation runs. */
export const TICK_MS = 1_000;

export interface Simulator {
  /** Run one tick for the instant `now` (tests drive it directly). Returns the parts that checked in. */
  tick(now?: Date): number;
  stop(): void;
}

export function startSimulator(db: Database.Database, log: (line: string) => void, options: { autoStart?: boolean } = {}): Simulator {
  const checkIn = db.prepare(
    `UPDATE robot_parts SET last_access = @now, marked_for_restart = 0
      WHERE id IN (
        SELECT part_id FROM part_simulation
         WHERE (@t + phase_s) % interval_s = 0
           AND (pattern = 'steady' OR ((@t + phase_s) / period_s) % 2 = 0))`,
  );
  const tick = (now = new Date()) => checkIn.run({ now: now.toISOString(), t: Math.floor(now.getTime() / 1000) }).changes;
  let failing = false;
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
  return {
    tick,
    stop: () => {
      if (timer) clearInterval(timer);
    },
  };
}
