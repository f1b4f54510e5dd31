import { status, type ServiceError } from '@grpc/grpc-js';
import type { BridgeError, ErrorKind } from '../../common/result';

/** An expected failure with a kind from the closed set; handlers throw it, the router turns it into the envelope. */
export class AppError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    /**
     * The service's `fleet-error-reason` when the failure came from it (docs/PROTOCOL.md section 9):
     * a kind groups codes (ABORTED and ALREADY_EXISTS are both `conflict`), and a handler that tells a
     * stale update from a taken name, or an in-use fragment from a bad request, needs the reason.
     */
    readonly reason: string | null = null,
  ) {
    super(message);
    this.name = 'AppError';
  }

  toBridge(): BridgeError {
    return { kind: this.kind, message: this.message };
  }
}

export function isServiceError(e: unknown): e is ServiceError {
  return e instanceof Error && typeof (e as Partial<ServiceError>).code === 'number' && 'metadata' in e;
}

/** The bridge kind for a gRPC status. */
export function kindOfStatus(code: status): ErrorKind {
  switch (code) {
    case status.UNAUTHENTICATED:
      return 'unauthenticated';
    case status.PERMISSION_DENIED:
      return 'permission-denied';
    case status.NOT_FOUND:
      return 'not-found';
    case status.INVALID_ARGUMENT:
    case status.FAILED_PRECONDITION:
    case status.OUT_OF_RANGE:
      return 'invalid';
    case status.ALREADY_EXISTS:
    case status.ABORTED:
      return 'conflict';
    case status.UNAVAILABLE:
    case status.DEADLINE_EXCEEDED:
      return 'offline';
    default:
      return 'internal';
  }
}

/**
 * Why a service could not be reached, in words for people. gRPC's own detail for UNAVAILABLE is a
 * channel log ("No connection established. Last error: Error: connect ECONNREFUSED … Resolution
 * note: "); the cause inside it is what the user can act on.
 */
export function describeUnreachable(code: status, detail: string): string {
  if (code === status.DEADLINE_EXCEEDED || /deadline exceeded/i.test(detail)) return 'it did not answer in time';
  if (/ECONNREFUSED/.test(detail)) return 'nothing is listening at that address (connection refused)';
  if (/ENOTFOUND|EAI_AGAIN|resolution failed|Name resolution/i.test(detail)) return 'its host name could not be resolved';
  if (/EHOSTUNREACH|ENETUNREACH/.test(detail)) return 'the network cannot reach that host';
  if (/certificate|SSL|TLS|handshake|wrong version number/i.test(detail)) {
    return 'the secure connection failed (is TLS on for a service without it, or off for one that needs it?)';
  }
  if (/ECONNRESET|Connection dropped|socket hang up|closed/i.test(detail)) return 'the connection was dropped';
  return `it is unavailable (${detail})`;
}

/** The trailer every error of the fleet service carries (docs/PROTOCOL.md section 9). */
export const ERROR_REASON_KEY = 'fleet-error-reason';

/** The service's reason for a failed call, or null when it gave none (another service, a transport failure). */
export function reasonOf(e: ServiceError): string | null {
  const value = e.metadata?.get(ERROR_REASON_KEY)[0];
  return typeof value === 'string' && value !== '' ? value : null;
}

/**
 * Turn a failed gRPC call into an AppError whose message says what happened, in words for people.
 * `what` names the operation ("list organizations"); `address` the service.
 */
export function fromServiceError(e: ServiceError, what: string, address: string): AppError {
  const kind = kindOfStatus(e.code);
  const detail = e.details || e.message;
  const reason = reasonOf(e);
  switch (kind) {
    case 'offline':
      return new AppError(kind, `Could not ${what}: can't reach the service at ${address}: ${describeUnreachable(e.code, detail)}.`);
    case 'unauthenticated':
      return new AppError(kind, `Could not ${what}: the service rejected the API key (${detail}). Check the key id and key of this profile.`);
    case 'permission-denied':
      return new AppError(kind, `Could not ${what}: this API key is not allowed to (${detail}).`);
    default:
      if (e.code === status.UNIMPLEMENTED) return new AppError(kind, `Could not ${what}: the service at ${address} does not support it yet (${detail}).`, reason);
      return new AppError(kind, `Could not ${what}: ${detail}`, reason);
  }
}
