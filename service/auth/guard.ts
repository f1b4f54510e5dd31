import { status } from '@grpc/grpc-js';
import { FleetError, Reason } from '../errors';
import type { Guard } from '../rpc';
import type { TokenService } from './tokens';

/**
 * What sign-in needs of the API keys, which the access domain keeps (access/keys.ts). Declared here
 * and handed in by the composition root (server.ts), since a domain imports no other domain.
 */
export interface ApiKeys {
  /** Whether `secret` is the secret of the live key `id` (the same time whatever the answer). */
  verify(id: string, secret: string): Promise<boolean>;
  /** Whether `id` names a key that exists and is not deleted. */
  isActive(id: string): boolean;
}

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
export function createGuard(tokens: TokenService, keys: Pick<ApiKeys, 'isActive'>): Guard {
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
