/**
 * Keeps the liveness of what is on screen fresh. The renderer names the machines whose rows it
 * shows (machines.watch); while the profile is online, every INTERVAL_MS this asks the service for
 * just their locations' machines (ListMachineSummaries filtered by location_ids), writes the parts'
 * last access into the cache and reports the parts that changed (machines.liveness). The cost
 * follows what is visible — a screenful of rows, a few locations — not the size of the fleet.
 */
import type { LivenessUpdate } from '../../common/machines';
import type { EventBus } from '../backend/events';
import { AppError } from '../backend/errors';
import { listAllSummaries } from '../fleet/sync';
import { cachedLiveness, locationsOfMachines, type LivenessRow } from './cache';
import type { Connection } from '../connection/connection';
import type { ProfileScoped } from '../connection/profile-scoped';

/** How often watched machines are refreshed: a part is live for 10 s after its last access. */
export const LIVENESS_INTERVAL_MS = 2_000;
/** At most this many locations are asked about per refresh (a screenful spans a few). */
const MAX_LOCATIONS = 50;

export class LivenessWatcher implements ProfileScoped {
  readonly #connection: Connection;
  readonly #events: EventBus;
  readonly #log: (message: string) => void;
  readonly #intervalMs: number;
  #watched: readonly string[] = [];
  #profileId: string | null = null;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  /** Service calls made, for tests that check the cost stays with what is watched. */
  calls = 0;

  constructor(connection: Connection, events: EventBus, log: (message: string) => void, intervalMs = LIVENESS_INTERVAL_MS) {
    this.#connection = connection;
    this.#events = events;
    this.#log = log;
    this.#intervalMs = intervalMs;
    connection.scope(this);
  }

  /** The old profile's watch is left behind: the renderer names the new profile's rows. */
  switchTo(): void {
    this.stop();
  }

  /** Replace the watched machines; answers their cached liveness at once and refreshes them soon. */
  watch(machineIds: readonly string[]): LivenessUpdate {
    this.#watched = [...new Set(machineIds)];
    this.#profileId = this.#connection.profileId;
    const parts = this.#watched.length > 0 ? cachedLiveness(this.#connection.cache, this.#watched) : {};
    this.#schedule(0);
    return { at: new Date().toISOString(), parts };
  }

  stop(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#watched = [];
  }

  #schedule(ms: number): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#watched.length === 0) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      // A refresh still under way reschedules when it ends.
      if (this.#running !== null) return;
      this.#running = this.#refresh().finally(() => {
        this.#running = null;
        this.#schedule(this.#intervalMs);
      });
    }, ms);
    this.#timer.unref();
  }

  async #refresh(): Promise<void> {
    if (this.#connection.state.status !== 'online' || this.#watched.length === 0) return;
    const watched = new Set(this.#watched);
    const byOrg = new Map<string, string[]>();
    for (const { orgId, locationId } of locationsOfMachines(this.#connection.cache, this.#watched).slice(0, MAX_LOCATIONS)) {
      byOrg.set(orgId, [...(byOrg.get(orgId) ?? []), locationId]);
    }
    try {
      const fresh: Record<string, LivenessRow> = {};
      const changed = await this.#connection.use(async (client, _cache, run) => {
        for (const [orgId, locationIds] of byOrg) {
          this.calls += 1;
          for (const summary of await listAllSummaries(client, { orgId, locationIds })) {
            if (!watched.has(summary.machineId)) continue;
            for (const p of summary.partSummaries) fresh[p.partId] = { lastAccess: p.lastAccess ? p.lastAccess.toISOString() : null, markedForRestart: p.markedForRestart };
          }
        }
        return run('updateLiveness', fresh);
      });
      if (this.#connection.profileId !== this.#profileId) return;
      if (Object.keys(changed).length > 0) this.#events.emit('machines.liveness', { at: new Date().toISOString(), parts: changed });
    } catch (e) {
      // Offline is the connection's to report; anything else is only worth a line: the next tick tries again.
      if (!(e instanceof AppError && e.kind === 'offline')) this.#log(`liveness: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}
