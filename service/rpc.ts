// Registration of a generated service definition on the server. Every method of the definition is
// registered, implemented or not, and every one of them goes through the auth guard here unless
// it is explicitly listed as public: authentication is never left to individual handlers.
import {
  status,
  type handleBidiStreamingCall,
  type handleClientStreamingCall,
  type handleServerStreamingCall,
  type handleUnaryCall,
  Metadata,
  type Server,
  type ServiceDefinition,
  type UntypedHandleCall,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { FleetError, Reason, toStatus, type ErrorLog } from './errors';
import type { Grant, Identity, Permissions, Target } from './permissions/engine';
import type { Rules } from './permissions/rules';

/** The authenticated caller of a call. */
export interface Caller {
  /** The API key the caller's access token was issued for. */
  readonly keyId: string;
  readonly identity: Identity;
}

/**
 * Checks a call's metadata and says who is calling, or throws UNAUTHENTICATED saying what is wrong.
 * Declared here, not beside its implementation (auth/guard.ts), so that the plumbing imports no domain.
 */
export type Guard = (metadata: Metadata) => Promise<Caller>;

/** What a public handler knows about its call. */
export interface CallInfo {
  /** The call's method, as `Service/Method`. */
  readonly method: string;
}

/** What an authenticated handler knows about its call. */
export interface CallContext extends CallInfo {
  readonly caller: Caller;
  /** The caller's authorizations, as read for this call. */
  readonly grants: readonly Grant[];
  /**
   * The resource the method's rule names, found and checked (seen, and the role held); null for
   * calls on nothing in particular or services without a rule table.
   */
  readonly target: Target | null;
}

/** The permission table of a service and the engine that applies it. */
export interface Authorization<D> {
  readonly rules: Rules<D>;
  readonly permissions: Permissions;
}

/** A unary handler: resolve with the response or throw (a FleetError for expected failures). */
export type UnaryHandler<Req, Res, Ctx> = (request: Req, context: Ctx) => Promise<Res>;

/** A generated method with a single request; `Streams` says whether it answers with a stream. */
interface MethodShape<Req, Res, Streams extends boolean> {
  readonly requestStream: false;
  readonly responseStream: Streams;
  readonly requestDeserialize: (bytes: Buffer) => Req;
  readonly responseSerialize: (value: Res) => Buffer;
}
type UnaryShape<Req, Res> = MethodShape<Req, Res, false>;
type ServerStreamShape<Req, Res> = MethodShape<Req, Res, true>;

type UnaryMethodNames<D> = { [K in keyof D]: D[K] extends UnaryShape<unknown, never> ? K : never }[keyof D];

/** Handlers for some of the unary methods of generated service definition `D`, typed by each method's messages. */
export type UnaryHandlers<D, Ctx> = {
  readonly [K in UnaryMethodNames<D>]?: D[K] extends UnaryShape<infer Req, infer Res> ? UnaryHandler<Req, Res, Ctx> : never;
};

/** Where a server-streaming handler sends its messages. */
export interface ResponseStream<Res> {
  /** Send one message; resolves when the transport takes more (a slow reader holds the writer back). */
  write(message: Res): Promise<void>;
  /** Aborted when the client cancels or goes away: the handler should return. */
  readonly signal: AbortSignal;
  /**
   * Tell the client the call was let in (authenticated, permitted, its resource found): the
   * response's headers go out now, before any message. A client then knows a refusal from a quiet
   * stream at once, instead of guessing from a wait.
   */
  admitted(): void;
}

/**
 * A server-streaming handler: write through `stream`; return to end the call OK, throw (a
 * FleetError for expected endings) to end it with that status.
 */
export type StreamHandler<Req, Res, Ctx> = (request: Req, context: Ctx, stream: ResponseStream<Res>) => Promise<void>;

type ServerStreamMethodNames<D> = { [K in keyof D]: D[K] extends ServerStreamShape<unknown, never> ? K : never }[keyof D];

/** Handlers for some of the server-streaming methods of `D`. */
export type StreamHandlers<D, Ctx> = {
  readonly [K in ServerStreamMethodNames<D>]?: D[K] extends ServerStreamShape<infer Req, infer Res> ? StreamHandler<Req, Res, Ctx> : never;
};

/**
 * A client-streaming handler: the call's first message was admitted (the permission table's row
 * applies to it); `rest` yields the messages after it as the client sends them (a slow handler holds
 * the client back), and ends when the client half-closes. Resolve with the one response, or throw.
 * `signal` is aborted when the client cancels or goes away: `rest` then ends early, so a handler
 * that must tell a cut-off stream from a finished one checks `signal.aborted`.
 */
export type ClientStreamHandler<Req, Res, Ctx> = (first: Req, context: Ctx, rest: AsyncIterable<Req>, signal: AbortSignal) => Promise<Res>;

interface ClientStreamShape<Req, Res> {
  readonly requestStream: true;
  readonly responseStream: false;
  readonly requestDeserialize: (bytes: Buffer) => Req;
  readonly responseSerialize: (value: Res) => Buffer;
}

type ClientStreamMethodNames<D> = { [K in keyof D]: D[K] extends ClientStreamShape<unknown, never> ? K : never }[keyof D];

/** Handlers for some of the client-streaming methods of `D`. */
export type ClientStreamHandlers<D, Ctx> = {
  readonly [K in ClientStreamMethodNames<D>]?: D[K] extends ClientStreamShape<infer Req, infer Res> ? ClientStreamHandler<Req, Res, Ctx> : never;
};

/** The handlers of one service: `public` ones run without a token; `authenticated` ones only after the guard let the call in. */
export interface ServiceHandlers<D> {
  readonly public?: UnaryHandlers<D, CallInfo>;
  readonly authenticated?: UnaryHandlers<D, CallContext> & StreamHandlers<D, CallContext> & ClientStreamHandlers<D, CallContext>;
}

/** `/fleet.app.v1.AppService/GetLocation` → `AppService/GetLocation`, as people read it. */
export function methodLabel(path: string): string {
  const [service = '', method = ''] = path.replace(/^\//, '').split('/');
  return `${service.slice(service.lastIndexOf('.') + 1)}/${method}`;
}

/** A handler with its message types erased, as stored by method name. */
type ErasedHandlers<Ctx> = Readonly<Record<string, UnaryHandler<unknown, unknown, Ctx> | StreamHandler<unknown, unknown, Ctx> | ClientStreamHandler<unknown, unknown, Ctx> | undefined>>;

/**
 * Add every method of `definition` to `server`. A method with a handler runs it; any other
 * method answers UNIMPLEMENTED, whatever its streaming kind, once the caller is authenticated
 * (so an unauthenticated client learns nothing about what is implemented).
 * Throws if a handler names no method of the definition, or a method is both public and authenticated.
 */
export function addService<D extends ServiceDefinition>(
  server: Server,
  definition: D,
  handlers: NoInfer<ServiceHandlers<D>>,
  guard: Guard,
  log: ErrorLog,
  authorization?: NoInfer<Authorization<D>>,
): void {
  // The generated definition deserializes each method's request into the type its handler expects.
  const publicHandlers = (handlers.public ?? {}) as ErasedHandlers<CallInfo>;
  const authHandlers = (handlers.authenticated ?? {}) as ErasedHandlers<CallContext>;
  for (const name of [...Object.keys(publicHandlers), ...Object.keys(authHandlers)]) {
    if (!(name in definition)) throw new Error(`a handler is given for "${name}", which the service definition does not have`);
    if (name in publicHandlers && name in authHandlers) throw new Error(`"${name}" is given both a public and an authenticated handler`);
    if (authorization && name in authHandlers && !(name in authorization.rules)) {
      throw new Error(`"${name}" has no row in the permission table: add one to its domain's rules.ts before its handler`);
    }
  }
  const rules = (authorization?.rules ?? {}) as Readonly<Record<string, Rules<D>[keyof D]>>;

  const implementation: UntypedServiceImplementation = {};
  for (const [name, method] of Object.entries(definition)) {
    const label = methodLabel(method.path);
    const publicHandler = publicHandlers[name];
    const authHandler = authHandlers[name];
    if (publicHandler !== undefined) {
      const handler = publicHandler as UnaryHandler<unknown, unknown, CallInfo>;
      implementation[name] = unary(label, log, async (request) => {
        if (request === MALFORMED) throw malformed(label);
        return handler(request, { method: label });
      });
    } else if (authHandler !== undefined) {
      const rule = rules[name] as { validate?: (r: unknown) => void; resource: (r: unknown) => Parameters<Permissions['require']>[1] | null; need: string; owningOrganizationOnly?: boolean } | undefined;
      /** The guard, then the permission table: the same for every kind of call. */
      const admit = async (request: unknown, metadata: Metadata): Promise<CallContext> => authorize(request, await guard(metadata));
      const authorize = (request: unknown, caller: Caller): CallContext => {
        if (request === MALFORMED) throw malformed(label);
        if (rule === undefined || authorization === undefined) return { method: label, caller, grants: [], target: null };
        // The protocol's order: shape, then existence and visibility, then the role.
        rule.validate?.(request);
        const ref = rule.resource(request);
        const grants = authorization.permissions.grants(caller.identity);
        const target =
          ref === null || rule.need === 'authenticated'
            ? null
            : authorization.permissions.require(caller.identity, ref, rule.need as 'sees' | 'operator' | 'owner', { grants, owningOrganizationOnly: rule.owningOrganizationOnly });
        return { method: label, caller, grants, target };
      };
      if (method.responseStream && !method.requestStream) {
        const handler = authHandler as StreamHandler<unknown, unknown, CallContext>;
        implementation[name] = serverStream(label, log, async (request, metadata, stream) => {
          const context = await admit(request, metadata);
          stream.admitted();
          return handler(request, context, stream);
        });
      } else if (method.requestStream && !method.responseStream) {
        const handler = authHandler as ClientStreamHandler<unknown, unknown, CallContext>;
        implementation[name] = clientStream(label, log, async (metadata, messages, signal) => {
          // Authenticated before a byte of the stream is read; the table's row then applies to its first message.
          const caller = await guard(metadata);
          const first = await messages.next();
          if (first.done === true) throw new FleetError(status.INVALID_ARGUMENT, Reason.REQUIRED_FIELD_MISSING, `the ${label} stream ended before its first message`);
          const context = authorize(first.value, caller);
          const rest: AsyncIterable<unknown> = {
            [Symbol.asyncIterator]: () => ({
              next: async () => {
                const next = await messages.next();
                if (next.done !== true && next.value === MALFORMED) throw malformed(label);
                return next;
              },
            }),
          };
          return handler(first.value, context, rest, signal);
        });
      } else {
        const handler = authHandler as UnaryHandler<unknown, unknown, CallContext>;
        implementation[name] = unary(label, log, async (request, metadata) => handler(request, await admit(request, metadata)));
      }
    } else {
      implementation[name] = unimplemented(label, method.requestStream, method.responseStream, guard, log);
    }
  }
  server.addService(tolerantDefinition(definition), implementation);
}

/**
 * Stands for a request whose bytes did not decode. grpc-js answers INTERNAL when a deserializer
 * throws; but bytes that are no message of the method's type (or a Struct nested deeper than the
 * decoder's stack allows) are the caller's mistake, so the handler answers INVALID_ARGUMENT instead.
 */
const MALFORMED: unique symbol = Symbol('malformed request');

function malformed(label: string): FleetError {
  // No fleet-error-field: the message as a whole is at fault.
  return new FleetError(status.INVALID_ARGUMENT, Reason.MESSAGE_MALFORMED, `the request is not a valid ${label} request message (it could not be decoded)`);
}

/** The definition with every request deserializer made total: a decoding failure yields {@link MALFORMED}. */
function tolerantDefinition<D extends ServiceDefinition>(definition: D): D {
  const tolerant: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(definition)) {
    const decode = method.requestDeserialize;
    tolerant[name] = {
      ...method,
      requestDeserialize: (bytes: Buffer) => {
        try {
          return decode(bytes);
        } catch {
          return MALFORMED;
        }
      },
    };
  }
  return tolerant as D;
}

function unary(
  label: string,
  log: ErrorLog,
  run: (request: unknown, metadata: Metadata) => Promise<unknown>,
): handleUnaryCall<unknown, unknown> {
  return (call, callback) => {
    // Even a handler that throws synchronously must end in a status, never an unhandled rejection.
    Promise.resolve()
      .then(() => run(call.request, call.metadata))
      .then(
        (response) => callback(null, response),
        (error: unknown) => callback(toStatus(error, label, log)),
      );
  };
}

function serverStream(
  label: string,
  log: ErrorLog,
  run: (request: unknown, metadata: Metadata, stream: ResponseStream<unknown>) => Promise<void>,
): handleServerStreamingCall<unknown, unknown> {
  return (call) => {
    const controller = new AbortController();
    call.on('cancelled', () => controller.abort());
    call.on('close', () => controller.abort());
    let headersSent = false;
    const stream: ResponseStream<unknown> = {
      signal: controller.signal,
      admitted: () => {
        if (headersSent || controller.signal.aborted) return;
        headersSent = true;
        call.sendMetadata(new Metadata());
      },
      write: (message) =>
        new Promise<void>((resolve) => {
          if (controller.signal.aborted || call.write(message)) {
            resolve();
            return;
          }
          const done = () => {
            call.off('drain', done);
            controller.signal.removeEventListener('abort', done);
            resolve();
          };
          call.on('drain', done);
          controller.signal.addEventListener('abort', done);
        }),
    };
    Promise.resolve()
      .then(() => run(call.request, call.metadata, stream))
      .then(
        () => {
          if (!controller.signal.aborted) call.end();
        },
        (error: unknown) => {
          // A writable call ends with the status of the error it is given.
          if (!controller.signal.aborted) call.emit('error', toStatus(error, label, log));
        },
      );
  };
}

/**
 * Messages a client stream reads ahead of its handler, at most. grpc-js's stream keeps Node's object
 * default (16): with 1 MiB upload chunks that is 16 MiB received and not yet written whenever the
 * disk is slower than the client, all lost if the service dies, and sent again on resume (a client
 * that streams faster than the disk saw 14 chunks resent after a kill; 0–2 with two messages ahead,
 * 0–1 with one). HTTP/2's flow-control window still keeps the transport busy while a write is under
 * way: the upload bench's throughput did not move.
 */
export const CLIENT_STREAM_READ_AHEAD = 1;

/**
 * Lower the stream's read-ahead to {@link CLIENT_STREAM_READ_AHEAD}. grpc-js builds the stream and
 * offers no option for its high-water mark, so the one field Node reads it from is set once, before
 * the first read (it is what `readableHighWaterMark` reports).
 */
export function boundReadAhead(call: { readonly readableHighWaterMark: number }): void {
  const state = (call as unknown as { _readableState?: { highWaterMark?: number } })._readableState;
  if (state && typeof state.highWaterMark === 'number') state.highWaterMark = Math.min(state.highWaterMark, CLIENT_STREAM_READ_AHEAD);
}

function clientStream(
  label: string,
  log: ErrorLog,
  run: (metadata: Metadata, messages: AsyncIterator<unknown>, signal: AbortSignal) => Promise<unknown>,
): handleClientStreamingCall<unknown, unknown> {
  return (call, callback) => {
    const controller = new AbortController();
    call.on('cancelled', () => controller.abort());
    boundReadAhead(call);
    // A cancelled call's stream may never end by itself: its reader is released on abort.
    const iterator = call[Symbol.asyncIterator]() as AsyncIterator<unknown>;
    const messages: AsyncIterator<unknown> = {
      next: () =>
        controller.signal.aborted
          ? Promise.resolve({ done: true, value: undefined })
          : new Promise((resolve, reject) => {
              const cut = () => resolve({ done: true, value: undefined });
              controller.signal.addEventListener('abort', cut, { once: true });
              iterator.next().then(
                (r) => (controller.signal.removeEventListener('abort', cut), resolve(r)),
                (e: unknown) => (controller.signal.removeEventListener('abort', cut), controller.signal.aborted ? resolve({ done: true, value: undefined }) : reject(e)),
              );
            }),
    };
    Promise.resolve()
      .then(() => run(call.metadata, messages, controller.signal))
      .then(
        (response) => callback(null, response),
        (error: unknown) => callback(toStatus(error, label, log)),
      );
  };
}

function notImplemented(label: string): FleetError {
  return new FleetError(status.UNIMPLEMENTED, Reason.NOT_IMPLEMENTED, `${label} is not implemented by this service yet`);
}

/** A handler of the method's own streaming kind that authenticates, then answers UNIMPLEMENTED. */
function unimplemented(label: string, requestStream: boolean, responseStream: boolean, guard: Guard, log: ErrorLog): UntypedHandleCall {
  const fail = (metadata: Metadata) =>
    guard(metadata).then(
      () => toStatus(notImplemented(label), label, log),
      (error: unknown) => toStatus(error, label, log),
    );
  if (!requestStream && !responseStream) {
    const handler: handleUnaryCall<unknown, unknown> = (call, callback) => void fail(call.metadata).then((s) => callback(s));
    return handler;
  }
  if (requestStream && !responseStream) {
    const handler: handleClientStreamingCall<unknown, unknown> = (call, callback) => void fail(call.metadata).then((s) => callback(s));
    return handler;
  }
  if (!requestStream) {
    // A writable call ends with the status of the error it is given.
    const handler: handleServerStreamingCall<unknown, unknown> = (call) => void fail(call.metadata).then((s) => call.emit('error', s));
    return handler;
  }
  const handler: handleBidiStreamingCall<unknown, unknown> = (call) => void fail(call.metadata).then((s) => call.emit('error', s));
  return handler;
}
