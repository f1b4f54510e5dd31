/**
 * An in-memory stand-in for main, for unit tests of the renderer's state: a `BridgeTransport` whose
 * channels answer with per-test handlers and whose events the test emits. Wrapped in the real
 * `createBridge`, so the state classes see exactly what they see in the app.
 */
import { createBridge, type BridgeTransport, type FleetBridge } from '../../../../common/bridge';
import type { ChannelName, RequestOf, ResponseOf } from '../../../../common/channels';
import type { EventName, Events } from '../../../../common/events';
import { fleetColumns, treePartColumns, type FleetTree } from '../../../../common/locations';
import { err, ok, type Result } from '../../../../common/result';

type Handler<K extends ChannelName> = (request: RequestOf<K>) => Result<ResponseOf<K>> | Promise<Result<ResponseOf<K>>>;

export interface Call {
  readonly channel: string;
  readonly request: unknown;
}

export class FakeTransport implements BridgeTransport {
  readonly calls: Call[] = [];
  readonly #handlers = new Map<string, (request: unknown) => unknown>();
  readonly #listeners = new Map<string, Set<(payload: unknown) => void>>();

  /** Answer `channel` with `handler` (a value is wrapped in `ok`). */
  handle<K extends ChannelName>(channel: K, handler: Handler<K> | ResponseOf<K>): this {
    this.#handlers.set(
      channel,
      typeof handler === 'function' ? (handler as (request: unknown) => unknown) : () => ok(handler),
    );
    return this;
  }

  /**
   * Answer the fleet tree (`locations.treeColumns` and `locations.treeParts`, what FleetStore reads)
   * from a tree in object form: tests write trees the readable way, the store gets them as main
   * sends them, stamped as main stamps them (the same locations and machines, the same stamp).
   */
  handleTree(handler: (request: RequestOf<'locations.treeColumns'>) => Result<FleetTree> | Promise<Result<FleetTree>>): this {
    const stamp = (tree: FleetTree) => JSON.stringify([tree.locations, tree.machines.map((m) => [m.id, m.name, m.locationId])]);
    this.handle('locations.treeParts', async ({ orgId }) => {
      const result = await handler({ orgId });
      return result.ok ? ok(treePartColumns(result.value, stamp(result.value))) : (result as Result<never>);
    });
    return this.handle('locations.treeColumns', async (request) => {
      const result = await handler(request);
      // The head a cold start asks for first: the same tree without its parts.
      const tree = result.ok && request.parts === false ? { ...result.value, machines: result.value.machines.map((m) => ({ ...m, parts: [] })) } : result.ok ? result.value : null;
      return tree ? ok({ ...fleetColumns(tree), stamp: stamp(tree) }) : (result as Result<never>);
    });
  }

  emit<E extends EventName>(event: E, payload: Events[E]): void {
    for (const listener of [...(this.#listeners.get(event) ?? [])]) listener(payload);
  }

  listenerCount(event: EventName): number {
    return this.#listeners.get(event)?.size ?? 0;
  }

  callsTo(channel: ChannelName): unknown[] {
    return this.calls.filter((c) => c.channel === channel).map((c) => c.request);
  }

  async invoke(channel: string, request: unknown): Promise<unknown> {
    this.calls.push({ channel, request });
    const handler = this.#handlers.get(channel);
    if (!handler) return err('internal', `The fake has no handler for ${channel}.`);
    return handler(request);
  }

  subscribe(event: string, listener: (payload: unknown) => void): () => void {
    let set = this.#listeners.get(event);
    if (!set) this.#listeners.set(event, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
    };
  }
}

export function fakeBridge(): { transport: FakeTransport; bridge: FleetBridge } {
  const transport = new FakeTransport();
  return { transport, bridge: createBridge(transport) };
}

/** A promise the test settles itself, to order answers against events. */
export function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Let pending promise callbacks run (a cold start's tree load is a chain of a dozen: the head, its parts, then the whole). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}
