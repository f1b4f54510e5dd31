import { randomBytes, randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { Location } from '../../proto/gen/fleet/app/v1/locations';
import { present } from '../errors';

interface LocationRow {
  id: string;
  organization_id: string;
  parent_location_id: string | null;
  name: string;
  region: string;
  created_on: string;
  robot_count: number;
}

const SELECT = `SELECT l.id, l.organization_id, l.parent_location_id, l.name, l.region, l.created_on,
  (SELECT count(*) FROM robots r WHERE r.location_id = l.id) AS robot_count FROM locations l`;

/**
 * What deleting a location needs of the authorizations, which the access domain writes
 * (access/authorizations.ts): handed in by server.ts, since a domain imports no other domain.
 */
export interface LocationAuthorizations {
  dropOn(resourceType: 'location', resourceId: string): void;
}

/** Locations, their nesting and who they are shared with. */
export class LocationStore {
  constructor(
    private readonly db: Database.Database,
    private readonly authorizations: LocationAuthorizations,
  ) {}

  private shares(ids: readonly string[]): Map<string, string[]> {
    const rows = this.db
      .prepare('SELECT location_id, organization_id FROM location_shares WHERE location_id IN (SELECT value FROM json_each(?)) ORDER BY rowid')
      .all(JSON.stringify(ids)) as { location_id: string; organization_id: string }[];
    const out = new Map<string, string[]>();
    for (const r of rows) out.set(r.location_id, [...(out.get(r.location_id) ?? []), r.organization_id]);
    return out;
  }

  private toWire(rows: readonly LocationRow[]): Location[] {
    const shares = this.shares(rows.map((r) => r.id));
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      parentLocationId: row.parent_location_id ?? '',
      region: row.region,
      // The owner first (primary), then the organizations it is shared with directly, in share order.
      organizations: [
        { organizationId: row.organization_id, primary: true },
        ...(shares.get(row.id) ?? []).map((organizationId) => ({ organizationId, primary: false })),
      ],
      createdOn: new Date(row.created_on),
      robotCount: row.robot_count,
    }));
  }

  get(id: string): Location | undefined {
    const row = this.db.prepare(`${SELECT} WHERE l.id = ?`).get(id) as LocationRow | undefined;
    return row === undefined ? undefined : this.toWire([row])[0];
  }

  create(orgId: string, name: string, parentId: string | null, now = new Date()): Location {
    const id = randomUUID();
    this.db.transaction(() => {
      this.db.prepare('INSERT INTO locations (id, organization_id, parent_location_id, name, created_on) VALUES (?, ?, ?, ?, ?)').run(id, orgId, parentId, name, now.toISOString());
      // A location starts with a secret, the credential its machines can connect with (LocationAuth).
      this.db.prepare('INSERT INTO location_secrets (id, location_id, secret, created_on) VALUES (?, ?, ?, ?)').run(randomUUID(), id, randomBytes(24).toString('base64url'), now.toISOString());
    })();
    return present(this.get(id), `location ${id}`);
  }

  update(id: string, changes: { name?: string; parentId?: string | null; region?: string }): Location {
    this.db.transaction(() => {
      if (changes.name !== undefined) this.db.prepare('UPDATE locations SET name = ? WHERE id = ?').run(changes.name, id);
      if (changes.parentId !== undefined) this.db.prepare('UPDATE locations SET parent_location_id = ? WHERE id = ?').run(changes.parentId, id);
      if (changes.region !== undefined) this.db.prepare('UPDATE locations SET region = ? WHERE id = ?').run(changes.region, id);
    })();
    return present(this.get(id), `location ${id}`);
  }

  /** What a location holds directly: its machine and sub-location names (a few of each) and their counts. */
  contents(id: string): { machines: number; machineNames: string[]; locations: number; locationNames: string[] } {
    const machineNames = this.db.prepare('SELECT name FROM robots WHERE location_id = ? ORDER BY name LIMIT 3').pluck().all(id) as string[];
    const locationNames = this.db.prepare('SELECT name FROM locations WHERE parent_location_id = ? ORDER BY name LIMIT 3').pluck().all(id) as string[];
    const machines = this.db.prepare('SELECT count(*) FROM robots WHERE location_id = ?').pluck().get(id) as number;
    const locations = this.db.prepare('SELECT count(*) FROM locations WHERE parent_location_id = ?').pluck().get(id) as number;
    return { machines, machineNames, locations, locationNames };
  }

  /** Delete an empty location, its metadata, its shares and the authorizations on it. */
  delete(id: string): void {
    this.db.transaction(() => {
      this.authorizations.dropOn('location', id);
      this.db.prepare('DELETE FROM locations WHERE id = ?').run(id);
    })();
  }

  /** Organizations with access, directly shared (not through an ancestor). */
  directShares(id: string): string[] {
    return this.db.prepare('SELECT organization_id FROM location_shares WHERE location_id = ? ORDER BY rowid').pluck().all(id) as string[];
  }

  share(id: string, orgId: string, now = new Date()): void {
    this.db.prepare('INSERT INTO location_shares (location_id, organization_id, created_at) VALUES (?, ?, ?)').run(id, orgId, now.toISOString());
  }

  unshare(id: string, orgId: string): boolean {
    return this.db.prepare('DELETE FROM location_shares WHERE location_id = ? AND organization_id = ?').run(id, orgId).changes === 1;
  }

  metadata(id: string): string {
    return this.db.prepare('SELECT metadata FROM locations WHERE id = ?').pluck().get(id) as string;
  }

  setMetadata(id: string, json: string): void {
    this.db.prepare('UPDATE locations SET metadata = ? WHERE id = ?').run(json, id);
  }

  /** Locations by id, as the wire carries them. */
  many(ids: readonly string[]): Location[] {
    const rows = this.db.prepare(`${SELECT} WHERE l.id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(ids)) as LocationRow[];
    return this.toWire(rows);
  }
}
