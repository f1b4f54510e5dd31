import { describe, expect, it } from 'vitest';
import { addressHost, isLoopbackAddress, serviceAddress } from './schemas';

describe('isLoopbackAddress', () => {
  it.each(['localhost:50051', 'LOCALHOST:1', '127.0.0.1:50051', '127.1.2.3:9', '[::1]:50051', '[0:0:0:0:0:0:0:1]:1', '[::0:1]:1', '[::ffff:127.0.0.1]:1', ' 127.0.0.1:443 '])(
    '%s stays on this machine',
    (address) => expect(isLoopbackAddress(address)).toBe(true),
  );

  it.each([
    'fleet.example.com:443',
    '10.0.0.5:50051',
    '128.0.0.1:1',
    '127.0.0.256:1',
    '0.0.0.0:1',
    '[::]:1',
    '[::2]:1',
    '[1::1]:1',
    '[fe80::1]:1',
    'localhost.example.com:1',
    'localhost.:1',
    '127.0.0.1.nip.io:1',
    '[::ffff:10.0.0.1]:1',
  ])('%s crosses a network', (address) => expect(isLoopbackAddress(address)).toBe(false));
});

describe('addressHost', () => {
  it('drops the port and IPv6 brackets', () => {
    expect(addressHost('Fleet.Example.com:443')).toBe('fleet.example.com');
    expect(addressHost('[::1]:50051')).toBe('::1');
  });

  it('serviceAddress accepts what isLoopbackAddress reads', () => {
    for (const a of ['localhost:1', '[::1]:1', '127.0.0.1:65535']) expect(serviceAddress.safeParse(a).success).toBe(true);
  });
});
