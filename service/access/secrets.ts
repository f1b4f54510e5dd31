/**
 * Location secrets: the shared secrets machines of a location can prove they belong to it with
 * (LocationAuth). Stored as they are, since a machine must be handed them back; only LocationAuth,
 * CreateLocationSecret and the part records (for part secrets) ever answer them, to owners, and no
 * log line or error message carries one.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { SharedSecret } from '../../proto/gen/fleet/app/v1/locations';

/** A new secret: 24 random bytes, base64url (32 characters), like a part's. */
export function newSecret(): string {
  return randomBytes(24).toString('base64url');
}

export class LocationSecrets {
  constructor(private readonly db: Database.Database) {}

  /** The location's secrets, oldest first. */
  list(locationId: string): SharedSecret[] {
    const rows = this.db.prepare('SELECT id, secret, created_on FROM location_secrets WHERE location_id = ? ORDER BY created_on, id').all(locationId) as {
      id: string;
      secret: string;
      created_on: string;
    }[];
    return rows.map((r) => ({ id: r.id, secret: r.secret, createdOn: new Date(r.created_on) }));
  }

  /** Add a secret, after the newest one (even if the clock went back), so it lists last. */
  create(locationId: string, now = new Date()): void {
    this.db
      .transaction(() => {
        const newest = this.db.prepare('SELECT max(created_on) FROM location_secrets WHERE location_id = ?').pluck().get(locationId) as string | null;
        const at = newest !== null && newest >= now.toISOString() ? new Date(Date.parse(newest) + 1).toISOString() : now.toISOString();
        this.db.prepare('INSERT INTO location_secrets (id, location_id, secret, created_on) VALUES (?, ?, ?, ?)').run(randomUUID(), locationId, newSecret(), at);
      })
      .immediate();
  }

  /** Delete one secret of the location, the last one too; false when the location has no such secret. */
  delete(locationId: string, secretId: string): boolean {
    return this.db.prepare('DELETE FROM location_secrets WHERE id = ? AND location_id = ?').run(secretId, locationId).changes === 1;
  }
}
