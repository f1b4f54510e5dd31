import { status, type Metadata } from '@grpc/grpc-js';
import { FleetError, Reason } from '../errors';
import type { ApiKeyStore } from './keys';
import type { TokenService } from './tokens';

/** Who holds an authorization: an API key (type '') or a user (type 'user'), as in the spec's Authorization. */
export interface Identity {
  readonly type: '' | 'user';
  readonly id: string;
}

/** The authenticated caller of a call. */
export interface Caller {
  /** The API key the caller's access token was issued for. */
  readonly keyId: string;
  readonly identity: Identity;
}

/** Checks a call's metadata and says who is calling, or throws UNAUTHENTICATED saying what is wrong. */
export type Guard = (metadata: Metadata) => Promise<Caller>;

const BEARER = /^Bearer +(\S+)$/i;

function unauthenticated(reason: Reason, message: string): FleetError {
  return new FleetError(status.UNAUTHENTICATED, reason, message);
}

/**
 * The one check behind every call but Authenticate: `authorization: Bearer <token>` metadata
 * carrying a token this service issued, not expired, for an API key that still exists. The key is
 * looked up on every call rather than trusted from the token, so deleting a key cuts off its
 * tokens at once instead of when they expire.
 */
export function createGuard(tokens: TokenService, keys: ApiKeyStore): Guard {
  return async (metadata) => {
    const values = metadata.get('authorization');
    if (values.length === 0) throw unauthenticated(Reason.ACCESS_TOKEN_MISSING, 'missing authorization metadata; send "authorization: Bearer <access token>" from AuthService/Authenticate');
    if (values.length > 1) throw unauthenticated(Reason.ACCESS_TOKEN_MALFORMED, 'more than one authorization metadata value');
    const [value] = values;
    const match = typeof value === 'string' ? BEARER.exec(value.trim()) : null;
    if (match?.[1] === undefined) throw unauthenticated(Reason.ACCESS_TOKEN_MALFORMED, 'authorization metadata must be "Bearer <access token>"');
    const keyId = await tokens.verify(match[1]);
    if (!keys.isActive(keyId)) throw unauthenticated(Reason.API_KEY_DELETED, 'the API key this access token was issued for has been deleted');
    return { keyId, identity: { type: '', id: keyId } };
  };
}
