import { randomBytes, randomUUID, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type Database from 'better-sqlite3';

/** The hashing scheme of new keys, stored beside each hash so it can be raised later. */
const SCHEME = 'scrypt-n16384-r8-p1-32';
const SCHEMES: Readonly<Record<string, { readonly keylen: number; readonly options: ScryptOptions }>> = {
  [SCHEME]: { keylen: 32, options: { N: 16384, r: 8, p: 1 } },
};
/** A real secret is 43 characters; refusing far longer ones keeps a caller from making us hash megabytes. */
const MAX_SECRET_LENGTH = 512;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function hashSecret(secret: string, salt: Buffer, scheme: string): Promise<Buffer> {
  const params = SCHEMES[scheme];
  if (params === undefined) return Promise.reject(new Error(`unknown API key hash scheme "${scheme}"`));
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, params.keylen, params.options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** A key made by {@link prepareApiKey}: the secret to hand out once, and the row to store. */
export interface NewApiKey {
  readonly id: string;
  readonly name: string;
  /** 32 random bytes, base64url. Shown to its owner once; only its hash is stored. */
  readonly secret: string;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

/**
 * Make a new key and hash its secret. Hashing is slow on purpose and asynchronous, so it happens
 * here, before the caller opens the (synchronous) transaction that stores the key with {@link ApiKeyStore.insert}.
 */
export async function prepareApiKey(name: string): Promise<NewApiKey> {
  const secret = randomBytes(32).toString('base64url');
  const salt = randomBytes(16);
  return { id: randomUUID(), name, secret, salt, hash: await hashSecret(secret, salt, SCHEME) };
}

interface KeyRow {
  hash_scheme: string;
  salt: Buffer;
  hash: Buffer;
  deleted_at: string | null;
}

/** API keys in the service database. Every method reads the database afresh: another process may have changed it. */
export class ApiKeyStore {
  /** Hashed when the key id is unknown, so that an unknown id costs as long as a wrong secret. */
  private readonly decoySalt = randomBytes(16);

  constructor(private readonly db: Database.Database) {}

  /** Store a prepared key. Synchronous, so it can run inside a caller's transaction. */
  insert(key: NewApiKey, now: Date = new Date()): void {
    this.db
      .prepare('INSERT INTO api_keys (id, name, hash_scheme, salt, hash, created_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(key.id, key.name, SCHEME, key.salt, key.hash, now.toISOString());
  }

  /** Whether `secret` is the secret of the live (not deleted) key `id`. Takes about as long whatever the answer. */
  async verify(id: string, secret: string): Promise<boolean> {
    const row = UUID.test(id)
      ? (this.db.prepare('SELECT hash_scheme, salt, hash, deleted_at FROM api_keys WHERE id = ?').get(id) as KeyRow | undefined)
      : undefined;
    const candidate = secret.length <= MAX_SECRET_LENGTH ? secret : '';
    const computed = await hashSecret(candidate, row?.salt ?? this.decoySalt, row?.hash_scheme ?? SCHEME);
    const matches = row !== undefined && computed.length === row.hash.length && timingSafeEqual(computed, row.hash);
    return matches && row.deleted_at === null && candidate === secret;
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
