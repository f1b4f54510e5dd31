/**
 * Pending organization invites (docs/PROTOCOL.md, "Users, sign-in and invites"). An invite made
 * with email carries a token (32 random bytes), sent in the mail and stored only as its SHA-256: the
 * token is a credential (AcceptOrganizationInvite needs nothing else), so the database must not
 * hold it. A resend makes a new token; the old link stops working.
 */
import { createHash, randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { RoleOn } from './roles';

/** A pending invite. */
export interface Invite {
  readonly id: number;
  readonly organizationId: string;
  readonly email: string;
  readonly sendEmail: boolean;
  readonly createdAt: string;
  readonly authorizations: readonly RoleOn[];
}

interface InviteRow {
  id: number;
  organizationId: string;
  email: string;
  sendEmail: number;
  createdAt: string;
}

const COLUMNS = 'id, organization_id AS organizationId, email, send_email AS sendEmail, created_at AS createdAt';

/** The stored form of a token. */
export function tokenHash(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

export class InviteStore {
  constructor(private readonly db: Database.Database) {}

  private withAuthorizations(row: InviteRow): Invite {
    const authorizations = this.db
      .prepare('SELECT role_id AS role, resource_type AS resourceType, resource_id AS resourceId FROM organization_invite_authorizations WHERE invite_id = ? ORDER BY rowid')
      .all(row.id) as RoleOn[];
    return { ...row, sendEmail: row.sendEmail === 1, authorizations };
  }

  /** The pending invite of `email` in `orgId`, if any. */
  get(orgId: string, email: string): Invite | undefined {
    const row = this.db.prepare(`SELECT ${COLUMNS} FROM organization_invites WHERE organization_id = ? AND email = ?`).get(orgId, email) as InviteRow | undefined;
    return row && this.withAuthorizations(row);
  }

  /** The pending invite a mailed token names, if any. */
  byToken(token: string): Invite | undefined {
    const row = this.db.prepare(`SELECT ${COLUMNS} FROM organization_invites WHERE token_hash = ?`).get(tokenHash(token)) as InviteRow | undefined;
    return row && this.withAuthorizations(row);
  }

  /** The organization's pending invites, oldest first. */
  list(orgId: string): Invite[] {
    return (this.db.prepare(`SELECT ${COLUMNS} FROM organization_invites WHERE organization_id = ? ORDER BY created_at, id`).all(orgId) as InviteRow[]).map((r) => this.withAuthorizations(r));
  }

  /** Pending invites made without email for `email`, in every organization: granted at that user's next sign-in. */
  silentFor(email: string): Invite[] {
    return (this.db.prepare(`SELECT ${COLUMNS} FROM organization_invites WHERE email = ? AND send_email = 0 ORDER BY id`).all(email) as InviteRow[]).map((r) => this.withAuthorizations(r));
  }

  /** Store a new invite; with `sendEmail`, answer the token for its mail (the only copy). */
  create(orgId: string, email: string, sendEmail: boolean, authorizations: readonly RoleOn[], now: Date = new Date()): { invite: Invite; token: string | null } {
    const token = sendEmail ? randomBytes(32).toString('base64url') : null;
    const id = this.db.transaction(() => {
      const inserted = this.db
        .prepare('INSERT INTO organization_invites (organization_id, email, send_email, token_hash, created_at) VALUES (?, ?, ?, ?, ?)')
        .run(orgId, email, sendEmail ? 1 : 0, token === null ? null : tokenHash(token), now.toISOString()).lastInsertRowid as number;
      this.add(inserted, authorizations);
      return inserted;
    })();
    return { invite: { id, organizationId: orgId, email, sendEmail, createdAt: now.toISOString(), authorizations: this.authorizationsOf(id) }, token };
  }

  private authorizationsOf(id: number): RoleOn[] {
    return this.db.prepare('SELECT role_id AS role, resource_type AS resourceType, resource_id AS resourceId FROM organization_invite_authorizations WHERE invite_id = ? ORDER BY rowid').all(id) as RoleOn[];
  }

  /** Add authorizations to invite `id` (ones it has already are kept once). */
  add(id: number, authorizations: readonly RoleOn[]): void {
    const insert = this.db.prepare('INSERT OR IGNORE INTO organization_invite_authorizations (invite_id, resource_type, resource_id, role_id) VALUES (?, ?, ?, ?)');
    for (const a of authorizations) insert.run(id, a.resourceType, a.resourceId, a.role);
  }

  /** Take authorizations off invite `id` (ones it does not have are ignored). */
  removeSome(id: number, authorizations: readonly RoleOn[]): void {
    const remove = this.db.prepare('DELETE FROM organization_invite_authorizations WHERE invite_id = ? AND resource_type = ? AND resource_id = ? AND role_id = ?');
    for (const a of authorizations) remove.run(id, a.resourceType, a.resourceId, a.role);
  }

  /** How many authorizations invite `id` holds. */
  count(id: number): number {
    return this.db.prepare('SELECT count(*) FROM organization_invite_authorizations WHERE invite_id = ?').pluck().get(id) as number;
  }

  /** A new token for a resend (the invite now goes by email); the old one stops working. */
  renewToken(id: number): string {
    const token = randomBytes(32).toString('base64url');
    this.db.prepare('UPDATE organization_invites SET token_hash = ?, send_email = 1 WHERE id = ?').run(tokenHash(token), id);
    return token;
  }

  /** Withdraw (or, once accepted, retire) invite `id`. */
  delete(id: number): boolean {
    return this.db.prepare('DELETE FROM organization_invites WHERE id = ?').run(id).changes === 1;
  }
}
