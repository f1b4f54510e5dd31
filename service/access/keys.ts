import { createHmac, randomBytes, randomUUID, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import Database from 'better-sqlite3';

/**
 * How new keys are hashed: HMAC-SHA-256 keyed with the data dir's server secret over the key's own
 * salt and the secret. API key secrets are 256 random bits, which no guessing reaches, so a slow
 * hash buys nothing and costs every sign-in tens of milliseconds of CPU that any unauthenticated
 * caller can demand. This costs microseconds.
 */
export const HASH_SCHEME = 'hmac-sha256-v1';
/**
 * The scheme keys were stored with before: still verified (at most {@link LEGACY_CONCURRENCY} at a
 * time), and replaced by {@link HASH_SCHEME} at the key's next successful sign-in.
 */
export const LEGACY_SCHEME = 'scrypt-n16384-r8-p1-32';
const LEGACY: { readonly keylen: number; readonly options: ScryptOptions } = { keylen: 32, options: { N: 16384, r: 8, p: 1 } };
/** Legacy hashes computed at once; the rest wait. scrypt runs on libuv's 4 threads, which file I/O shares. */
export const LEGACY_CONCURRENCY = 1;
/** A real secret is 43 characters; refusing far longer ones keeps a caller from making us hash megabytes. */
const MAX_SECRET_LENGTH = 512;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The data dir's hash secret, created on first use. INSERT OR IGNORE, then read back, so that two
 * processes starting on a new data dir end up with the same secret.
 */
export function loadHashSecret(db: Database.Database): Buffer {
  db.prepare('INSERT OR IGNORE INTO api_key_hash_secret (id, secret, created_at) VALUES (1, ?, ?)').run(randomBytes(32), new Date().toISOString());
  return (db.prepare('SELECT secret FROM api_key_hash_secret WHERE id = 1').get() as { secret: Buffer }).secret;
}

/** A key made by {@link ApiKeyStore.prepare}: the secret to hand out once, and the row to store. */
export interface NewApiKey {
  readonly id: string;
  readonly name: string;
  /** 32 random bytes, base64url. Shown to its owner once; only its hash is stored. */
  readonly secret: string;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

interface KeyRow {
  hash_scheme: string;
  salt: Buffer;
  hash: Buffer;
  deleted_at: string | null;
  secret_version: number;
}

/** A use is recorded at most this often per key: a write per call would turn every read into a write. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/** What the guard learns of a token's key on each call: whether the token still stands for it. */
export type KeyState = 'active' | 'deleted' | 'rotated';

/** An authorization row as stored (the spec's Authorization, snake_case). */
export interface StoredAuthorization {
  readonly authorization_type: string;
  readonly authorization_id: string;
  readonly resource_type: string;
  readonly resource_id: string;
  readonly identity_id: string;
  readonly identity_type: string;
  readonly organization_id: string;
  readonly role_id: string;
}

/** A key as listings show it: never its secret. */
export interface KeyRecord {
  readonly id: string;
  readonly name: string;
  readonly createdOn: Date;
  /** Absent for a key never used. */
  readonly lastUsed?: Date;
}

/** Lets at most `limit` tasks run at once; the others wait their turn, in order. */
class Semaphore {
  #running = 0;
  readonly #waiting: (() => void)[] = [];
  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#running >= this.limit) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#running += 1;
    try {
      return await task();
    } finally {
      this.#running -= 1;
      this.#waiting.shift()?.();
    }
  }
}

/** API keys in the service database. Every method reads the database afresh: another process may have changed it. */
export class ApiKeyStore {
  /** Hashed when the key id is unknown, so that an unknown id costs as long as a wrong secret. */
  private readonly decoySalt = randomBytes(16);
  private readonly secret: Buffer;
  private readonly legacy = new Semaphore(LEGACY_CONCURRENCY);
  /** Prepared once: it runs on every call (check). */
  private readonly state: Database.Statement<[string], { deleted_at: string | null; secret_version: number; last_used_at: string | null }>;

  constructor(private readonly db: Database.Database) {
    this.secret = loadHashSecret(db);
    this.state = db.prepare('SELECT deleted_at, secret_version, last_used_at FROM api_keys WHERE id = ?');
  }

  private hash(salt: Buffer, secret: string): Buffer {
    return createHmac('sha256', this.secret).update(salt).update(secret, 'utf8').digest();
  }

  /** Make a new key and hash its secret; store it with {@link insert} (inside a caller's transaction if need be). */
  prepare(name: string): NewApiKey {
    const secret = randomBytes(32).toString('base64url');
    const salt = randomBytes(16);
    return { id: randomUUID(), name, secret, salt, hash: this.hash(salt, secret) };
  }

  /** Store a prepared key. Synchronous, so it can run inside a caller's transaction. */
  insert(key: NewApiKey, now: Date = new Date()): void {
    this.db
      .prepare('INSERT INTO api_keys (id, name, hash_scheme, salt, hash, created_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(key.id, key.name, HASH_SCHEME, key.salt, key.hash, now.toISOString());
  }

  /** Store a prepared key and, in the same transaction, what `alongside` writes (its authorizations). */
  insertWith(key: NewApiKey, now: Date, alongside: () => void): void {
    this.db.transaction(() => {
      this.insert(key, now);
      alongside();
    })();
  }

  /**
   * The secret version of the live (not deleted) key `id` if `secret` is its secret, else null. Takes
   * about as long whatever the answer for keys of the current scheme and unknown ids. A legacy key
   * that matches is re-hashed with the current scheme on the spot.
   */
  async verify(id: string, secret: string): Promise<number | null> {
    const row = UUID.test(id)
      ? (this.db.prepare('SELECT hash_scheme, salt, hash, deleted_at, secret_version FROM api_keys WHERE id = ?').get(id) as KeyRow | undefined)
      : undefined;
    const candidate = secret.length <= MAX_SECRET_LENGTH ? secret : '';
    let computed: Buffer;
    if (row !== undefined && row.hash_scheme === LEGACY_SCHEME) {
      computed = await this.legacy.run(() => scryptHash(candidate, row.salt));
    } else if (row === undefined || row.hash_scheme === HASH_SCHEME) {
      computed = this.hash(row?.salt ?? this.decoySalt, candidate);
    } else {
      throw new Error(`API key ${id} is stored with the unknown hash scheme "${row.hash_scheme}"`);
    }
    const matches = row !== undefined && computed.length === row.hash.length && timingSafeEqual(computed, row.hash);
    const valid = matches && row.deleted_at === null && candidate === secret;
    if (!valid) return null;
    if (row.hash_scheme === LEGACY_SCHEME) this.upgrade(id, candidate);
    return row.secret_version;
  }

  /**
   * Whether a token issued for secret `version` of key `id` still stands for it, on every call: one
   * primary-key lookup (the same one that refuses deleted keys), so rotation and deletion cut tokens
   * off at the next call at no extra cost. An active key's use is recorded (at most once a minute).
   */
  check(id: string, version: number, now: Date = new Date()): KeyState {
    const row = this.state.get(id);
    if (row === undefined || row.deleted_at !== null) return 'deleted';
    if (row.secret_version !== version) return 'rotated';
    if (row.last_used_at === null || now.getTime() - Date.parse(row.last_used_at) >= LAST_USED_RESOLUTION_MS) this.used(id, now);
    return 'active';
  }

  /**
   * Record a use, unless one was recorded less than a minute ago (by this process or another).
   * Best effort: a call is never refused because its use could not be written (a full disk, another
   * process holding the write lock past the busy timeout); the next call records it.
   */
  private used(id: string, now: Date = new Date()): void {
    try {
      this.db
        .prepare('UPDATE api_keys SET last_used_at = @now WHERE id = @id AND (last_used_at IS NULL OR last_used_at <= @since) AND created_at <= @now')
        .run({ id, now: now.toISOString(), since: new Date(now.getTime() - LAST_USED_RESOLUTION_MS).toISOString() });
    } catch (e) {
      if (!(e instanceof Database.SqliteError)) throw e;
    }
  }

  /**
   * Give live key `id` a new secret: the old one and every token issued for it stop working (the
   * version the tokens carry no longer matches). Returns the new secret, or undefined for an unknown
   * or deleted key.
   */
  rotate(id: string): string | undefined {
    const secret = randomBytes(32).toString('base64url');
    const salt = randomBytes(16);
    const changed = this.db
      .prepare('UPDATE api_keys SET hash_scheme = ?, salt = ?, hash = ?, secret_version = secret_version + 1 WHERE id = ? AND deleted_at IS NULL')
      .run(HASH_SCHEME, salt, this.hash(salt, secret), id).changes;
    return changed === 1 ? secret : undefined;
  }

  /** Rename live key `id`; false for an unknown or deleted key. */
  rename(id: string, name: string): boolean {
    return this.db.prepare('UPDATE api_keys SET name = ? WHERE id = ? AND deleted_at IS NULL').run(name, id).changes === 1;
  }

  /** Live keys by id, as listings show them (unknown and deleted ids are left out). */
  records(ids: readonly string[]): Map<string, KeyRecord> {
    const rows = this.db
      .prepare('SELECT id, name, created_at, last_used_at FROM api_keys WHERE id IN (SELECT value FROM json_each(?)) AND deleted_at IS NULL')
      .all(JSON.stringify(ids)) as { id: string; name: string; created_at: string; last_used_at: string | null }[];
    return new Map(
      rows.map((r) => [r.id, { id: r.id, name: r.name, createdOn: new Date(r.created_at), ...(r.last_used_at === null ? {} : { lastUsed: new Date(r.last_used_at) }) }]),
    );
  }

  /** Replace a legacy hash by the current scheme's (only if nothing changed the row meanwhile). */
  private upgrade(id: string, secret: string): void {
    const salt = randomBytes(16);
    this.db
      .prepare('UPDATE api_keys SET hash_scheme = ?, salt = ?, hash = ? WHERE id = ? AND hash_scheme = ?')
      .run(HASH_SCHEME, salt, this.hash(salt, secret), id, LEGACY_SCHEME);
  }

  /** The name of key `id` (deleted ones too), or undefined for an unknown id. */
  name(id: string): string | undefined {
    return this.db.prepare('SELECT name FROM api_keys WHERE id = ?').pluck().get(id) as string | undefined;
  }

  /** Whether `id` names a key that exists and is not deleted. */
  isActive(id: string): boolean {
    return this.db.prepare('SELECT 1 FROM api_keys WHERE id = ? AND deleted_at IS NULL').get(id) !== undefined;
  }

  /**
   * Mark a key deleted and drop its authorizations: it can no longer authenticate, and the tokens
   * issued for it stop working. Returns false for an unknown or already deleted key.
   */
  delete(id: string, now: Date = new Date()): boolean {
    return this.db.transaction(() => {
      const deleted = this.db.prepare('UPDATE api_keys SET deleted_at = max(?, created_at) WHERE id = ? AND deleted_at IS NULL').run(now.toISOString(), id).changes === 1;
      if (deleted) this.db.prepare("DELETE FROM authorizations WHERE identity_type = '' AND identity_id = ?").run(id);
      return deleted;
    })();
  }

  /** The organizations live key `id` holds authorizations in. */
  organizationsOf(id: string): string[] {
    return this.db.prepare("SELECT DISTINCT organization_id FROM authorizations WHERE identity_type = '' AND identity_id = ? ORDER BY organization_id").pluck().all(id) as string[];
  }

  /** The authorizations of live keys `ids` (in organizations `orgIds` only, when given), as stored rows. */
  authorizationsOf(ids: readonly string[], orgIds?: readonly string[]): StoredAuthorization[] {
    return this.db
      .prepare(
        `SELECT authorization_type, authorization_id, resource_type, resource_id, identity_id, identity_type, organization_id, role_id
           FROM authorizations
          WHERE identity_type = '' AND identity_id IN (SELECT value FROM json_each(@ids))
            AND (@orgs IS NULL OR organization_id IN (SELECT value FROM json_each(@orgs)))
          ORDER BY id`,
      )
      .all({ ids: JSON.stringify(ids), orgs: orgIds === undefined ? null : JSON.stringify(orgIds) }) as StoredAuthorization[];
  }

  /**
   * One page of the live keys holding an authorization in organization `orgId`, oldest first, after
   * `after` (the created time and id of the last key of the previous page).
   */
  keysIn(orgId: string, limit: number, after?: readonly [string, string]): { id: string; created_at: string }[] {
    return this.db
      .prepare(
        `SELECT k.id, k.created_at FROM api_keys k
          WHERE k.deleted_at IS NULL
            AND k.id IN (SELECT identity_id FROM authorizations WHERE organization_id = @org AND identity_type = '')
            AND (@afterAt IS NULL OR (k.created_at, k.id) > (@afterAt, @afterId))
          ORDER BY k.created_at, k.id LIMIT @limit`,
      )
      .all({ org: orgId, afterAt: after?.[0] ?? null, afterId: after?.[1] ?? null, limit }) as { id: string; created_at: string }[];
  }

  /** The live keys holding an authorization on machine `robotId` itself, oldest first. */
  keysOnRobot(robotId: string): string[] {
    return this.db
      .prepare(
        `SELECT k.id FROM api_keys k
          WHERE k.deleted_at IS NULL
            AND k.id IN (SELECT identity_id FROM authorizations WHERE resource_type = 'robot' AND resource_id = ? AND identity_type = '')
          ORDER BY k.created_at, k.id`,
      )
      .pluck()
      .all(robotId) as string[];
  }

  /** How many keys exist, deleted ones included: zero means a data dir that was never set up. */
  count(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM api_keys').get() as { n: number }).n;
  }
}

/** The legacy scheme's hash; exported for the tests that store a key the way earlier versions did. */
export function scryptHash(secret: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, LEGACY.keylen, LEGACY.options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}
