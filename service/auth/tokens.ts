import { randomBytes, randomUUID } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import type Database from 'better-sqlite3';
import { errors, jwtVerify, SignJWT } from 'jose';
import { FleetError, Reason } from '../errors';

/** The `iss` of every access token, checked on the way back in. */
export const TOKEN_ISSUER = 'fleet-service';
/** Lifetime of an access token unless the service is told otherwise. */
export const DEFAULT_TOKEN_TTL_SECONDS = 3600;
const ALGORITHM = 'HS256';

/**
 * The data dir's token signing secret, created on first use. INSERT OR IGNORE, then read back,
 * so that two processes starting on a new data dir end up with the same secret.
 */
export function loadSigningSecret(db: Database.Database): Uint8Array {
  db.prepare('INSERT OR IGNORE INTO token_signing_secret (id, secret, created_at) VALUES (1, ?, ?)').run(randomBytes(32), new Date().toISOString());
  const row = db.prepare('SELECT secret FROM token_signing_secret WHERE id = 1').get() as { secret: Buffer };
  return new Uint8Array(row.secret);
}

function unauthenticated(reason: Reason, message: string): FleetError {
  return new FleetError(status.UNAUTHENTICATED, reason, message);
}

/** Issues and checks the HS256 access tokens that stand for an API key between Authenticate and the next calls. */
export class TokenService {
  constructor(
    private readonly secret: Uint8Array,
    private readonly ttlSeconds: number = DEFAULT_TOKEN_TTL_SECONDS,
  ) {}

  /**
   * A token for secret `version` of API key `keyId`, valid for the configured lifetime. The version
   * (claim `ver`) lets the guard refuse the token once the key is rotated.
   */
  async issue(keyId: string, version: number): Promise<string> {
    const iat = Math.floor(Date.now() / 1000);
    const exp = iat + this.ttlSeconds;
    return new SignJWT({ ver: version })
      .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
      .setSubject(keyId)
      .setIssuer(TOKEN_ISSUER)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .setJti(randomUUID())
      .sign(this.secret);
  }

  /**
   * The key id and secret version a token was issued for. Throws UNAUTHENTICATED, with a message
   * that says what is wrong with the token, when it is malformed, not signed by this data dir's
   * secret, or expired. Tokens of earlier builds carry no version: they stand for a key's first secret.
   */
  async verify(token: string): Promise<{ keyId: string; version: number }> {
    let subject: string | undefined;
    let version: unknown;
    try {
      const { payload } = await jwtVerify(token, this.secret, {
        algorithms: [ALGORITHM],
        issuer: TOKEN_ISSUER,
        requiredClaims: ['sub', 'iat', 'exp', 'jti'],
        // Claims are whole seconds: without a second's grace, a 1-second token issued late in a
        // second was expired before its first use. A token lives between its lifetime and a second more.
        clockTolerance: 1,
      });
      subject = payload.sub;
      version = 'ver' in payload ? payload.ver : 1;
    } catch (e) {
      throw explain(e);
    }
    if (subject === undefined || subject === '') throw unauthenticated(Reason.ACCESS_TOKEN_INVALID, 'access token names no API key');
    if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 1) throw unauthenticated(Reason.ACCESS_TOKEN_INVALID, 'access token has an invalid "ver" claim: it was not issued by this service');
    return { keyId: subject, version };
  }
}

function explain(e: unknown): unknown {
  if (e instanceof errors.JWTExpired) return unauthenticated(Reason.ACCESS_TOKEN_EXPIRED, 'access token expired; authenticate again');
  if (e instanceof errors.JWSSignatureVerificationFailed) {
    return unauthenticated(Reason.ACCESS_TOKEN_INVALID, 'access token signature is invalid: it was not issued by this service');
  }
  if (e instanceof errors.JWTClaimValidationFailed) {
    return unauthenticated(Reason.ACCESS_TOKEN_INVALID, `access token has an invalid "${e.claim}" claim: it was not issued by this service`);
  }
  if (e instanceof errors.JOSEAlgNotAllowed) {
    return unauthenticated(Reason.ACCESS_TOKEN_INVALID, 'access token uses a signing algorithm this service does not accept');
  }
  if (e instanceof errors.JOSEError) return unauthenticated(Reason.ACCESS_TOKEN_MALFORMED, 'access token is malformed');
  return e;
}
