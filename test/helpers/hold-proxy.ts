import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A loopback TCP proxy in front of a real service that can hold traffic from clients: what a slow or
 * stalled network looks like, so a test can act while a call is provably in flight.
 */
export interface HoldProxy {
  readonly address: string;
  /** From now on, bytes from clients wait here instead of reaching the service. */
  hold(): void;
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
  const queues = new Map<Socket, Buffer[]>();
  const pairs = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(port, host);
    pairs.add(client).add(upstream);
    queues.set(client, []);
    client.on('data', (chunk: Buffer) => {
      if (held) queues.get(client)!.push(chunk);
      else upstream.write(chunk);
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
    release: () => {
      held = false;
      for (const [client, chunks] of queues) {
        const upstream = (client as Socket & { upstream?: Socket }).upstream;
        for (const chunk of chunks.splice(0)) upstream?.write(chunk);
      }
    },
    cut: () => {
      held = false;
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
