import { status } from '@grpc/grpc-js';
import { FleetError, Reason } from '../errors';
import type { Guard } from '../rpc';
import type { TokenService } from './tokens';

/**
 * What sign-in needs of the API keys, which the access domain keeps (access/keys.ts). Declared here
 * and handed in by the composition root (server.ts), since a domain imports no other domain.
 */
export interface ApiKeys {
  /** The secret version of live key `id` if `secret` is its secret, else null (the same time whatever the answer). */
  verify(id: string, secret: string): Promise<number | null>;
  /** Whether a token of secret `version` of key `id` still stands for it; records the key's use (at most once a minute). */
  check(id: string, version: number): 'active' | 'deleted' | 'rotated';
}

const BEARER = /^Bearer +(\S+)$/i;

function unauthenticated(reason: Reason, message: string): FleetError {
  return new FleetError(status.UNAUTHENTICATED, reason, message);
}

/**
 * The one check behind every call but Authenticate: `authorization: Bearer <token>` metadata
 * carrying a token this service issued, not expired, for an API key that still exists with the
 * secret the token was issued for. The key is looked up on every call (one primary-key read)
 * rather than trusted from the token, so deleting or rotating a key cuts off its tokens at the
 * next call instead of when they expire.
 */
export function createGuard(tokens: TokenService, keys: Pick<ApiKeys, 'check'>): Guard {
  return async (metadata) => {
    const values = metadata.get('authorization');
    if (values.length === 0) throw unauthenticated(Reason.ACCESS_TOKEN_MISSING, 'missing authorization metadata; send "authorization: Bearer <access token>" from AuthService/Authenticate');
    if (values.length > 1) throw unauthenticated(Reason.ACCESS_TOKEN_MALFORMED, 'more than one authorization metadata value');
    const [value] = values;
    const match = typeof value === 'string' ? BEARER.exec(value.trim()) : null;
    if (match?.[1] === undefined) throw unauthenticated(Reason.ACCESS_TOKEN_MALFORMED, 'authorization metadata must be "Bearer <access token>"');
    const { keyId, version } = await tokens.verify(match[1]);
    const state = keys.check(keyId, version);
    if (state === 'deleted') throw unauthenticated(Reason.API_KEY_DELETED, 'the API key this access token was issued for has been deleted');
    if (state === 'rotated') throw unauthenticated(Reason.API_KEY_ROTATED, 'the API key this access token was issued for has been rotated: authenticate with its new secret');
    return { keyId, identity: { type: '', id: keyId } };
  };
}
