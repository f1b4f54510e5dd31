import { Metadata, status, type StatusObject } from '@grpc/grpc-js';

/** Trailing metadata key carrying a machine-readable UPPER_SNAKE reason for every error. */
export const ERROR_REASON_KEY = 'fleet-error-reason';
/** Trailing metadata key naming the offending request field (proto field path) on INVALID_ARGUMENT. */
export const ERROR_FIELD_KEY = 'fleet-error-field';

/**
 * Every `fleet-error-reason` this service sends, in one place so the names can be checked against
 * docs/PROTOCOL.md at a glance.
 */
export const Reason = {
  /** INVALID_ARGUMENT: a required field is empty. */
  REQUIRED_FIELD_MISSING: 'REQUIRED_FIELD_MISSING',
  /** INVALID_ARGUMENT: a field is longer than allowed. */
  FIELD_TOO_LONG: 'FIELD_TOO_LONG',
  /** INVALID_ARGUMENT: a field holds something it must not (control characters, …). */
  FIELD_INVALID: 'FIELD_INVALID',
  /** INVALID_ARGUMENT: Authenticate with a credentials type other than `api-key`. */
  UNSUPPORTED_CREDENTIALS_TYPE: 'UNSUPPORTED_CREDENTIALS_TYPE',
  /** UNAUTHENTICATED: Authenticate with an unknown key id, a deleted key or a wrong secret (one reason for all three). */
  INVALID_API_KEY: 'INVALID_API_KEY',
  /** UNAUTHENTICATED: no `authorization` metadata. */
  ACCESS_TOKEN_MISSING: 'ACCESS_TOKEN_MISSING',
  /** UNAUTHENTICATED: `authorization` is not `Bearer <token>`, or the token is not a JWT. */
  ACCESS_TOKEN_MALFORMED: 'ACCESS_TOKEN_MALFORMED',
  /** UNAUTHENTICATED: a well-formed token this service did not issue (signature, issuer, algorithm, claims). */
  ACCESS_TOKEN_INVALID: 'ACCESS_TOKEN_INVALID',
  /** UNAUTHENTICATED: the token's lifetime is over. */
  ACCESS_TOKEN_EXPIRED: 'ACCESS_TOKEN_EXPIRED',
  /** UNAUTHENTICATED: the token's key was deleted after the token was issued. */
  API_KEY_DELETED: 'API_KEY_DELETED',
  /** UNAUTHENTICATED: the token's key was rotated (RotateKey) after the token was issued: authenticate with the new secret. */
  API_KEY_ROTATED: 'API_KEY_ROTATED',
  /** NOT_FOUND: no such organization, or none the caller holds an authorization in. */
  ORGANIZATION_NOT_FOUND: 'ORGANIZATION_NOT_FOUND',
  /** NOT_FOUND: no such location, or none the caller can see. */
  LOCATION_NOT_FOUND: 'LOCATION_NOT_FOUND',
  /** NOT_FOUND: no such machine, or none the caller can see. */
  ROBOT_NOT_FOUND: 'ROBOT_NOT_FOUND',
  /** NOT_FOUND: no such part, or none the caller can see. */
  ROBOT_PART_NOT_FOUND: 'ROBOT_PART_NOT_FOUND',
  /** NOT_FOUND: a fragment id names no fragment the caller can read. */
  FRAGMENT_NOT_FOUND: 'FRAGMENT_NOT_FOUND',
  /** NOT_FOUND: UnshareLocation for an organization the location is not shared with. */
  LOCATION_NOT_SHARED: 'LOCATION_NOT_SHARED',
  /** INVALID_ARGUMENT: a public namespace outside [a-z0-9-], 1 to 63 characters, no dash at either end. */
  NAMESPACE_INVALID: 'NAMESPACE_INVALID',
  /** INVALID_ARGUMENT: a negative page size or limit. */
  PAGE_SIZE_INVALID: 'PAGE_SIZE_INVALID',
  /** INVALID_ARGUMENT: a page token that is malformed, foreign, expired or from another request. */
  PAGE_TOKEN_INVALID: 'PAGE_TOKEN_INVALID',
  /** UNAVAILABLE: the service is shutting down (a running stream ends with it; reconnect). */
  SHUTTING_DOWN: 'SHUTTING_DOWN',
  /** INVALID_ARGUMENT: a log level other than DEBUG, INFO, WARN, ERROR. */
  LOG_LEVEL_INVALID: 'LOG_LEVEL_INVALID',
  /** INVALID_ARGUMENT: a time range whose start is after its end. */
  TIME_RANGE_INVALID: 'TIME_RANGE_INVALID',
  /** INVALID_ARGUMENT: user-defined metadata over 64 KiB as JSON. */
  METADATA_TOO_LARGE: 'METADATA_TOO_LARGE',
  /** INVALID_ARGUMENT: the request bytes are not a message of the method's request type. */
  MESSAGE_MALFORMED: 'MESSAGE_MALFORMED',
  /** ALREADY_EXISTS: a name that must be unique (machine or part in a location) is taken. */
  NAME_TAKEN: 'NAME_TAKEN',
  /** ALREADY_EXISTS: the public namespace belongs to another organization. */
  NAMESPACE_TAKEN: 'NAMESPACE_TAKEN',
  /** ALREADY_EXISTS: ShareLocation with an organization that already has access. */
  LOCATION_ALREADY_SHARED: 'LOCATION_ALREADY_SHARED',
  /** FAILED_PRECONDITION: the organization's public namespace is set already (to another value). */
  NAMESPACE_ALREADY_SET: 'NAMESPACE_ALREADY_SET',
  /** FAILED_PRECONDITION: a location cannot move under itself or one of its descendants. */
  LOCATION_CYCLE: 'LOCATION_CYCLE',
  /** FAILED_PRECONDITION: a move to another organization's location. */
  CROSS_ORGANIZATION_MOVE: 'CROSS_ORGANIZATION_MOVE',
  /** FAILED_PRECONDITION: DeleteLocation of a location that still holds machines or locations. */
  LOCATION_NOT_EMPTY: 'LOCATION_NOT_EMPTY',
  /** FAILED_PRECONDITION: UnshareLocation of the owning organization. */
  PRIMARY_ORGANIZATION: 'PRIMARY_ORGANIZATION',
  /** FAILED_PRECONDITION: DeleteRobotPart of the machine's main part. */
  MAIN_PART: 'MAIN_PART',
  /** INVALID_ARGUMENT: an UNSPECIFIED or unknown enum value where one is required. */
  ENUM_VALUE_INVALID: 'ENUM_VALUE_INVALID',
  /** NOT_FOUND: no such registry item, or none the caller can see. */
  REGISTRY_ITEM_NOT_FOUND: 'REGISTRY_ITEM_NOT_FOUND',
  /** NOT_FOUND: no such module (a registry item of type MODULE), or none the caller can see. */
  MODULE_NOT_FOUND: 'MODULE_NOT_FOUND',
  /** NOT_FOUND: no app of that name under that public namespace that the caller can see, or its module has no uploaded version. */
  APP_NOT_FOUND: 'APP_NOT_FOUND',
  /** INVALID_ARGUMENT: UpdateRegistryItem with a type other than the item's (an item never changes type). */
  TYPE_MISMATCH: 'TYPE_MISMATCH',
  /** INVALID_ARGUMENT: a url that is not an absolute http(s) URL. */
  URL_INVALID: 'URL_INVALID',
  /** FAILED_PRECONDITION: a public item or module in an organization without a public namespace. */
  NAMESPACE_REQUIRED: 'NAMESPACE_REQUIRED',
  /** FAILED_PRECONDITION: DeleteRegistryItem of an item a machine part's config uses. */
  REGISTRY_ITEM_IN_USE: 'REGISTRY_ITEM_IN_USE',
  /** ALREADY_EXISTS: an app name another module of the organization declares. */
  APP_NAME_TAKEN: 'APP_NAME_TAKEN',
  /** INVALID_ARGUMENT: an upload whose first message lacks module_file_info, or a later one carrying it. */
  UPLOAD_SEQUENCE_INVALID: 'UPLOAD_SEQUENCE_INVALID',
  /** INVALID_ARGUMENT: an upload chunk over 1 MiB. */
  CHUNK_TOO_LARGE: 'CHUNK_TOO_LARGE',
  /** INVALID_ARGUMENT: an upload that ended without a byte of file. */
  FILE_EMPTY: 'FILE_EMPTY',
  /** INVALID_ARGUMENT: an upload beyond the file size bound. */
  FILE_TOO_LARGE: 'FILE_TOO_LARGE',
  /** INVALID_ARGUMENT: a version that is not MAJOR.MINOR.PATCH. */
  VERSION_INVALID: 'VERSION_INVALID',
  /** INVALID_ARGUMENT: a platform not of the form `<os>/<arch>` or `<os>/any`. */
  PLATFORM_INVALID: 'PLATFORM_INVALID',
  /** FAILED_PRECONDITION: a module file upload before UpdateModule set an entrypoint. */
  ENTRYPOINT_MISSING: 'ENTRYPOINT_MISSING',
  /** ALREADY_EXISTS: that version's file for that platform is uploaded already (files are immutable). */
  MODULE_FILE_EXISTS: 'MODULE_FILE_EXISTS',
  /** FAILED_PRECONDITION: a resumed upload whose write_offset is not the committed bytes the service holds. */
  UPLOAD_OFFSET_MISMATCH: 'UPLOAD_OFFSET_MISMATCH',
  /** ABORTED: a newer stream of the same file took this upload over (or the older one would not stop). */
  UPLOAD_IN_PROGRESS: 'UPLOAD_IN_PROGRESS',
  /** ABORTED: an upload stream that sent nothing for the idle timeout; its bytes are kept for a resume. */
  UPLOAD_IDLE: 'UPLOAD_IDLE',
  /** UNAVAILABLE: another instance of the service serving the same data dir takes its uploads. */
  UPLOADS_ELSEWHERE: 'UPLOADS_ELSEWHERE',
  /** RESOURCE_EXHAUSTED: more upload streams than one key (or the whole service) may have open at once. */
  UPLOAD_LIMIT: 'UPLOAD_LIMIT',
  /** RESOURCE_EXHAUSTED: the data dir's disk (or quota) is full; the message says what to free. */
  DISK_FULL: 'DISK_FULL',
  /** RESOURCE_EXHAUSTED: the service is out of file descriptors (its own or the system's). */
  OUT_OF_FILE_DESCRIPTORS: 'OUT_OF_FILE_DESCRIPTORS',
  /** NOT_FOUND: no such training job, or one of an organization the caller cannot see. */
  TRAINING_JOB_NOT_FOUND: 'TRAINING_JOB_NOT_FOUND',
  /** FAILED_PRECONDITION: CancelTrainingJob of a job that already SUCCEEDED or FAILED. */
  TRAINING_JOB_COMPLETED: 'TRAINING_JOB_COMPLETED',
  /** FAILED_PRECONDITION: DeleteCompletedTrainingJob of a job still PENDING, RUNNING or CANCELING. */
  TRAINING_JOB_NOT_COMPLETED: 'TRAINING_JOB_NOT_COMPLETED',
  /** ALREADY_EXISTS: a model_version used before for that model_name in the organization (by a job, or published). */
  MODEL_VERSION_TAKEN: 'MODEL_VERSION_TAKEN',
  /** FAILED_PRECONDITION: model_name names a registry item of the organization that is not an ML model. */
  MODEL_NAME_TAKEN: 'MODEL_NAME_TAKEN',
  /** FAILED_PRECONDITION: SubmitCustomTrainingJob naming a registry item that is not a training script. */
  REGISTRY_ITEM_WRONG_TYPE: 'REGISTRY_ITEM_WRONG_TYPE',
  /** RESOURCE_EXHAUSTED: a training job submitted to an organization already holding the most PENDING jobs the service queues (--max-pending-jobs). */
  TRAINING_QUEUE_FULL: 'TRAINING_QUEUE_FULL',
  /** INVALID_ARGUMENT: a part or fragment config that is no JSON object, is too large or deep, or does not resolve (a malformed `fragments`/`fragment_mods` entry, an unknown or unreadable fragment or version, a fragment naming itself, a cycle, nesting past 5 levels); the message says which and where. */
  CONFIG_INVALID: 'CONFIG_INVALID',
  /** ABORTED: `last_known_update` is earlier than the stored last_updated: someone changed it since the caller read it. */
  STALE_UPDATE: 'STALE_UPDATE',
  /** NOT_FOUND: a fragment has no such revision or tag. */
  FRAGMENT_VERSION_NOT_FOUND: 'FRAGMENT_VERSION_NOT_FOUND',
  /** INVALID_ARGUMENT: UpdateFragment's deprecated `public` and its `visibility` disagree. */
  VISIBILITY_CONFLICT: 'VISIBILITY_CONFLICT',
  /** FAILED_PRECONDITION: DeleteFragment of a fragment machine parts, other fragments or another organization's default fragments still use. */
  FRAGMENT_IN_USE: 'FRAGMENT_IN_USE',
  /** INVALID_ARGUMENT: an email address that is not `local@domain` (or is over 254 characters). */
  EMAIL_INVALID: 'EMAIL_INVALID',
  /** INVALID_ARGUMENT: a role other than `owner` or `operator`. */
  ROLE_INVALID: 'ROLE_INVALID',
  /** INVALID_ARGUMENT: a resource type other than `organization`, `location` or `robot`. */
  RESOURCE_TYPE_INVALID: 'RESOURCE_TYPE_INVALID',
  /** INVALID_ARGUMENT: a list of authorizations that must not be empty is (UpdateOrganizationInviteAuthorizations with nothing to add or remove). */
  AUTHORIZATIONS_EMPTY: 'AUTHORIZATIONS_EMPTY',
  /** INVALID_ARGUMENT: CheckPermissions with no entry. */
  PERMISSIONS_EMPTY: 'PERMISSIONS_EMPTY',
  /** INVALID_ARGUMENT: a permission string CheckPermissions does not know. */
  PERMISSION_INVALID: 'PERMISSION_INVALID',
  /** NOT_FOUND: no user with that email or id. */
  USER_NOT_FOUND: 'USER_NOT_FOUND',
  /** NOT_FOUND: the user holds no authorization in the organization. */
  MEMBER_NOT_FOUND: 'MEMBER_NOT_FOUND',
  /** NOT_FOUND: no pending invite for that email in the organization, or no pending invite with that token. */
  INVITE_NOT_FOUND: 'INVITE_NOT_FOUND',
  /** NOT_FOUND: AddRole/RemoveRole/ChangeRole naming no user and no live API key. */
  IDENTITY_NOT_FOUND: 'IDENTITY_NOT_FOUND',
  /** NOT_FOUND: an authorization's resource is unknown, not of its resource type, or not in the organization. */
  RESOURCE_NOT_FOUND: 'RESOURCE_NOT_FOUND',
  /** NOT_FOUND: RemoveRole/ChangeRole of a role the identity does not hold. */
  AUTHORIZATION_NOT_FOUND: 'AUTHORIZATION_NOT_FOUND',
  /** ALREADY_EXISTS: AddRole/ChangeRole of a role the identity already holds. */
  AUTHORIZATION_EXISTS: 'AUTHORIZATION_EXISTS',
  /** ALREADY_EXISTS: inviting the email of a user who is already a member. */
  ALREADY_MEMBER: 'ALREADY_MEMBER',
  /** ALREADY_EXISTS: an invite for that email is already pending in the organization. */
  INVITE_EXISTS: 'INVITE_EXISTS',
  /** FAILED_PRECONDITION: an invite update that would leave the invite without authorizations (delete it instead). */
  LAST_INVITE_AUTHORIZATION: 'LAST_INVITE_AUTHORIZATION',
  /** FAILED_PRECONDITION: removing or changing a role, or a member, would leave the organization without an owner. */
  LAST_OWNER: 'LAST_OWNER',
  /** UNAVAILABLE: the invite email could not be handed to the SMTP server; nothing was changed (a resend keeps the invite). */
  MAIL_UNAVAILABLE: 'MAIL_UNAVAILABLE',
  /** NOT_FOUND: no such API key, a deleted one, or one in no organization the caller sees. */
  API_KEY_NOT_FOUND: 'API_KEY_NOT_FOUND',
  /** NOT_FOUND: the location or part has no secret of that id. */
  SECRET_NOT_FOUND: 'SECRET_NOT_FOUND',
  /** PERMISSION_DENIED: the caller sees the organization but lacks the role the call needs. */
  PERMISSION_DENIED: 'PERMISSION_DENIED',
  /** UNIMPLEMENTED: the method is in the contract but not in this service yet. */
  NOT_IMPLEMENTED: 'NOT_IMPLEMENTED',
  /** INTERNAL: anything unexpected; the details are in the service log. */
  INTERNAL: 'INTERNAL',
} as const;

