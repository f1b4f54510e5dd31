/**
 * Users (docs/PROTOCOL.md, "Users, sign-in and invites"): people with an email address, who sign in
 * with API keys of their own. A user key's calls act as the user (identity type `user`), so the
 * user's authorizations apply, whichever of their keys they use.
 */
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { invalidArgument, Reason } from '../errors';
import type { Identity } from '../permissions/engine';
import type { Guard } from '../rpc';
import type { ApiKeyStore, NewApiKey } from './keys';

/** Longest email address (RFC 5321's path limit). */
export const MAX_EMAIL_LENGTH = 254;
// local@domain: no spaces, quotes, angle brackets, commas or control characters (so an address can
// never smuggle a second recipient or a header into a mail), a dotted host name after the @.
const EMAIL = /^[^\s@"<>(),;:\\[\]\p{Cc}]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/u;

/** A request's email address, lower-cased (addresses are compared case-insensitively); INVALID_ARGUMENT (EMAIL_INVALID or REQUIRED_FIELD_MISSING) otherwise. */
export function emailAddress(field: string, raw: string): string {
  const email = raw.trim();
  if (email === '') throw invalidArgument(field, Reason.REQUIRED_FIELD_MISSING, `${field} is required`);
  if (email.length > MAX_EMAIL_LENGTH || !EMAIL.test(email)) throw invalidArgument(field, Reason.EMAIL_INVALID, `${field} must be an email address such as ada@example.com`);
  return email.toLowerCase();
}

/** A user as the store keeps it. */
export interface User {
  readonly id: string;
  readonly email: string;
  readonly displayName: string;
  readonly createdAt: string;
  readonly lastLogin: string | null;
}

const COLUMNS = 'id, email, display_name AS displayName, created_at AS createdAt, last_login AS lastLogin';

/** The users of the service and the keys they sign in with. */
export class UserStore {
  constructor(
    private readonly db: Database.Database,
    private readonly keys: ApiKeyStore,
  ) {}

  /** The user with this (lower-cased) email, if any. */
  byEmail(email: string): User | undefined {
    return this.db.prepare(`SELECT ${COLUMNS} FROM users WHERE email = ?`).get(email.toLowerCase()) as User | undefined;
  }

  byId(id: string): User | undefined {
    return this.db.prepare(`SELECT ${COLUMNS} FROM users WHERE id = ?`).get(id) as User | undefined;
  }

  /** Make a user (email already checked and lower-cased). Synchronous, to run inside a caller's transaction. */
  create(email: string, displayName: string, now: Date = new Date()): User {
    const user = { id: randomUUID(), email, displayName, createdAt: now.toISOString(), lastLogin: null };
    this.db.prepare('INSERT INTO users (id, email, display_name, created_at) VALUES (?, ?, ?, ?)').run(user.id, email, displayName, user.createdAt);
    return user;
  }

  /** A new API key of `userId`: its calls act as the user. The secret is in the result, and nowhere else. */
  addKey(userId: string, name: string, now: Date = new Date()): NewApiKey {
    const key = this.keys.prepare(name);
    this.db.transaction(() => {
      this.keys.insert(key, now);
      this.db.prepare('UPDATE api_keys SET user_id = ? WHERE id = ?').run(userId, key.id);
    })();
    return key;
  }

  /** The user key `keyId` signs in as, or null for a key that is its own identity (or unknown). */
  ownerOf(keyId: string): string | null {
    return (this.db.prepare('SELECT user_id FROM api_keys WHERE id = ?').pluck().get(keyId) as string | null | undefined) ?? null;
  }

  /** Note a sign-in (OrganizationMember.last_login). */
  recordLogin(userId: string, now: Date = new Date()): void {
    this.db.prepare('UPDATE users SET last_login = ? WHERE id = ?').run(now.toISOString(), userId);
  }
}

/**
 * The guard with users: a call with a token of a user key acts as the user. Composed in server.ts
 * around the auth domain's guard, which knows only keys.
 */
export function withUsers(guard: Guard, users: Pick<UserStore, 'ownerOf'>): Guard {
  return async (metadata) => {
    const caller = await guard(metadata);
    const userId = users.ownerOf(caller.keyId);
    const identity: Identity = userId === null ? caller.identity : { type: 'user', id: userId };
    return { ...caller, identity };
  };
}
