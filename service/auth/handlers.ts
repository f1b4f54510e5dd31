import { status } from '@grpc/grpc-js';
import type { AuthServiceService } from '../../proto/gen/fleet/auth/v1/auth';
import { FleetError, invalidArgument, Reason } from '../errors';
import type { UnaryHandlers, CallInfo } from '../rpc';
import type { ApiKeys } from './guard';
import type { TokenService } from './tokens';

/** The only credentials type of this version of the protocol. */
export const API_KEY_CREDENTIALS = 'api-key';

/** AuthService: Authenticate exchanges an API key for an access token. Public: it is how a caller gets a token. */
export function createAuthHandlers(keys: ApiKeys, tokens: TokenService): UnaryHandlers<AuthServiceService, CallInfo> {
  return {
    async authenticate(request) {
      if (request.entity === '') throw invalidArgument('entity', Reason.REQUIRED_FIELD_MISSING, 'entity (the API key id) is required');
      if (request.credentials === undefined) throw invalidArgument('credentials', Reason.REQUIRED_FIELD_MISSING, 'credentials are required');
      const { type, payload } = request.credentials;
      if (type === '') throw invalidArgument('credentials.type', Reason.REQUIRED_FIELD_MISSING, `credentials.type is required; it must be "${API_KEY_CREDENTIALS}"`);
      if (type !== API_KEY_CREDENTIALS) {
        throw invalidArgument('credentials.type', Reason.UNSUPPORTED_CREDENTIALS_TYPE, `credentials.type "${type}" is not supported; it must be "${API_KEY_CREDENTIALS}"`);
      }
      if (payload === '') throw invalidArgument('credentials.payload', Reason.REQUIRED_FIELD_MISSING, 'credentials.payload (the API key) is required');
      // One answer for an unknown id, a deleted key and a wrong secret, so ids cannot be probed.
      const version = await keys.verify(request.entity, payload);
      if (version === null) throw new FleetError(status.UNAUTHENTICATED, Reason.INVALID_API_KEY, 'the API key id or API key is wrong, or the key has been deleted');
      // A sign-in is a use of the key (recorded at most once a minute).
      keys.check(request.entity, version);
      return { accessToken: await tokens.issue(request.entity, version) };
    },
  };
}