/** A `fleet-error-reason` value. */
export type Reason = (typeof Reason)[keyof typeof Reason];

/** An expected failure: thrown by handlers and the auth guard, sent to the caller as it is. */
export class FleetError extends Error {
  /**
   * @param code the gRPC status
   * @param reason UPPER_SNAKE reason for programs, sent as `fleet-error-reason`
   * @param message the status message, for people
   * @param field the request field at fault (for INVALID_ARGUMENT), sent as `fleet-error-field`
   */
  constructor(
    readonly code: status,
    readonly reason: Reason,
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'FleetError';
  }
}

/** INVALID_ARGUMENT naming the request field at fault. */
export function invalidArgument(field: string, reason: Reason, message: string): FleetError {
  return new FleetError(status.INVALID_ARGUMENT, reason, message, field);
}

/** Where unexpected errors are reported; they never reach the caller beyond a generic message. */
export type ErrorLog = (message: string) => void;

/**
 * The status to send for anything a handler threw. A FleetError goes out as it is; anything else
 * is a bug or an outage, so the caller gets INTERNAL with a generic message and the details go to
 * the log, where they cannot leak internals to a caller.
 */
export function toStatus(error: unknown, method: string, log: ErrorLog): StatusObject {
  let e: FleetError;
  const exhausted = error instanceof FleetError ? null : exhaustion(error);
  if (error instanceof FleetError) {
    e = error;
  } else if (exhausted !== null) {
    e = exhausted;
    logOnce(log, exhausted.reason, `${method}: ${exhausted.message} (${error instanceof Error ? error.message : String(error)})`);
  } else {
    log(`${method} failed unexpectedly: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    e = new FleetError(status.INTERNAL, Reason.INTERNAL, 'The service failed to handle this call; details are in the service log.');
  }
  const metadata = new Metadata();
  metadata.set(ERROR_REASON_KEY, e.reason);
  if (e.field !== undefined) metadata.set(ERROR_FIELD_KEY, e.field);
  // grpc-js percent-encodes the message and throws (leaving the call unanswered) on a lone surrogate,
  // which a message quoting the caller's own text (a config's JSON, a key) can carry.
  return { code: e.code, details: wellFormed(e.message), metadata };
}

/** `text` with every lone surrogate replaced by U+FFFD (String.prototype.toWellFormed, which this build's lib lacks). */
export function wellFormed(text: string): string {
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/**
 * A resource the machine ran out of, as the caller's answer: RESOURCE_EXHAUSTED with what to free,
 * not INTERNAL (nothing is wrong with the service or the request; it works again once there is room).
 * Node's errno codes for files and sockets, SQLite's for its database file; null for anything else.
 */
export function exhaustion(error: unknown): FleetError | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT' || code === 'SQLITE_FULL') {
    return new FleetError(status.RESOURCE_EXHAUSTED, Reason.DISK_FULL, "the service's disk is full: free space on the disk of its data dir (or raise its quota), then try again");
  }
  if (code === 'EMFILE' || code === 'ENFILE') {
    return new FleetError(
      status.RESOURCE_EXHAUSTED,
      Reason.OUT_OF_FILE_DESCRIPTORS,
      'the service has no file descriptors left: close other uploads or connections, or raise its open-files limit (ulimit -n), then try again',
    );
  }
  return null;
}

/** How often a condition that persists (a full disk) is logged again, with how many calls it failed meanwhile. */
const REPEAT_LOG_MS = 60_000;
const logged = new WeakMap<ErrorLog, Map<string, { at: number; since: number }>>();

/**
 * Log a persistent condition once, not once per call that meets it: a full disk fails every write,
 * and a line per call would fill what little room is left. Repeats are counted and summarized at
 * most once a minute.
 */
export function logOnce(log: ErrorLog, condition: string, line: string, nowMs = Date.now()): void {
  let seen = logged.get(log);
  if (seen === undefined) logged.set(log, (seen = new Map()));
  const last = seen.get(condition);
  if (last !== undefined && nowMs - last.at < REPEAT_LOG_MS) {
    last.since += 1;
    return;
  }
  log(last !== undefined && last.since > 0 ? `${line} [and ${last.since} more time${last.since === 1 ? '' : 's'} in the last ${Math.round((nowMs - last.at) / 1000)} s]` : line);
  seen.set(condition, { at: nowMs, since: 0 });
}

/**
 * `value`, which the caller knows exists (a row it just wrote, or one the permission table just
 * found); a missing one is a bug, reported as INTERNAL, never a caller's mistake.
 */
export function present<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is missing, though it was just written or found`);
  return value;
}
