import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { boundReadAhead, CLIENT_STREAM_READ_AHEAD } from './rpc';

describe('boundReadAhead', () => {
  it(`makes a client stream read at most ${CLIENT_STREAM_READ_AHEAD} messages ahead of a handler that does not read (Node's object default is 16)`, async () => {
    let produced = 0;
    // A source as fast as grpc-js's: every _read delivers a message at once.
    const stream = new Readable({
      objectMode: true,
      read() {
        produced += 1;
        this.push(Buffer.alloc(16));
      },
    });
    expect(stream.readableHighWaterMark).toBe(16);
    boundReadAhead(stream);
    expect(stream.readableHighWaterMark).toBe(CLIENT_STREAM_READ_AHEAD);
    const iterator = stream[Symbol.asyncIterator]();
    await iterator.next();
    await new Promise((r) => setTimeout(r, 20));
    // One taken by the handler, the bound waiting behind it (give or take the read that fills it).
    expect(produced).toBeLessThanOrEqual(CLIENT_STREAM_READ_AHEAD + 2);
    stream.destroy();
  });
});
