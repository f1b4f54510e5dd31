import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A loopback TCP proxy in front of a real service that can hold traffic from clients: what a slow or
 * stalled network looks like, so a test can act while a call is provably in flight.
 */
export interface HoldProxy {
  readonly address: string;
  /** From now on, bytes from clients wait here instead of reaching the service. */
  hold(): void;
  /**
   * Let `bytes` more from clients through (all connections together), then hold: a call provably
   * part-way through, however fast this machine streams (a hold after polling for progress lands
   * at a point that depends on the machine's speed).
   */
  holdAfter(bytes: number): void;
  /** Forward everything held, and stop holding. */
  release(): void;
  /** Drop every connection now (what was held is lost): a network break. New connections go through. */
  cut(): void;
  close(): Promise<void>;
}

export async function startHoldProxy(target: string): Promise<HoldProxy> {
  const port = Number(target.slice(target.lastIndexOf(':') + 1));
  const host = target.slice(0, target.lastIndexOf(':'));
  let held = false;
  /** Bytes from clients still let through before holding (holdAfter); null: no such limit. */
  let budget: number | null = null;
  const queues = new Map<Socket, Buffer[]>();
  const pairs = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(port, host);
    pairs.add(client).add(upstream);
    queues.set(client, []);
    client.on('data', (chunk: Buffer) => {
      if (held) {
        queues.get(client)!.push(chunk);
        return;
      }
      if (budget !== null && chunk.length >= budget) {
        // A TCP stream splits anywhere: the rest of this chunk waits with what follows it.
        upstream.write(chunk.subarray(0, budget));
        if (chunk.length > budget) queues.get(client)!.push(chunk.subarray(budget));
        budget = null;
        held = true;
        return;
      }
      if (budget !== null) budget -= chunk.length;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
    (client as Socket & { upstream?: Socket }).upstream = upstream;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: own } = server.address() as { port: number };
  return {
    address: `127.0.0.1:${own}`,
    hold: () => {
      held = true;
    },
    holdAfter: (bytes) => {
      if (bytes <= 0) held = true;
      else budget = bytes;
    },
    release: () => {
      held = false;
      budget = null;
      for (const [client, chunks] of queues) {
        const upstream = (client as Socket & { upstream?: Socket }).upstream;
        for (const chunk of chunks.splice(0)) upstream?.write(chunk);
      }
    },
    cut: () => {
      held = false;
      budget = null;
      for (const socket of pairs) socket.destroy();
      pairs.clear();
      queues.clear();
    },
    close: async () => {
      for (const socket of pairs) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
