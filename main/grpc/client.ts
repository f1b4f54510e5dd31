/**
 * The main process's client of the fleet service. It exchanges the profile's API key for an access
 * token, attaches it to every call, authenticates again once when the service answers
 * UNAUTHENTICATED (the token expired or the service restarted with a new signing secret), and gives
 * every call a deadline so a hung service turns into an `offline` error instead of a frozen UI.
 */
import { credentials, Metadata, status, type CallOptions, type ClientUnaryCall, type ClientWritableStream, type ServiceError } from '@grpc/grpc-js';
import type { TailRobotPartLogsRequest } from '../../proto/gen/fleet/app/v1/logs';
import type { UploadModuleFileResponse } from '../../proto/gen/fleet/app/v1/registry';
import { AppServiceClient, AppServiceService } from '../../proto/gen/fleet/app/v1/app';
import { AuthServiceClient } from '../../proto/gen/fleet/auth/v1/auth';
import { MLTrainingServiceClient, MLTrainingServiceService } from '../../proto/gen/fleet/mltraining/v1/ml_training';
import { AppError, fromServiceError, isServiceError } from '../backend/errors';

export interface ServiceTarget {
  /** host:port */
  readonly address: string;
  readonly tls: boolean;
  readonly apiKeyId: string;
  readonly apiKey: string;
}

/** A generated unary method, in the (request, metadata, options, callback) form every one of them has. */
export type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => ClientUnaryCall;

/**
 * A unary method that answers its response's protobuf bytes undecoded, for `FleetClient.call`: log
 * pages go to the cache worker as bytes, which decodes them off the main thread.
 */
export function rawUnary<Req>(client: AppServiceClient, definition: { readonly path: string; readonly requestSerialize: (request: Req) => Buffer }): UnaryMethod<Req, Buffer> {
  return (request, metadata, options, callback) =>
    client.makeUnaryRequest(definition.path, definition.requestSerialize, (bytes: Buffer) => bytes, request, metadata, options, (error, response) => callback(error, response ?? Buffer.alloc(0)));
}

/** Default deadline of a unary call. Long enough for a slow link, short enough that offline shows soon. */
export const DEFAULT_DEADLINE_MS = 8_000;
/** Deadline of the calls docs/PROTOCOL.md gives 30 s: a page of ListMachineSummaries, DeleteOrganization. */
export const LONG_DEADLINE_MS = 30_000;

const channelOptions = {
  // Reconnect quickly after the service comes back (the default backoff grows to two minutes).
  'grpc.initial_reconnect_backoff_ms': 500,
  'grpc.max_reconnect_backoff_ms': 5_000,
  'grpc.keepalive_time_ms': 30_000,
  // HTTP/2's default 64 KiB window, shared by every stream of the connection, lets a short pause of
  // this thread stall a hundred log tails at once (and the service then drops lines): 2 MiB absorbs it.
  'grpc-node.flow_control_window': 2 * 1024 * 1024,
  'grpc.keepalive_timeout_ms': 10_000,
};

export class FleetClient {
  readonly app: AppServiceClient;
  /** fleet.mltraining.v1: its methods are passed to `call` like the app's. */
  readonly training: MLTrainingServiceClient;
  /** The training client's methods, to call each on the client it belongs to. */
  readonly #trainingMethods = new Set<unknown>();
  readonly #auth: AuthServiceClient;
  readonly #target: ServiceTarget;
  readonly #deadlineMs: number;
  #token: string | null = null;
  #authenticating: Promise<string> | null = null;
  /**
   * Why the service refused this key at the last sign-in, while no new attempt is allowed: every
   * user of this client (calls, log tails, uploads, each on its own retry schedule) is answered with
   * it at once, so a revoked key costs the service one Authenticate per `allowSignIn` (the
   * connection's backoff step), not one per caller per retry.
   */
  #refused: AppError | null = null;

  constructor(target: ServiceTarget, options: { deadlineMs?: number } = {}) {
    this.#target = target;
    this.#deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
    const creds = target.tls ? credentials.createSsl() : credentials.createInsecure();
    this.#auth = new AuthServiceClient(target.address, creds, channelOptions);
    this.app = new AppServiceClient(target.address, creds, channelOptions);
    // Same channel options on the same address: grpc-js shares the subchannel, so this is no second connection.
    this.training = new MLTrainingServiceClient(target.address, creds, channelOptions);
    for (const name of Object.keys(MLTrainingServiceService)) this.#trainingMethods.add((this.training as unknown as Record<string, unknown>)[name]);
  }

  /** Authenticates now (used to check a new profile's credentials before saving it). */
  async authenticate(): Promise<void> {
    this.#token = null;
    this.#refused = null;
    await this.#tokenFor();
  }

  /** The next sign-in may reach the service again after the key was refused (a backoff step came). */
  allowSignIn(): void {
    this.#refused = null;
  }

  /**
   * One unary call with auth and a deadline. `what` names the operation for error messages
   * ("list organizations"). Throws AppError with the bridge kind of the failure.
   */
  async call<Req, Res>(what: string, method: UnaryMethod<Req, Res>, request: Req, options: { deadlineMs?: number } = {}): Promise<Res> {
    const token = await this.#tokenFor(what);
    const deadlineMs = options.deadlineMs ?? this.#deadlineMs;
    try {
      return await this.#unary(method, request, token, deadlineMs);
    } catch (e) {
      if (isServiceError(e) && e.code === status.UNAUTHENTICATED) {
        // Once only: a second rejection means the key itself is no longer good.
        this.#token = null;
        const fresh = await this.#tokenFor(what);
        try {
          return await this.#unary(method, request, fresh, deadlineMs);
        } catch (again) {
          throw this.#toAppError(again, what);
        }
      }
      throw this.#toAppError(e, what);
    }
  }

