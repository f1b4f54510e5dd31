import { randomBytes, randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { EditorInfo } from '../../proto/gen/fleet/app/v1/access';
import type { MachineSummary, PartSummary, Robot, RobotPart, RobotPartHistoryEntry } from '../../proto/gen/fleet/app/v1/machines';
import { isObject, parseFragments, type JsonObject } from '../../fleetconfig';
import { present } from '../errors';

interface RobotRow {
  id: string;
  name: string;
  location_id: string;
  created_on: string;
  last_access: string | null;
}

interface PartRow {
  id: string;
  name: string;
  robot_id: string;
  location_id: string;
  main_part: number;
  config_json: string;
  fqdn: string;
  local_fqdn: string;
  last_access: string | null;
  marked_for_restart: number;
  created_on: string;
  last_updated: string;
}

const ROBOT = `SELECT r.id, r.name, r.location_id, r.created_on,
  (SELECT max(p.last_access) FROM robot_parts p WHERE p.robot_id = r.id) AS last_access FROM robots r`;
const PART = 'SELECT id, name, robot_id, location_id, main_part, config_json, fqdn, local_fqdn, last_access, marked_for_restart, created_on, last_updated FROM robot_parts';

const date = (iso: string | null) => (iso === null ? undefined : new Date(iso));

function toRobot(row: RobotRow): Robot {
  return { id: row.id, name: row.name, locationId: row.location_id, createdOn: new Date(row.created_on), lastAccess: date(row.last_access) };
}

/** A name as a DNS label: lowercase letters, digits and dashes. */
function slug(name: string): string {
  return (
    name
      .normalize('NFKD')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'part'
  );
}

/** A part's address on the fleet network: assigned once, opaque to clients, unique. */
export function partFqdn(name: string, id: string): string {
  return `${slug(name)}-${id.slice(0, 8)}.fleet.internal`;
}

/**
 * What deleting a machine needs of the authorizations, which the access domain writes
 * (access/authorizations.ts): handed in by server.ts, since a domain imports no other domain.
 */
export interface MachineAuthorizations {
  dropOn(resourceType: 'robot', resourceId: string): void;
}

interface HistoryRow {
  id: number;
  part_id: string;
  edited_on: string;
  editor_type: string;
  editor_id: string;
  editor_name: string;
  name: string;
  config_json: string;
  main_part: number;
  marked_for_restart: number;
  secrets: string;
  last_updated: string;
  robot_id: string;
  location_id: string;
  fqdn: string;
  local_fqdn: string;
  created_on: string;
}

/** What UpdateRobotPart asked for: the name, and the config's text when it gives one. */
export interface PartChange {
  readonly name: string;
  readonly configJson?: string;
}

/** How an update went: made (or nothing to change), or refused as stale with the stored last_updated. */
export type PartUpdate = { readonly ok: true; readonly part: RobotPart } | { readonly ok: false; readonly storedLastUpdated: Date };

/**
 * A part's last_updated after a change at `now`: strictly later than the one before, so that two
 * changes within one millisecond still tell a stale last_known_update from a fresh one.
 */
function nextUpdate(now: Date, previous: string): string {
  return new Date(Math.max(now.getTime(), Date.parse(previous) + 1)).toISOString();
}

/**
 * The rows of the index of what configs name (`part_fragment_refs`, migration 0012) for a config:
 * each `fragments` entry that names a fragment, by its position, with the version asked for ('' for
 * the latest). Shared with the demo seeder, which inserts parts in bulk.
 */
export function fragmentRefRows(config: JsonObject): { position: number; fragmentId: string; version: string }[] {
  return parseFragments(config).refs.map((r) => ({ position: r.index, fragmentId: r.id, version: r.version ?? '' }));
}

/**
 * The module ids a config names in `modules[].module_id` (the index `part_module_refs`, migration
 * 0016), each once: every object among the values of `modules` (an array's elements, or an object's
 * values, as SQLite's json_each read them before the index) whose `module_id` is text. Shared with
 * the demo seeder, which inserts parts in bulk.
 */
export function moduleRefRows(config: JsonObject): string[] {
  const modules = config.modules;
  const entries: unknown[] = Array.isArray(modules) ? modules : isObject(modules) ? Object.values(modules) : [];
  const ids = new Set<string>();
  for (const entry of entries) if (isObject(entry) && typeof entry.module_id === 'string') ids.add(entry.module_id);
  return [...ids];
}

/** Machines and their parts. Every write that touches more than one row is one transaction. */
export class MachineStore {
  constructor(
    private readonly db: Database.Database,
    private readonly authorizations: MachineAuthorizations,
  ) {}

  robot(id: string): Robot | undefined {
    const row = this.db.prepare(`${ROBOT} WHERE r.id = ?`).get(id) as RobotRow | undefined;
    return row && toRobot(row);
  }

  private secrets(partIds: readonly string[]): Map<string, RobotPart['secrets']> {
    const rows = this.db
      .prepare('SELECT id, part_id, secret, created_on FROM part_secrets WHERE part_id IN (SELECT value FROM json_each(?)) ORDER BY created_on, id')
      .all(JSON.stringify(partIds)) as { id: string; part_id: string; secret: string; created_on: string }[];
    const out = new Map<string, RobotPart['secrets']>();
    for (const r of rows) out.set(r.part_id, [...(out.get(r.part_id) ?? []), { id: r.id, secret: r.secret, createdOn: new Date(r.created_on) }]);
    return out;
  }

  private toParts(rows: readonly PartRow[]): RobotPart[] {
    const secrets = this.secrets(rows.map((r) => r.id));
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      robotId: row.robot_id,
      locationId: row.location_id,
      robotConfig: JSON.parse(row.config_json) as { [key: string]: unknown },
      fqdn: row.fqdn,
      localFqdn: row.local_fqdn,
      lastAccess: date(row.last_access),
      secrets: secrets.get(row.id) ?? [],
      mainPart: row.main_part === 1,
      createdOn: new Date(row.created_on),
      lastUpdated: new Date(row.last_updated),
      markedForRestart: row.marked_for_restart === 1,
    }));
  }

  /** The parts of a machine: main part first, then by creation. */
  parts(robotId: string): RobotPart[] {
    return this.toParts(this.db.prepare(`${PART} WHERE robot_id = ? ORDER BY main_part DESC, created_on, id`).all(robotId) as PartRow[]);
  }

  part(id: string): { part: RobotPart; configJson: string } | undefined {
    const row = this.db.prepare(`${PART} WHERE id = ?`).get(id) as PartRow | undefined;
    if (row === undefined) return undefined;
    return { part: present(this.toParts([row])[0], `part ${id}`), configJson: row.config_json };
  }

  partIdByName(locationId: string, name: string): string | undefined {
    return this.db.prepare('SELECT id FROM robot_parts WHERE location_id = ? AND name = ?').pluck().get(locationId, name) as string | undefined;
  }

  robotNameTaken(locationId: string, name: string, except?: string): boolean {
    return this.db.prepare('SELECT 1 FROM robots WHERE location_id = ? AND name = ? AND id IS NOT ?').get(locationId, name, except ?? null) !== undefined;
  }

  /** Names of the machine's parts that another machine's part already has in `locationId`. */
  partNamesTaken(locationId: string, names: readonly string[], exceptRobot?: string): string[] {
    return this.db
      .prepare('SELECT name FROM robot_parts WHERE location_id = ? AND name IN (SELECT value FROM json_each(?)) AND robot_id IS NOT ? ORDER BY name')
      .pluck()
      .all(locationId, JSON.stringify(names), exceptRobot ?? null) as string[];
  }

  /** Index what a part's config names, fragments and modules (replacing what its config named before); inside the write's transaction. */
  private indexRefs(partId: string, robotId: string, configJson: string): void {
    this.db.prepare('DELETE FROM part_fragment_refs WHERE part_id = ?').run(partId);
    this.db.prepare('DELETE FROM part_module_refs WHERE part_id = ?').run(partId);
    // Most configs name neither: no need to parse them. (A key spelled with escapes, `"modul\u0065s"`, is parsed too.)
    const fragments = configJson.includes('"fragments"');
    const modules = configJson.includes('modules') || configJson.includes('\\u');
    if (!fragments && !modules) return;
    const parsed: unknown = JSON.parse(configJson);
    if (!isObject(parsed)) return;
    if (fragments) {
      const insert = this.db.prepare('INSERT INTO part_fragment_refs (part_id, robot_id, position, fragment_id, version) VALUES (?, ?, ?, ?, ?)');
      for (const r of fragmentRefRows(parsed)) insert.run(partId, robotId, r.position, r.fragmentId, r.version);
    }
    if (modules) {
      const insert = this.db.prepare('INSERT INTO part_module_refs (part_id, module_id) VALUES (?, ?)');
      for (const moduleId of moduleRefRows(parsed)) insert.run(partId, moduleId);
    }
  }

  private insertPart(robotId: string, locationId: string, name: string, main: boolean, now: string, configJson = '{}'): string {
    const id = randomUUID();
    this.db
      .prepare(
        `INSERT INTO robot_parts (id, robot_id, location_id, name, main_part, config_json, fqdn, local_fqdn, created_on, last_updated)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(id, robotId, locationId, name, main ? 1 : 0, configJson, partFqdn(name, id), `${slug(name)}.local`, now, now);
    // A part always has a secret: the credential it connects to the service with.
    this.db.prepare('INSERT INTO part_secrets (id, part_id, secret, created_on) VALUES (?, ?, ?, ?)').run(randomUUID(), id, randomBytes(24).toString('base64url'), now);
    this.indexRefs(id, robotId, configJson);
    return id;
  }

  /** A new machine with its main part `<name>-main`, whose config is `configJson` (the organization's default fragments). */
  newRobot(locationId: string, name: string, options: { readonly now?: Date; readonly configJson?: string } = {}): string {
    const id = randomUUID();
    const at = (options.now ?? new Date()).toISOString();
    this.db.transaction(() => {
      this.db.prepare('INSERT INTO robots (id, location_id, name, created_on) VALUES (?, ?, ?, ?)').run(id, locationId, name, at);
      this.insertPart(id, locationId, `${name}-main`, true, at, options.configJson);
    })();
    return id;
  }

  /** The config text of each part of a machine: main part first, then by creation. */
  configs(robotId: string): string[] {
    return this.db.prepare('SELECT config_json FROM robot_parts WHERE robot_id = ? ORDER BY main_part DESC, created_on, id').pluck().all(robotId) as string[];
  }

  /** A new part of a machine; the machine's first part becomes its main part. */
  newPart(robotId: string, locationId: string, name: string, now = new Date()): string {
    return this.db.transaction(() => {
      const hasMain = this.db.prepare('SELECT 1 FROM robot_parts WHERE robot_id = ? AND main_part = 1').get(robotId) !== undefined;
      return this.insertPart(robotId, locationId, name, !hasMain, now.toISOString());
    })();
  }

  /** Rename and/or move a machine; its parts move with it. */
  updateRobot(id: string, name: string, locationId: string): Robot {
    this.db.transaction(() => {
      this.db.prepare('UPDATE robots SET name = ?, location_id = ? WHERE id = ?').run(name, locationId, id);
      this.db.prepare('UPDATE robot_parts SET location_id = ? WHERE robot_id = ?').run(locationId, id);
    })();
    return present(this.robot(id), `machine ${id}`);
  }

  /** Delete a machine with its parts, secrets and metadata, and the authorizations on it. */
  deleteRobot(id: string): void {
    this.db.transaction(() => {
      this.authorizations.dropOn('robot', id);
      this.db.prepare('DELETE FROM robots WHERE id = ?').run(id);
    })();
  }

  deletePart(id: string): void {
    this.db.prepare('DELETE FROM robot_parts WHERE id = ?').run(id);
  }

  /**
   * Keep `row` (a part as it is before a change) as a history entry made by `editor` at `at`. Runs
   * inside the change's transaction, so a change never lands without its entry or the other way round.
   */
  private recordHistory(row: PartRow, editor: EditorInfo, at: string): void {
    const secrets = this.db.prepare('SELECT id, created_on FROM part_secrets WHERE part_id = ? ORDER BY created_on, id').all(row.id);
    this.db
      .prepare(
        `INSERT INTO robot_part_history (part_id, edited_on, editor_type, editor_id, editor_name, name, config_json, main_part, marked_for_restart, secrets, last_updated)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(row.id, at, editor.identityType, editor.identityId, editor.displayName, row.name, row.config_json, row.main_part, row.marked_for_restart, JSON.stringify(secrets), row.last_updated);
  }

  /**
   * UpdateRobotPart's write: the name and, when given, the config text (verbatim). With `expected`
   * (last_known_update) earlier than the stored last_updated it changes nothing and says so. A
   * request that changes nothing leaves the part, its last_updated and its history as they are.
   * `verify` runs inside the transaction before the write (the config's fragments are checked there,
   * so a fragment deleted meanwhile cannot slip in). IMMEDIATE: the check and the write of
   * last_updated are one step against every other writer, in this process or another.
   */
  updatePart(id: string, change: PartChange, options: { readonly expected?: Date; readonly editor: EditorInfo; readonly verify?: () => void; readonly now?: Date }): PartUpdate {
    return this.db
      .transaction((): PartUpdate => {
        const row = present(this.db.prepare(`${PART} WHERE id = ?`).get(id) as PartRow | undefined, `part ${id}`);
        const stored = new Date(row.last_updated);
        if (options.expected !== undefined && options.expected.getTime() < stored.getTime()) return { ok: false, storedLastUpdated: stored };
        options.verify?.();
        const configJson = change.configJson ?? row.config_json;
        if (change.name !== row.name || configJson !== row.config_json) {
          const at = nextUpdate(options.now ?? new Date(), row.last_updated);
          this.recordHistory(row, options.editor, at);
          this.db.prepare('UPDATE robot_parts SET name = ?, config_json = ?, last_updated = ? WHERE id = ?').run(change.name, configJson, at, id);
          if (configJson !== row.config_json) this.indexRefs(id, row.robot_id, configJson);
        }
        return { ok: true, part: present(this.part(id), `part ${id}`).part };
      })
      .immediate();
  }

  /** Make `partId` the one main part of its machine; both parts' previous states go to their history. */
  markMain(robotId: string, partId: string, editor: EditorInfo, now = new Date()): void {
    this.db
      .transaction(() => {
        const rows = this.db.prepare(`${PART} WHERE robot_id = ? AND (main_part = 1 OR id = ?)`).all(robotId, partId) as PartRow[];
        if (rows.find((r) => r.id === partId)?.main_part === 1) return;
        const at = now.toISOString();
        for (const row of rows) this.recordHistory(row, editor, at);
        this.db.prepare('UPDATE robot_parts SET main_part = 0 WHERE robot_id = ? AND main_part = 1').run(robotId);
        this.db.prepare('UPDATE robot_parts SET main_part = 1 WHERE id = ?').run(partId);
      })
      .immediate();
  }

  /**
   * Give part `partId` a new secret (the new one last, by creation time). The part as it was goes to
   * its history: its secrets are part of it (ids and times only, never values).
   */
  addSecret(partId: string, editor: EditorInfo, now = new Date()): void {
    this.db
      .transaction(() => {
        const row = present(this.db.prepare(`${PART} WHERE id = ?`).get(partId) as PartRow | undefined, `part ${partId}`);
        // After the newest secret even if the clock went back, so "the new one last" holds.
        const newest = this.db.prepare('SELECT max(created_on) FROM part_secrets WHERE part_id = ?').pluck().get(partId) as string | null;
        const at = newest !== null && newest >= now.toISOString() ? new Date(Date.parse(newest) + 1).toISOString() : now.toISOString();
        this.recordHistory(row, editor, now.toISOString());
        this.db.prepare('INSERT INTO part_secrets (id, part_id, secret, created_on) VALUES (?, ?, ?, ?)').run(randomUUID(), partId, randomBytes(24).toString('base64url'), at);
      })
      .immediate();
  }

  /** Delete secret `secretId` of part `partId`, the last one too; false (and no history entry) when the part has no such secret. */
  deleteSecret(partId: string, secretId: string, editor: EditorInfo, now = new Date()): boolean {
    return this.db
      .transaction(() => {
        const row = present(this.db.prepare(`${PART} WHERE id = ?`).get(partId) as PartRow | undefined, `part ${partId}`);
        if (this.db.prepare('SELECT 1 FROM part_secrets WHERE id = ? AND part_id = ?').get(secretId, partId) === undefined) return false;
        this.recordHistory(row, editor, now.toISOString());
        this.db.prepare('DELETE FROM part_secrets WHERE id = ?').run(secretId);
        return true;
      })
      .immediate();
  }

  /** Flag a part for restart; a part already flagged is left as it is (no change, no history entry). */
  markForRestart(partId: string, editor: EditorInfo, now = new Date()): void {
    this.db
      .transaction(() => {
        const row = this.db.prepare(`${PART} WHERE id = ?`).get(partId) as PartRow | undefined;
        if (row === undefined || row.marked_for_restart === 1) return;
        this.recordHistory(row, editor, now.toISOString());
        this.db.prepare('UPDATE robot_parts SET marked_for_restart = 1 WHERE id = ?').run(partId);
      })
      .immediate();
  }

  /**
   * A page of a part's history, newest first (by time, then by the order entries were written),
   * after `after` ([edited_on, id] of the last entry of the previous page). Each entry's `old` is the
   * part as it was before that change: its name, config, flags, secrets (ids and times, never their
   * values) and last_updated then; its address and creation time are the part's.
   */
  history(partId: string, after: readonly (string | number)[] | undefined, size: number): { entry: RobotPartHistoryEntry; key: [string, number] }[] {
    const [at, id] = after ?? [];
    const rows = this.db
      .prepare(
        `SELECT h.*, p.robot_id, p.location_id, p.fqdn, p.local_fqdn, p.created_on FROM robot_part_history h JOIN robot_parts p ON p.id = h.part_id
          WHERE h.part_id = @part AND (@at IS NULL OR (h.edited_on, h.id) < (@at, @id))
          ORDER BY h.edited_on DESC, h.id DESC LIMIT @size`,
      )
      .all({ part: partId, at: at ?? null, id: id ?? null, size }) as HistoryRow[];
    return rows.map((r) => ({
      key: [r.edited_on, r.id],
      entry: {
        partId: r.part_id,
        robotId: r.robot_id,
        when: new Date(r.edited_on),
        old: {
          id: r.part_id,
          name: r.name,
          robotId: r.robot_id,
          locationId: r.location_id,
          robotConfig: JSON.parse(r.config_json) as { [key: string]: unknown },
          fqdn: r.fqdn,
          localFqdn: r.local_fqdn,
          lastAccess: undefined,
          secrets: (JSON.parse(r.secrets) as { id: string; created_on: string }[]).map((x) => ({ id: x.id, secret: '', createdOn: new Date(x.created_on) })),
          mainPart: r.main_part === 1,
          createdOn: new Date(r.created_on),
          lastUpdated: new Date(r.last_updated),
          markedForRestart: r.marked_for_restart === 1,
        },
        editedBy: { identityType: r.editor_type, identityId: r.editor_id, displayName: r.editor_name },
      },
    }));
  }

  robotMetadata(id: string): string {
    return this.db.prepare('SELECT metadata FROM robots WHERE id = ?').pluck().get(id) as string;
  }

  setRobotMetadata(id: string, json: string): void {
    this.db.prepare('UPDATE robots SET metadata = ? WHERE id = ?').run(json, id);
  }

  partMetadata(id: string): string {
    return this.db.prepare('SELECT metadata FROM robot_parts WHERE id = ?').pluck().get(id) as string;
  }

  setPartMetadata(id: string, json: string): void {
    this.db.prepare('UPDATE robot_parts SET metadata = ? WHERE id = ?').run(json, id);
  }

  /** A page of the machines directly in a location, by name, after `after` ([name, id]). */
  listRobots(locationId: string, after: readonly (string | number)[] | undefined, size: number): Robot[] {
    const [name, id] = after ?? [];
    const rows = this.db
      .prepare(`${ROBOT} WHERE r.location_id = @locationId AND (@name IS NULL OR r.name > @name OR (r.name = @name AND r.id > @id)) ORDER BY r.name, r.id LIMIT @size`)
      .all({ locationId, name: name ?? null, id: id ?? null, size }) as RobotRow[];
    return rows.map(toRobot);
  }

  /**
   * A page of machine summaries: machines in `locationIds` (or robots in `robotIds`), optionally
   * only those whose part configs use one of some fragments (`uses`: any version of `ids`, or one
   * of `pairs`, as the fragments domain works out what reaches them), ordered by location name,
   * machine name and id, after `after` ([location name, machine name, id]). Each summary's
   * `fragmentIds` are what its parts' configs name, and what those nest (`nested`, per fragment
   * and version). Three queries per page, whatever its size; no config text is read.
   */
  summaries(filter: {
    locationIds: readonly string[];
    robotIds: readonly string[];
    uses: { readonly ids: readonly string[]; readonly pairs: readonly { readonly fragmentId: string; readonly version: string }[] } | null;
    nested: (fragmentId: string, version: string) => readonly string[];
    after: readonly (string | number)[] | undefined;
    size: number;
  }): MachineSummary[] {
    const [afterLocation, afterName, afterId] = filter.after ?? [];
    // Checked per machine left to list, from the index by machine (a probe per machine; a list of
    // every matching machine built per page would cost more than the whole unfiltered page).
    const fragmentFilter =
      filter.uses === null
        ? '1'
        : `EXISTS (SELECT 1 FROM part_fragment_refs f WHERE f.robot_id = r.id
             AND (f.fragment_id IN (SELECT value FROM json_each(@ids))
                  OR (f.fragment_id, f.version) IN (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(@pairs))))`;
    const keyset = '(@afterLocation IS NULL OR (l.name, r.name, r.id) > (@afterLocation, @afterName, @afterId))';
    // Driven from the locations (their names order the listing); machines the caller holds a role on
    // outside them come from a second branch only when there are any, which keeps the common plan simple.
    const columns = 'SELECT r.id, r.name, r.location_id, l.name AS location_name FROM locations l JOIN robots r ON r.location_id = l.id';
    // The keyset before the fragment filter: machines listed on earlier pages need no probe.
    const branches = [`${columns} WHERE l.id IN (SELECT value FROM json_each(@locations)) AND ${keyset} AND ${fragmentFilter}`];
    if (filter.robotIds.length > 0) {
      branches.push(`${columns} WHERE r.id IN (SELECT value FROM json_each(@robots)) AND l.id NOT IN (SELECT value FROM json_each(@locations)) AND ${keyset} AND ${fragmentFilter}`);
    }
    const rows = this.db
      .prepare(`SELECT * FROM (${branches.join(' UNION ALL ')}) ORDER BY location_name, name, id LIMIT @size`)
      .all({
        locations: JSON.stringify(filter.locationIds),
        robots: JSON.stringify(filter.robotIds),
        ...(filter.uses === null ? {} : { ids: JSON.stringify(filter.uses.ids), pairs: JSON.stringify(filter.uses.pairs.map((p) => [p.fragmentId, p.version])) }),
        afterLocation: afterLocation ?? null,
        afterName: afterName ?? null,
        afterId: afterId ?? null,
        size: filter.size,
      }) as { id: string; name: string; location_id: string; location_name: string }[];
    const robotIds = JSON.stringify(rows.map((r) => r.id));
    const parts = this.db
      .prepare(
        `SELECT robot_id, id, name, main_part, fqdn, last_access, marked_for_restart
           FROM robot_parts WHERE robot_id IN (SELECT value FROM json_each(?)) ORDER BY robot_id, main_part DESC, created_on, id`,
      )
      .all(robotIds) as Pick<PartRow, 'robot_id' | 'id' | 'name' | 'main_part' | 'fqdn' | 'last_access' | 'marked_for_restart'>[];
    // What the configs name, from the index the schema keeps (migration 0012): no config text is read.
    const refs = this.db
      .prepare(
        `SELECT p.robot_id, f.fragment_id, f.version FROM robot_parts p JOIN part_fragment_refs f ON f.part_id = p.id
          WHERE p.robot_id IN (SELECT value FROM json_each(?)) ORDER BY p.robot_id, p.main_part DESC, p.created_on, p.id, f.position`,
      )
      .all(robotIds) as { robot_id: string; fragment_id: string; version: string }[];
    const byRobot = new Map<string, { summaries: PartSummary[]; fragments: Set<string>; last: string | null }>();
    const entryOf = (robotId: string) => {
      let entry = byRobot.get(robotId);
      if (entry === undefined) byRobot.set(robotId, (entry = { summaries: [], fragments: new Set(), last: null }));
      return entry;
    };
    for (const p of parts) {
      const entry = entryOf(p.robot_id);
      entry.summaries.push({ partId: p.id, partName: p.name, mainPart: p.main_part === 1, fqdn: p.fqdn, lastAccess: date(p.last_access), markedForRestart: p.marked_for_restart === 1 });
      if (p.last_access !== null && (entry.last === null || p.last_access > entry.last)) entry.last = p.last_access;
    }
    for (const ref of refs) {
      const entry = entryOf(ref.robot_id);
      entry.fragments.add(ref.fragment_id);
      for (const id of filter.nested(ref.fragment_id, ref.version)) entry.fragments.add(id);
    }
    return rows.map((r) => {
      const entry = byRobot.get(r.id);
      return {
        machineId: r.id,
        machineName: r.name,
        locationId: r.location_id,
        locationName: r.location_name,
        fragmentIds: [...(entry?.fragments ?? [])],
        partSummaries: entry?.summaries ?? [],
        lastAccess: date(entry?.last ?? null),
      };
    });
  }

  /**
   * How many parts' configs name one of `uses.ids` (at any version) or one of `uses.pairs` (that
   * fragment at that version, '' for the latest), from the index the schema keeps of every config's
   * `fragments` (migration 0012): what a fragment reaches, without reading a config.
   */
  countPartsUsing(uses: { readonly ids: readonly string[]; readonly pairs: readonly { readonly fragmentId: string; readonly version: string }[] }): number {
    return this.db
      .prepare(
        `SELECT count(*) FROM (
           SELECT part_id FROM part_fragment_refs WHERE fragment_id IN (SELECT value FROM json_each(@ids))
           UNION
           SELECT r.part_id FROM json_each(@pairs) j JOIN part_fragment_refs r ON r.fragment_id = json_extract(j.value, '$[0]') AND r.version = json_extract(j.value, '$[1]')
         )`,
      )
      .pluck()
      .get({ ids: JSON.stringify(uses.ids), pairs: JSON.stringify(uses.pairs.map((p) => [p.fragmentId, p.version])) }) as number;
  }

  /** Robots among `ids` whose location is one of `locationIds` (to keep robot roles inside an organization's reach). */
  robotsIn(ids: readonly string[], locationIds: ReadonlySet<string>): string[] {
    if (ids.length === 0) return [];
    const rows = this.db.prepare('SELECT id, location_id FROM robots WHERE id IN (SELECT value FROM json_each(?))').all(JSON.stringify(ids)) as { id: string; location_id: string }[];
    return rows.filter((r) => locationIds.has(r.location_id)).map((r) => r.id);
  }
}
