/**
 * The result envelope every bridge call answers with. Failures cross the bridge as values with a
 * closed set of kinds, never as thrown errors: the renderer branches on `kind`, and shows `message`.
 */

/** Every way a bridge call can fail. Closed: the renderer handles each one. */
export const errorKinds = [
  /** The service refused the credentials (wrong, deleted or expired key). */
  'unauthenticated',
  /** The credentials are valid but do not grant this operation. */
  'permission-denied',
  /** The thing asked for does not exist (or is not visible to these credentials). */
  'not-found',
  /** The request was malformed or broke a rule; the message says which. */
  'invalid',
  /** The request collides with the current state (a name taken, a stale update). */
  'conflict',
  /** The service could not be reached; cached data may still answer reads. */
  'offline',
  /** Anything else: a bug or an unexpected failure. The message says what happened. */
  'internal',
] as const;

export type ErrorKind = (typeof errorKinds)[number];

/** A failure, for people: `message` says what happened and, where it helps, what to do. */
export interface BridgeError {
  readonly kind: ErrorKind;
  readonly message: string;
}

export type Result<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: BridgeError };

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

export function err(kind: ErrorKind, message: string): Result<never> {
  return { ok: false, error: { kind, message } };
}

/**
 * A result as it crosses the bridge: the envelope, or a success whose value main sends as the JSON
 * text it had ready (a whole fleet tree, serialized by the cache's tree reader off main's thread and
 * kept serialized, so that main neither copies 150,000 strings out of the reader nor writes them out
 * again). Browser mode splices the text into its frame as `value`; over IPC it arrives as `json`,
 * and `createBridge` parses it: the renderer only ever sees {@link Result}.
 */
export type WireResult<T> = Result<T> | { readonly ok: true; readonly json: string };

/**
 * The {@link Result} a wire result stands for: a `json` success parsed, anything else as it is (a
 * malformed text is an internal failure that says so, not a throw).
 */
export function fromWire<T>(result: WireResult<T>): Result<T> {
  if (!result.ok || !('json' in result)) return result;
  try {
    return ok(JSON.parse(result.json) as T);
  } catch (e) {
    return err('internal', `The app's backend sent an answer that is not JSON (${e instanceof Error ? e.message : String(e)}).`);
  }
}

export function isErrorKind(value: unknown): value is ErrorKind {
  return typeof value === 'string' && (errorKinds as readonly string[]).includes(value);
}