  /**
   * Open a TailRobotPartLogs stream (no deadline: it runs until cancelled). Messages are handed over
   * undecoded (the protobuf bytes of each TailRobotPartLogsResponse): the cache worker decodes them,
   * so a tail of 20,000 lines a second costs this thread only the bytes. `onEnd` is called once:
   * with null when the stream ended normally or was cancelled through the returned function, with
   * the failure otherwise. A refused token is forgotten, so the next stream signs in again.
   */
  async tail(request: TailRobotPartLogsRequest, onData: (message: Buffer) => void, onEnd: (error: AppError | null) => void): Promise<() => void> {
    const token = await this.#tokenFor('tail the logs');
    const metadata = new Metadata();
    metadata.set('authorization', `Bearer ${token}`);
    const method = AppServiceService.tailRobotPartLogs;
    const call = this.app.makeServerStreamRequest(method.path, method.requestSerialize, (bytes: Buffer) => bytes, request, metadata, {});
    let cancelled = false;
    let ended = false;
    const end = (error: AppError | null) => {
      if (ended) return;
      ended = true;
      onEnd(error);
    };
    call.on('data', (message: Buffer) => {
      if (!cancelled) onData(message);
    });
    call.on('error', (e: ServiceError) => {
      if (cancelled && e.code === status.CANCELLED) return end(null);
      if (e.code === status.UNAUTHENTICATED) this.#token = null;
      end(this.#toAppError(e, 'tail the logs'));
    });
    call.on('end', () => end(null));
    return () => {
      cancelled = true;
      call.cancel();
    };
  }

  /**
   * Open an UploadModuleFile client stream (no deadline: a large file takes what it takes; a dead
   * connection ends it through keepalive). The caller writes each message's protobuf bytes
   * (upload-frames.ts: a chunk is read from disk into its message, so it is not copied again to be
   * encoded; the stream sends the bytes as they are) and half-closes; `onEnd`
   * is called once, with the service's answer or the raw ServiceError (the uploader decides what
   * to retry by code and reason, so it is not turned into an AppError here). A refused token is
   * forgotten, so the next stream signs in again.
   */
  async uploadStream(onEnd: (error: ServiceError | AppError | null, response: UploadModuleFileResponse | null) => void): Promise<ClientWritableStream<Buffer>> {
    const token = await this.#tokenFor('upload the file');
    const metadata = new Metadata();
    metadata.set('authorization', `Bearer ${token}`);
    const method = AppServiceService.uploadModuleFile;
    return this.app.makeClientStreamRequest(method.path, (message: Buffer) => message, method.responseDeserialize, metadata, {}, (error: ServiceError | null, response?: UploadModuleFileResponse) => {
      if (error?.code === status.UNAUTHENTICATED) this.#token = null;
      onEnd(error, error ? null : (response ?? null));
    });
  }

  /** What an AppError for a raw error of `uploadStream` reads like (same wording as every call's). */
  errorOf(e: unknown, what: string): AppError {
    return this.#toAppError(e, what);
  }

  close(): void {
    this.app.close();
    this.training.close();
    this.#auth.close();
  }

  #unary<Req, Res>(method: UnaryMethod<Req, Res>, request: Req, token: string, deadlineMs: number): Promise<Res> {
    const metadata = new Metadata();
    metadata.set('authorization', `Bearer ${token}`);
    return new Promise((resolve, reject) => {
      method.call(this.#trainingMethods.has(method) ? this.training : this.app, request, metadata, { deadline: Date.now() + deadlineMs }, (error, response) => {
        if (error) reject(error);
        else resolve(response);
      });
    });
  }

  #tokenFor(what = 'sign in'): Promise<string> {
    if (this.#token) return Promise.resolve(this.#token);
    if (this.#refused) return Promise.reject(this.#refused);
    // Concurrent calls share one Authenticate round trip.
    this.#authenticating ??= new Promise<string>((resolve, reject) => {
      this.#auth.authenticate(
        { entity: this.#target.apiKeyId, credentials: { type: 'api-key', payload: this.#target.apiKey } },
        new Metadata(),
        { deadline: Date.now() + this.#deadlineMs },
        (error, response) => {
          if (error) {
            const refused = this.#toAppError(error, what);
            if (refused.kind === 'unauthenticated') this.#refused = refused;
            reject(refused);
          }
          else if (!response.accessToken) reject(new AppError('internal', 'The service answered Authenticate without a token.'));
          else resolve(response.accessToken);
        },
      );
    })
      .then((token) => {
        this.#token = token;
        return token;
      })
      .finally(() => {
        this.#authenticating = null;
      });
    return this.#authenticating;
  }

  #toAppError(e: unknown, what: string): AppError {
    if (e instanceof AppError) return e;
    if (isServiceError(e)) return fromServiceError(e, what, this.#target.address);
    return new AppError('internal', `Could not ${what}: ${e instanceof Error ? e.message : String(e)}`);
  }
}
