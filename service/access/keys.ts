import { createHmac, randomBytes, randomUUID, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type Database from 'better-sqlite3';

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

  constructor(private readonly db: Database.Database) {
    this.secret = loadHashSecret(db);
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

  /**
   * Whether `secret` is the secret of the live (not deleted) key `id`. Takes about as long whatever
   * the answer for keys of the current scheme and unknown ids. A legacy key that matches is
   * re-hashed with the current scheme on the spot.
   */
  async verify(id: string, secret: string): Promise<boolean> {
    const row = UUID.test(id)
      ? (this.db.prepare('SELECT hash_scheme, salt, hash, deleted_at FROM api_keys WHERE id = ?').get(id) as KeyRow | undefined)
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
    if (valid && row.hash_scheme === LEGACY_SCHEME) this.upgrade(id, candidate);
    return valid;
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

  /** Mark a key deleted: it can no longer authenticate, and the tokens issued for it stop working. Returns false for an unknown or already deleted key. */
  delete(id: string, now: Date = new Date()): boolean {
    return this.db.prepare('UPDATE api_keys SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL').run(now.toISOString(), id).changes === 1;
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
