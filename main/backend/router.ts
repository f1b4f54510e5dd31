/**
 * The one registration helper behind every bridge channel. For each call it checks the sender,
 * parses the payload with the channel's schema from common/, runs the handler, and wraps whatever
 * happens in the result envelope. A handler never sees an unchecked payload and never throws across.
 */
import type { z } from 'zod';
import { isChannelName } from '../../common/channel-names';
import { requestSchemas, type ChannelName, type ParsedRequestOf, type ResponseOf } from '../../common/channels';
import { err, fromWire, ok, type Result, type WireResult } from '../../common/result';
import { AppError } from './errors';
import { Serialized } from './serialized';

/** A channel's handler: its answer, or the same already serialized (sent on as it is). */
export type Handler<K extends ChannelName> = (request: ParsedRequestOf<K>) => Promise<ResponseOf<K> | Serialized<ResponseOf<K>>> | ResponseOf<K> | Serialized<ResponseOf<K>>;

/** A handler for every channel of the contract: a missing or mistyped one fails to compile. */
export type Handlers = { [K in ChannelName]: Handler<K> };

/** The handlers of one domain (its slice of the contract), merged into `Handlers` by the backend. */
export type DomainHandlers<K extends ChannelName> = { [P in K]: Handler<P> };

/** Who is calling: an Electron frame or a browser-mode socket. */
export interface BridgeSender {
  readonly transport: 'ipc' | 'ws';
  /** The frame URL (IPC) or the page Origin (WebSocket). */
  readonly url: string;
  /** webContents id (IPC) or connection number (WebSocket). */
  readonly id: number;
}

export interface RouterOptions {
  /** Decides whether a sender may use the bridge at all. */
  readonly isTrustedSender: (sender: BridgeSender) => boolean;
  /** Where unexpected failures are reported (never with payloads: they may hold keys). */
  readonly log?: (message: string) => void;
}

export interface BridgeHost {
  /** The call's answer, as the renderer's bridge sees it (a serialized answer parsed): for callers in this process. */
  dispatch(sender: BridgeSender, channel: unknown, payload: unknown): Promise<Result<unknown>>;
  /** The call's answer as it goes on the wire, a serialized answer still text (WireResult): for the IPC and WebSocket ends. */
  dispatchWire(sender: BridgeSender, channel: unknown, payload: unknown): Promise<WireResult<unknown>>;
}

export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')} ${issue.message}` : issue.message))
    .join('; ');
}

export function createRouter(handlers: Handlers, options: RouterOptions): BridgeHost {
  const log = options.log ?? ((m: string) => console.error(m));
  const dispatchWire: BridgeHost['dispatchWire'] = async (sender, channel, payload) => {
    if (!options.isTrustedSender(sender)) {
      log(`bridge: rejected a call from an unexpected sender (${sender.transport} ${sender.url})`);
      return err('permission-denied', 'This window is not allowed to use the Fleet Desk bridge.');
    }
    if (!isChannelName(channel)) return err('invalid', `Unknown bridge channel "${String(channel)}".`);
    const parsed = requestSchemas[channel].safeParse(payload ?? {});
    if (!parsed.success) return err('invalid', `Invalid ${channel} request: ${describeIssues(parsed.error)}.`);
    try {
      const handler = handlers[channel] as (request: unknown) => unknown;
      const value = await handler(parsed.data);
      return value instanceof Serialized ? { ok: true, json: value.json } : ok(value);
    } catch (e) {
      if (e instanceof AppError) return { ok: false, error: e.toBridge() };
      const message = e instanceof Error ? e.message : String(e);
      log(`bridge: ${channel} failed unexpectedly: ${e instanceof Error && e.stack ? e.stack : message}`);
      return err('internal', `Something went wrong in ${channel}: ${message}`);
    }
  };
  return { dispatchWire, dispatch: async (sender, channel, payload) => fromWire(await dispatchWire(sender, channel, payload)) };
}
